# Every target sets itself up: a .venv with the pinned project and its dev extra.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST    ?= 127.0.0.1
PORT    ?= 50051
WORKERS ?=

.PHONY: test serve proto bench clean

$(STAMP): pyproject.toml constraints.txt $(wildcard setup.py) $(wildcard solver/*.c)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

serve: $(STAMP)
	$(BIN)/python -m web --host $(HOST) --port $(PORT) --http-port $(or $(HTTP_PORT),8080) $(if $(WORKERS),--workers $(WORKERS))

proto: $(STAMP)
	$(BIN)/python scripts/gen_proto.py

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
