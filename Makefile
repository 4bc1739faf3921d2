# Two commands for users: `make run` and `make test`. Everything else supports them.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MQK_HOME ?= $(CURDIR)/.mqk
export MQK_HOME

.PHONY: run test test-faust install lint typecheck bench stop clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml setup.py service/mqkafka/activity/_blocks.c | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,pipeline,console]'
	touch $(STAMP)

install: $(STAMP)
	@# the report draws topic names in any script: a CJK font, Debian's where we may install it
	@fc-list :lang=zh 2>/dev/null | grep -q . || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
	  && (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk) >/dev/null 2>&1; } \
	  || echo "note: no CJK font (apt-get install fonts-noto-cjk): CJK topic names show as boxes"
	@# the console's browser tests drive Debian's headless chromium (Playwright's own builds are not fetched)
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
	  && (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1; } \
	  || echo "note: no chromium (apt-get install chromium): the console's browser tests are skipped"

## run: install, fetch Kafka (first time), start the local broker, provision topics, start the service
run: install
	$(BIN)/mqk run

## test: install and run the whole suite (starts its own throw-away Kafka brokers)
# Three workers on two cores: most of an integration test is waiting on Kafka. Each worker
# has its own broker; a file's tests stay in one worker, so its module fixtures start once.
# Files are handed out in collection order, the longest first (tests/conftest.py says which).
# The service suite runs on Faust too (tests/integration/faust/test_faust_*.py), all of it.
test: install lint typecheck
	$(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder --durations=25

## test-faust: the service's integration suite on `mqk serve --runtime faust`, and the Faust
## runtime's and applications' own tests: tests/integration/faust (servicesuite.py says how,
## and which tests stay on the default loop, each with its reason).
test-faust: install
	$(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder --durations=25 tests/integration/faust

lint: install
	$(BIN)/ruff check service tests bench devsupport
	$(BIN)/ruff format --check service tests bench devsupport

typecheck: install
	$(BIN)/mypy

bench: install
	$(BIN)/python -m bench $(BENCH)

stop:
	-$(BIN)/mqk stop

clean:
	rm -rf $(VENV) .mqk build *.egg-info
