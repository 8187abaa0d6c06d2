#!/usr/bin/env bash
# Start the machine's PostgreSQL cluster (Debian layout) and print a test database URL on stdout.
# Exits non-zero with a reason on stderr when that can't be done here.
set -euo pipefail
command -v pg_lsclusters >/dev/null || { echo "PostgreSQL is not installed" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "starting PostgreSQL needs root" >&2; exit 1; }
cluster=$(pg_lsclusters -h | head -n 1)
if [ -z "$cluster" ]; then
    version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
    pg_createcluster "$version" main >&2
    cluster=$(pg_lsclusters -h | head -n 1)
fi
read -r version name port status _ <<<"$cluster"
if [ "$status" != online ]; then pg_ctlcluster "$version" "$name" start >&2; fi
psql_() { su postgres -s /bin/sh -c "psql -p $port -v ON_ERROR_STOP=1 -qtAc \"$1\""; }
for _ in $(seq 50); do psql_ "select 1" >/dev/null 2>&1 && break; sleep 0.2; done
if [ -z "$(psql_ "select 1 from pg_roles where rolname='narrator_test'")" ]; then
    psql_ "create role narrator_test login createdb password 'narrator_test'"
fi
# The test role's commits do not wait for their WAL to reach the disk (an fsync of 2-4 ms on
# these machines' disks; tests commit thousands of times). What a test checks does not change:
# a commit is seen by every other session at once and survives any client's crash; only a crash
# of the server itself could lose the last ones. Set on the role alone, not on the cluster.
psql_ "alter role narrator_test set synchronous_commit = off"
# DROP DATABASE ... WITH (FORCE) of a test database ends an autovacuum worker busy in it, which
# only a member of pg_signal_backend may do (else the drop fails at random).
psql_ "grant pg_signal_backend to narrator_test" 2>/dev/null || true
if [ -z "$(psql_ "select 1 from pg_database where datname='narrator_test'")" ]; then
    psql_ "create database narrator_test owner narrator_test"
fi
echo "postgresql+psycopg://narrator_test:narrator_test@127.0.0.1:$port/narrator_test"
