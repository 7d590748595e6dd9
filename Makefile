# Two commands do everything on a fresh machine: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The front end's tools (package.json): tsc over the JSDoc types, prettier, node --test.
NODE   := node_modules/.installed
# The Flower tests run where a user of the extra would: `pip install 'fedwatch[flower]'`
# in an environment of its own (flwr pins fastapi, starlette and uvicorn below .venv's).
FLOWER := .venv-flower
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test test-flower test-js test-deploy fuzz lint typecheck docs unit bench clean

# The tests' environment holds the example plug-in too, installed as a user installs one.
$(STAMP): pyproject.toml examples/fedau/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) -m pip install -q --no-deps -e examples/fedau
	touch $(STAMP)

$(NODE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(FLOWER)/.installed: pyproject.toml
	test -x $(FLOWER)/bin/python || python3 -m venv $(FLOWER)
	$(FLOWER)/bin/python -m pip install -q --upgrade pip
	$(FLOWER)/bin/python -m pip install -q -e '.[flower]' 'flwr[simulation]' pytest pytest-timeout
	touch $@

run: $(STAMP) docs
	$(VENV)/bin/fedwatch serve --host $(HOST) --port $(PORT)

test: $(STAMP) lint typecheck docs test-js test-flower
	$(PY) -m pytest

# The front end's pure modules, without a browser (tests/js).
test-js: $(NODE)
	node --test tests/js/

test-flower: $(FLOWER)/.installed
	$(FLOWER)/bin/python -m pytest -p no:cacheprovider tests/flower

# docker-compose.yml end to end in a Docker engine of its own (tests/deploy; needs root,
# docker.io, docker-compose, and mmdebstrap where the base images cannot be pulled).
test-deploy: $(STAMP)
	$(PY) -m pytest -m deploy -s -p no:cacheprovider tests/deploy

# Schemathesis against a real `fedwatch serve` on 127.0.0.1 (schemathesis.toml).
fuzz: $(STAMP)
	$(PY) -m pytest -m fuzz -s tests/api/test_fuzz.py

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
	rm -rf $(VENV) $(FLOWER) node_modules var .mypy_cache .ruff_cache .pytest_cache
