#!/usr/bin/env bash
# The run command (README): set up the environment if needed, migrate, and start `narrator serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
"$VENV/bin/narrator" db upgrade "$@"
exec "$VENV/bin/narrator" serve "$@"
