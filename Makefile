# Two commands from a fresh clone (README): `make run` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test setup lint bench catalogues

LANGS := hi mr tg
CATALOGUES := $(foreach l,$(LANGS),translations/$(l)/LC_MESSAGES/messages.mo)

OFFLINE_BUNDLE := build/offline/bundle.json

setup: $(VENV)/.installed node_modules/.installed $(CATALOGUES) $(OFFLINE_BUNDLE)

$(VENV)/.installed: requirements.txt requirements-dev.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements-dev.txt -c constraints.txt
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Compiled catalogues are build output: made from the .po files kept in git.
translations/%/LC_MESSAGES/messages.mo: translations/%/LC_MESSAGES/messages.po $(VENV)/.installed
	$(BIN)/pybabel compile --statistics -l $* -i $< -o $@

# The phone's offline bundle (Pyodide from node_modules, the app's Python as a zip): rebuilt when
# anything it holds changes (scripts/build_offline.py; docs/DESIGN.md "Offline").
OFFLINE_SOURCES := $(shell find scorer web templates migrations static -type f -not -path '*/__pycache__/*' 2>/dev/null)
$(OFFLINE_BUNDLE): $(VENV)/.installed node_modules/.installed $(CATALOGUES) $(OFFLINE_SOURCES) app.py store.py \
		scripts/build_offline.py
	$(BIN)/python scripts/build_offline.py

# After changing any message: extract them all again and merge into each language's .po file.
catalogues: $(VENV)/.installed
	$(BIN)/pybabel extract -F babel.cfg -k N_ -k _ -k ngettext:1,2 --add-comments=TRANSLATORS: --no-location --sort-output \
		--project=Muggins -o translations/messages.pot .
	for l in $(LANGS); do \
		if [ -f translations/$$l/LC_MESSAGES/messages.po ]; then \
			$(BIN)/pybabel update -l $$l -i translations/messages.pot -d translations \
				--no-fuzzy-matching --ignore-obsolete; \
		else $(BIN)/pybabel init -l $$l -i translations/messages.pot -d translations; fi; done

run: setup
	$(BIN)/python app.py

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy --strict scorer vision web store.py app.py wsgi.py

test: setup
	scripts/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/mypy --strict scorer vision web store.py app.py wsgi.py
	$(BIN)/pytest -n 2 --dist loadfile --durations=20

bench: setup
	$(BIN)/python bench/run_all.py
