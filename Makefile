# Two entry points (README): `make serve` runs the daemon, `make test` runs the whole suite.
.PHONY: serve test lint bench

serve:
	./scripts/serve.sh

test:
	./scripts/test.sh

lint:
	. scripts/venv.sh test && $$VENV/bin/ruff check . && $$VENV/bin/ruff format --check . && $$VENV/bin/mypy

bench:
	. scripts/venv.sh test && for b in benchmarks/*.py; do $$VENV/bin/python $$b; done
