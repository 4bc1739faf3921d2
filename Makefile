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

$(STAMP): pyproject.toml | $(BIN)/python
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
test: install lint typecheck
	$(BIN)/python -m pytest -q -n 3 --dist loadfile --durations=25

## test-faust: the service's integration tests that hold on `mqk serve --runtime faust` too, on
## that runtime (not in `test`: it adds minutes; the README's Faust section says what differs)
test-faust: install
	MQK_RUNTIME=faust $(BIN)/python -m pytest -q -n 3 --dist loadfile \
	  tests/integration/service/test_service_commands.py tests/integration/service/test_service_filters.py \
	  tests/integration/service/test_service_seed_rules.py tests/integration/service/test_operator_queues.py \
	  tests/integration/service/test_cli_operators.py tests/integration/service/test_large_messages.py \
	  tests/integration/service/test_service_resilience.py \
	  --deselect tests/integration/service/test_service_resilience.py::test_a_subscriber_queue_deleted_under_its_subscription_stops_nothing_and_loses_nothing

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
