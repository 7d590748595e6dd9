# Two commands do everything on a fresh machine: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The front end's tools (package.json): tsc over the JSDoc types, prettier, node --test.
NODE   := node_modules/.installed
# The client distribution (the SDK, `fedwatch sync`, the Flower wrapper): built from
# this tree's `fedwatch/`; the full distribution depends on it.
CLIENT := client/pyproject.toml
# The Flower tests run where a Flower user's code would: an environment holding only
# `pip install 'fedwatch-client[flower]'` (from the tree), Flower's simulation engine and
# the test tools. They record into `.venv`'s `fedwatch serve` (FEDWATCH_TEST_SERVER).
FLOWER := .venv-flower
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Torch's idle threads sleep in the tests' processes, which train with every core and no
# thread governor (worker/engine/threads.py) beside each other: with OpenMP's spinning
# waits, on a busy machine, a preset test of 60 s ran past its 600 s timeout. A setting
# of the user's own wins.
export OMP_WAIT_POLICY ?= PASSIVE

.PHONY: run test test-flower test-js test-deploy fuzz fidelity lint typecheck docs unit bench clean

# The tests' environment holds the example plug-in too, installed as a user installs one.
# A `fedwatch` from before the client's split owns bin/fedwatch, now the client's: were it
# replaced in place after the client, it would take the script with it (hence uninstall).
$(STAMP): pyproject.toml $(CLIENT) examples/fedau/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip uninstall -q -y fedwatch
	$(PY) -m pip install -q -e ./client -e '.[dev,hf]'
	$(PY) -m pip install -q --no-deps -e examples/fedau
	touch $(STAMP)

$(NODE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(FLOWER)/.installed: $(CLIENT)
	rm -rf $(FLOWER) && python3 -m venv $(FLOWER)
	$(FLOWER)/bin/python -m pip install -q --upgrade pip
	$(FLOWER)/bin/python -m pip install -q -e './client[flower]' 'flwr[simulation]' \
		pytest pytest-timeout httpx
	touch $@

# bench/peers.py's Flower side: Flower's simulation engine and .venv's torch release,
# nothing of FedWatch (which the bench runs in .venv).
.venv-peers/.installed: $(STAMP)
	test -x .venv-peers/bin/python || python3 -m venv .venv-peers
	.venv-peers/bin/python -m pip install -q --upgrade pip
	.venv-peers/bin/python -m pip install -q 'flwr[simulation]' numpy \
		"torch==$$($(PY) -c 'from importlib.metadata import version; print(version("torch"))')"
	touch $@

# bench/peers.py's pfl-research side: `pfl[pytorch]` from the registry (its torch range
# holds .venv's release, pinned as for Flower), nothing of FedWatch or Flower.
.venv-pfl/.installed: $(STAMP)
	test -x .venv-pfl/bin/python || python3 -m venv .venv-pfl
	.venv-pfl/bin/python -m pip install -q --upgrade pip
	.venv-pfl/bin/python -m pip install -q 'pfl[pytorch]' numpy \
		"torch==$$($(PY) -c 'from importlib.metadata import version; print(version("torch"))')"
	touch $@

run: $(STAMP) docs
	$(VENV)/bin/fedwatch serve --host $(HOST) --port $(PORT)

test: $(STAMP) lint typecheck docs test-js test-flower
	$(PY) -m pytest

# The front end's pure modules, without a browser (tests/js).
test-js: $(NODE)
	node --test tests/js/

test-flower: $(STAMP) $(FLOWER)/.installed
	FEDWATCH_TEST_SERVER=$(CURDIR)/$(VENV)/bin/fedwatch \
		$(FLOWER)/bin/python -m pytest -p no:cacheprovider tests/flower

# docker-compose.yml end to end in a Docker engine of its own (tests/deploy; needs root,
# docker.io, docker-compose, and mmdebstrap where the base images cannot be pulled).
test-deploy: $(STAMP) $(FLOWER)/.installed
	$(PY) -m pytest -m deploy -s -p no:cacheprovider tests/deploy

# Schemathesis against a real `fedwatch serve` on 127.0.0.1 (schemathesis.toml); its one
# long test took 5.5 min on a busy 2-core machine, near the suite's 600 s a test.
fuzz: $(STAMP)
	$(PY) -m pytest -m fuzz -s --timeout 1800 tests/api/test_fuzz.py

# Every reference run replayed on the real data (FEDWATCH_TEST_DATA), not only the
# seed `make test` replays.
fidelity: $(STAMP)
	$(PY) -m pytest -m fidelity tests/fidelity

lint: $(STAMP) $(NODE)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	node_modules/.bin/prettier --check frontend/js frontend/docs tests/js

typecheck: $(STAMP) $(NODE)
	$(VENV)/bin/mypy
	node_modules/.bin/tsc -p tsconfig.json

# The manual (mkdocs.yml), offline; strict: a broken link or anchor fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

unit: $(STAMP)
	$(PY) -m pytest tests/engine

bench: $(STAMP)
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) $(FLOWER) .venv-peers .venv-pfl node_modules var .mypy_cache .ruff_cache .pytest_cache
