# Two entry points (README): `make serve` runs the daemon, `make test` runs the whole suite.
# `make test-fast` is the inner loop: the suite without the tests marked slow (README).
.PHONY: serve test test-fast lint bench

serve:
	./scripts/serve.sh

test:
	./scripts/test.sh

test-fast:
	./scripts/test.sh -m "not slow"

lint:
	. scripts/venv.sh test && $$VENV/bin/ruff check . && $$VENV/bin/ruff format --check . && $$VENV/bin/mypy

bench:
	. scripts/venv.sh test && for b in benchmarks/*.py; do $$VENV/bin/python $$b; done
