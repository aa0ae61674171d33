# Two commands from a fresh clone (README): `make run` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test setup lint bench

setup: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements-dev.txt -c constraints.txt
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

run: setup
	$(BIN)/python app.py

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy --strict scorer vision web store.py app.py wsgi.py

test: setup
	scripts/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/mypy --strict scorer vision web store.py app.py wsgi.py
	$(BIN)/pytest

bench: setup
	$(BIN)/python bench/run_all.py
