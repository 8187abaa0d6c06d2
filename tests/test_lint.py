"""The code stays ruff-clean and formatted; `rules/`, `parsing/`, `stories/` and `narrator/`
type-check (mypy, the packages pyproject.toml names); `narrator/service` keeps small functions."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; install the test extras: pip install -e '.[test]'")
    return found


def test_ruff_check_is_clean() -> None:
    result = subprocess.run(
        [_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = subprocess.run(
        [_tool("ruff"), "format", "--check", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow  # mypy over every package, 10 s (`make test-fast` leaves it out; `make lint`)
def test_mypy_is_clean_on_every_package() -> None:
    result = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


#: The package whose functions are kept small (issue 21): at most this many lines (its
#: docstring not counted), McCabe complexity and parameters.
SMALL_PACKAGE = ROOT / "narrator" / "service"
MAX_FUNCTION_LINES = 60
MAX_COMPLEXITY = 12
MAX_ARGS = 6


def _function_lengths(path: Path) -> list[tuple[str, int]]:
    """(name, lines without its docstring) of every function in the module at `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lengths = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            first = node.body[0]
            is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if is_doc and isinstance(first.value.value, str) and first.end_lineno is not None:
                lines -= first.end_lineno - first.lineno + 1
            lengths.append((f"{path.relative_to(ROOT)}:{node.lineno} {node.name}", lines))
    return lengths


def test_no_function_of_the_service_is_long() -> None:
    long = [
        f"{name} ({lines} lines)"
        for path in sorted(SMALL_PACKAGE.glob("*.py"))
        for name, lines in _function_lengths(path)
        if lines > MAX_FUNCTION_LINES
    ]
    assert not long, f"over {MAX_FUNCTION_LINES} lines: " + ", ".join(long)


def test_no_function_of_the_service_is_complex_or_takes_many_parameters() -> None:
    """McCabe complexity and parameter counts, with the limits stated here (also the ones
    pyproject.toml sets for `ruff check`, which `make lint` runs)."""
    result = subprocess.run(
        [
            _tool("ruff"),
            "check",
            "--select",
            "C901,PLR0913",
            "--config",
            f"lint.mccabe.max-complexity={MAX_COMPLEXITY}",
            "--config",
            f"lint.pylint.max-args={MAX_ARGS}",
            str(SMALL_PACKAGE.relative_to(ROOT)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_length_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    module = tmp_path / "long.py"
    module.write_text(f'def f() -> None:\n    """Doc."""\n{body}\n', encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys.modules[__name__], "ROOT", tmp_path)
        [(_, lines)] = _function_lengths(module)
    assert lines == MAX_FUNCTION_LINES + 1
