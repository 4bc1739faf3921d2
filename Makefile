# Two commands for users: `make run` and `make test`. Everything else supports them.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MQK_HOME ?= $(CURDIR)/.mqk
export MQK_HOME

.PHONY: run test install lint typecheck bench stop clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,pipeline]'
	touch $(STAMP)

install: $(STAMP)

## run: install, fetch Kafka (first time), start the local broker, provision topics, start the service
run: install
	$(BIN)/mqk run

## test: install and run the whole suite (starts its own throw-away Kafka broker)
test: install
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check service tests bench
	$(BIN)/ruff format --check service tests bench

typecheck: install
	$(BIN)/mypy

bench: install
	$(BIN)/python -m bench $(BENCH)

stop:
	-$(BIN)/mqk stop

clean:
	rm -rf $(VENV) .mqk build *.egg-info
