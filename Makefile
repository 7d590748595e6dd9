# Two commands do everything on a fresh machine: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test fuzz lint typecheck unit bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/fedwatch serve --host $(HOST) --port $(PORT)

test: $(STAMP) lint typecheck
	$(PY) -m pytest

# Schemathesis against a real `fedwatch serve` on 127.0.0.1 (schemathesis.toml).
fuzz: $(STAMP)
	$(PY) -m pytest -m fuzz -s tests/api/test_fuzz.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

unit: $(STAMP)
	$(PY) -m pytest tests/engine

bench: $(STAMP)
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) var .mypy_cache .ruff_cache .pytest_cache
