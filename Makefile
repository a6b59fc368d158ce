# Two commands set up everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint format clean bench load

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,postgres]'
	touch $(STAMP)

run: install
	$(BIN)/tracker init --demo
	$(BIN)/tracker serve --host 127.0.0.1 --port 5000

# Both cores: xdist workers, the browser tests together on one of them.
test: install
	$(BIN)/python -m pytest -n auto --dist loadgroup $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check tracker tests migrations bench
	$(BIN)/ruff format --check tracker tests migrations bench
	$(BIN)/mypy
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff format tracker tests migrations bench
	$(BIN)/ruff check --fix tracker tests migrations bench

# Benchmarks at two organisation sizes (BENCH_SIZES=1000,10000) on PostgreSQL when
# reachable (TRACKER_BENCH_DATABASE_URL), else SQLite; writes bench/results.json.
# BENCH_LOAD=1 also runs the load test.
bench: install
	$(BIN)/python -m bench.run

# Concurrent clients logging hours and reading pages, on SQLite and PostgreSQL.
load: install
	$(BIN)/python -m bench.load

clean:
	rm -rf $(VENV) instance/*.db .pytest_cache
