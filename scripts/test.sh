#!/usr/bin/env bash
# The test command (README): set up the environment if needed, start what the tests need, run all tests.
# In parallel: one pytest-xdist worker per CPU (NARRATOR_TEST_WORKERS=N to choose, 0 for none); an
# idle worker takes tests queued for a busy one (worksteal: a few tests take minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh test
# PostgreSQL: start a local server when one is installed and we may; tests skip it otherwise.
if url=$(scripts/start-postgres.sh 2>/tmp/narrator-start-postgres.log | tail -n 1) && [[ "$url" == postgresql* ]]; then
    export NARRATOR_TEST_POSTGRES_URL="$url"
    echo "test: PostgreSQL at ${url%%@*}@…"
else
    echo "test: no PostgreSQL started ($(tail -n 1 /tmp/narrator-start-postgres.log)); its tests will skip"
fi
if command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ]; then
    echo "test: Dovecot found; IMAP tests run against it"
else
    echo "test: Dovecot not installed (apt-get install dovecot-imapd dovecot-lmtpd); IMAP tests will skip"
fi
# Byte code cached outside the checkout, in the virtual environment: where PYTHONDONTWRITEBYTECODE
# is set (the machines here set it) every test worker, and every `narrator serve` a test starts,
# compiled every module and pytest rewrote every test module's asserts again (about 5 s of CPU
# per worker's collection alone).
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-$PWD/$VENV/pycache}"
unset PYTHONDONTWRITEBYTECODE
# Temporary files (each test's databases, Maildirs, mail servers' folders) in memory when the
# machine has a tmpfs with room for them and TMPDIR is not chosen already: the tests fsync
# as the daemon does (every outgoing mail and its folder, the outbox journal, PostgreSQL's
# and SQLite's checkpoints), and an fsync waits 2-4 ms on these machines' disks, 0.03 ms in
# memory.  The files, calls and checks are the same; pytest keeps the last three runs' folders.
shm_free_gib=$(df --output=avail -B1G /dev/shm 2>/dev/null | tail -n 1 | tr -d ' ' || true)
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ] && [ "${shm_free_gib:-0}" -ge 4 ] 2>/dev/null; then
    shm="/dev/shm/narrator-tests-$(id -u)"
    mkdir -p "$shm"
    if [ -O "$shm" ] && [ ! -L "$shm" ]; then  # ours, not another user's left in our way
        chmod 1777 "$shm"  # as /tmp: a test's mail server may run as another user
        export TMPDIR="$shm"
        echo "test: temporary files in $TMPDIR (tmpfs)"
    fi
fi
workers="${NARRATOR_TEST_WORKERS:-auto}"
pytest=("$VENV/bin/python" -m pytest)
if [ $# -gt 0 ]; then  # a selection of one's own (make test-fast, a folder): one parallel run
    exec "${pytest[@]}" -n "$workers" --dist worksteal "$@"
fi
# The whole suite in two runs: everything in parallel but the tests bounded by the wall clock
# (marked wallclock: real daemons, crash storms), then those by themselves, where no CPU-bound
# worker takes their seconds: two at a time (they mostly wait), a file's tests on one worker so
# that two crash storms never overlap (one process when NARRATOR_TEST_WORKERS=0), the files handed
# out longest first (tests/conftest.py's WALL_CLOCK_ORDER: the collection's order, which
# pytest-xdist would otherwise replace by the files with the most tests first, the crash storms
# last).  Both always run; either failing fails.
status=0
wall_workers=2
if [ "$workers" = 0 ]; then wall_workers=0; fi
"${pytest[@]}" -n "$workers" --dist worksteal -m "not wallclock" || status=$?
"${pytest[@]}" -n "$wall_workers" --dist loadfile --no-loadscope-reorder -m wallclock || status=$?
exit "$status"
