# Every target sets itself up: a .venv with the pinned project and its dev extra.
# Another interpreter: make test PYTHON=python3.13 [VENV=DIR]
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 50051
WORKERS ?=

# Which interpreter the venv must come from: implementation, full version and
# a hash of its installation prefix. The stamp is named after it, so a venv
# made by another (or an older) python than $(PYTHON) is rebuilt from scratch.
PY_ID_CODE := import hashlib, sys; \
  print(sys.implementation.name + "-" + ".".join(map(str, sys.version_info[:3])) + "-" \
  + hashlib.sha1(sys.base_prefix.encode()).hexdigest()[:8])
PY_ID := $(shell $(PYTHON) -c '$(PY_ID_CODE)' 2>/dev/null)
ifeq ($(PY_ID),)
$(error PYTHON=$(PYTHON) is not a working Python interpreter)
endif
STAMP := $(VENV)/.installed-$(PY_ID)

.PHONY: venv test serve proto bench i18n clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt $(wildcard setup.py) $(wildcard src/quiltsolve/solver/*.c) $(wildcard src/quiltsolve/engine/_core/*)
	@if [ -d $(VENV) ] && [ "$$($(BIN)/python -c '$(PY_ID_CODE)' 2>/dev/null)" != "$(PY_ID)" ]; then \
	  echo "$(VENV) was made by another python than $(PYTHON) ($(PY_ID)): rebuilding it"; rm -rf $(VENV); fi
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]'
	rm -f $(VENV)/.installed $(VENV)/.installed-*
	touch $(STAMP)

# axe-core, the accessibility checker of the browser tests (tests/web/package.json: a test dependency, never
# shipped), installed when npm is here; without it tests/web/test_a11y.py's axe audit is skipped, saying so.
AXE := tests/web/node_modules/axe-core/axe.min.js

$(AXE): tests/web/package.json tests/web/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/web && $$(command -v timeout >/dev/null && echo timeout 300) npm ci --no-audit --no-fund --silent) && touch $@ \
	    || echo "warning: npm ci in tests/web failed; the axe-core audit will be skipped" >&2; \
	else echo "npm not found: the axe-core audit of the browser tests will be skipped"; fi

# The suite in TEST_WORKERS processes with pytest-xdist (default 2 where there are 2 cores; a test file stays in
# one of them, with its module fixtures), then the tests timed against a limit (marker `serial`, tests/conftest.py)
# alone, so that the other process's load cannot make a limit look missed. TEST_WORKERS=1: one process, one pass.
# -rs names what was skipped and why.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -ge 2 ] && echo 2 || echo 1)
test: $(STAMP) $(AXE)
ifeq ($(TEST_WORKERS),1)
	$(BIN)/python -m pytest -q -rs
else
	$(BIN)/python -m pytest -q -rs -n $(TEST_WORKERS) --dist loadfile -m "not serial"
	$(BIN)/python -m pytest -q -rs -m serial
endif

serve: $(STAMP)
	$(BIN)/quiltsolve-web --host $(HOST) --port $(PORT) --http-port $(or $(HTTP_PORT),8080) $(if $(WORKERS),--workers $(WORKERS))

proto: $(STAMP)
	$(BIN)/python scripts/gen_proto.py

# The command line's catalogues (src/quiltsolve/clients/locale, Babel): extract the messages of clients/ into the
# template, update each language's .po from it (new messages come untranslated: translate them), compile the .mo.
I18N_LANGS := uk ko it
LOCALE := src/quiltsolve/clients/locale
i18n: $(STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg --add-location=file --sort-output --no-wrap --project=quiltsolve \
	  --copyright-holder="the quiltsolve authors" -o $(LOCALE)/quiltsolve.pot .
	for l in $(I18N_LANGS); do \
	  test -f $(LOCALE)/$$l/LC_MESSAGES/quiltsolve.po || \
	    $(BIN)/pybabel -q init -i $(LOCALE)/quiltsolve.pot -d $(LOCALE) -D quiltsolve -l $$l --no-wrap; \
	done
	$(BIN)/pybabel -q update -i $(LOCALE)/quiltsolve.pot -d $(LOCALE) -D quiltsolve --no-wrap \
	  --no-fuzzy-matching --ignore-obsolete
	$(BIN)/pybabel compile -d $(LOCALE) -D quiltsolve --statistics

bench: $(STAMP)
	$(BIN)/python -c 'import xcover' 2>/dev/null || \
	  $(BIN)/python -m pip install -q --disable-pip-version-check -c constraints.txt xcover   # the bench extra, pinned
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info tests/web/node_modules
