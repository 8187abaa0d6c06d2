# Two entry points (README): `make serve` runs the daemon, `make test` runs the whole suite.
# `make test-fast` is the inner loop: the suite without the tests marked slow, on SQLite (README).
.PHONY: serve test test-fast lint bench

serve:
	./scripts/serve.sh

test:
	./scripts/test.sh

test-fast:
	./scripts/test.sh -m "not slow and not postgres"

lint:
	. scripts/venv.sh test && $$VENV/bin/ruff check . && $$VENV/bin/ruff format --check . && $$VENV/bin/mypy

# The benchmarks with targets first (each prints its targets beside its figures: issue 25), then
# the others; not the crash-safety soak (benchmarks/soak.py: 500 kills, run by hand).
BENCH_TARGETS = benchmarks/cli.py benchmarks/steps.py benchmarks/latency.py benchmarks/pipeline.py
bench:
	. scripts/venv.sh test && for b in $(BENCH_TARGETS) $(filter-out $(BENCH_TARGETS) benchmarks/soak.py,$(wildcard benchmarks/*.py)); do echo "== $$b"; $$VENV/bin/python $$b || exit 1; done
