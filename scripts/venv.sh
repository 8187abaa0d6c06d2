# Sourced: create ./.venv when missing and install the project (with extras "$1") when it changed.
VENV="${VENV:-.venv}"
extras="${1:-}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
fi
stamp="$VENV/.installed-${extras:-base}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    if [ -n "$extras" ]; then spec=".[$extras,postgres]"; else spec=".[postgres]"; fi
    "$VENV/bin/python" -m pip install -q -e "$spec"
    touch "$stamp"
fi
export VENV
