# Privacy Workbench — the two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
PORT ?= 8501
# Listen on this machine only; `make run HOST=0.0.0.0` exposes the app to the network on
# purpose (then also set PRIVCORE_HISTORY_SCOPE=session, as the container does).
HOST ?= 127.0.0.1
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-fast lint format bench chromium anonymeter docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.runtime-installed: requirements.txt | $(PY)
	$(PIP) install -q -r requirements.txt
	touch $@

PYCANON := pycanon==1.3.6
ANJANA := anjana==1.2.3

$(VENV)/.dev-installed: requirements-dev.txt $(VENV)/.runtime-installed
	$(PIP) install -q -r requirements-dev.txt
	$(PIP) install -q --no-deps $(PYCANON) $(ANJANA)
	touch $@

# The project's bytecode, written once as an installed package's is (a shell that sets
# PYTHONDONTWRITEBYTECODE would otherwise compile every module on every start)
BYTECODE = $(PY) -m compileall -q privcore ui pages app.py serve.py >/dev/null

## run: install what the app needs and start it on http://localhost:$(PORT) (this machine only)
run: $(VENV)/.runtime-installed
	@mkdir -p data
	@$(BYTECODE)
	PRIVCORE_WORKERS=$${PRIVCORE_WORKERS:-1} \
	  $(VENV)/bin/streamlit run serve.py --server.address $(HOST) --server.port $(PORT)

## chromium: Debian's Chromium (and a CJK font for Chinese pages) for the browser tests,
## Pango for WeasyPrint's PDF and Poppler (pdftotext, pdftoppm, pdffonts) for its tests;
## waits up to APT_LOCK_WAIT s for another package manager's lock (apt-get install waits by
## itself, apt-get update is retried while the package lists are locked)
CHROMIUM_PKGS := chromium fonts-wqy-zenhei poppler-utils libpango-1.0-0 libpangoft2-1.0-0
APT_LOCK_WAIT ?= 600
APT_GET = $(SUDO) apt-get -q -o DPkg::Lock::Timeout=$(APT_LOCK_WAIT)
chromium:
	@if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/truetype/wqy ] || \
	  [ ! -x /usr/bin/pdftotext ]; then \
	  echo "Installing Debian's $(CHROMIUM_PKGS) for the browser and PDF tests (waiting up to $(APT_LOCK_WAIT) s for another package manager)"; \
	  $(APT_GET) install -y $(CHROMIUM_PKGS) >/dev/null 2>&1 || { SECONDS=0; \
	    until err=$$($(APT_GET) update 2>&1 >/dev/null) || [[ $$err != *"get lock"* ]] || \
	      [ $$SECONDS -ge $(APT_LOCK_WAIT) ]; do sleep 5; done; \
	    err=$$err$$'\n'$$($(APT_GET) install -y $(CHROMIUM_PKGS) 2>&1 >/dev/null) || { echo "$$err" >&2; \
	      case $$err in *"get lock"*|*"Unable to acquire"*|*"Unable to lock"*) echo "make chromium: another package manager held the dpkg lock for $(APT_LOCK_WAIT) s; let it finish (or run make test APT_LOCK_WAIT=1800), then run make test again." >&2;; esac; \
	      exit 1; }; }; \
	fi

## anonymeter: Anonymeter 1.1 in its own environment (it pins numpy < 1.27), the oracle of
## singling out, linkability and inference (tests/crosscheck, bench/bench_anonymeter.py)
ANONYMETER_VENV := .venv-anonymeter
$(ANONYMETER_VENV)/.installed: tests/crosscheck/anonymeter-requirements.txt
	$(PYTHON) -m venv $(ANONYMETER_VENV)
	$(ANONYMETER_VENV)/bin/python -m pip install -q --disable-pip-version-check \
	  -r tests/crosscheck/anonymeter-requirements.txt
	touch $@
anonymeter: $(ANONYMETER_VENV)/.installed

## test: install test tools and Chromium, lint, run every test (unit, property, app, browser)
## on TEST_WORKERS processes, each test file whole on one of them
TEST_WORKERS ?= 2
test: $(VENV)/.dev-installed chromium anonymeter
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	@$(BYTECODE)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

## docs: the documentation site (MkDocs + Material + mkdocstrings) into site/: the command
## line's reference written from its parser first, warnings (broken links included) are errors
docs: $(VENV)/.dev-installed
	$(PY) docs/cli_reference.py
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

## test-fast: every test except the browser ones
test-fast: $(VENV)/.dev-installed
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not e2e"

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## bench: the benchmark scripts; figures go to bench/RESULTS.md by hand after review
bench: $(VENV)/.dev-installed chromium anonymeter
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) $(ANONYMETER_VENV) .pytest_cache .ruff_cache .hypothesis tests/e2e/artifacts site
