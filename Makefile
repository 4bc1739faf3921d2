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

## test-faust: every service integration test that holds on `mqk serve --runtime faust`, on that
## runtime, and tests/integration/faust's runtime tests (`test` runs a part of it:
## tests/integration/faust/test_faust_service_suite.py). Left out, each for one reason:
##  - resilience: a subscriber queue's topic deleted: Faust cannot abort and try again around it
##    (the send waits for the topic); limits: a copy Kafka refuses under a limit lowered while
##    serving, and a record Kafka refuses (INVALID_RECORD): the default loop aborts, tries again
##    and dead-letters; on Faust the refused record is logged and left out
##  - kafka_restart: its fenced-id test fences the default loop's one transactional id
##    (test_faust_runtime_fenced.py fences Faust's)
##  - readme_examples: the README's commands, with the default runtime
test-faust: install
	MQK_RUNTIME=faust $(BIN)/python -m pytest -q -n 3 --dist loadfile \
	  tests/integration/service/test_service_commands.py tests/integration/service/test_service_filters.py \
	  tests/integration/service/test_service_seed_rules.py tests/integration/service/test_operator_queues.py \
	  tests/integration/service/test_cli_operators.py tests/integration/service/test_large_messages.py \
	  tests/integration/service/test_service_resilience.py tests/integration/service/test_service_takeover.py \
	  tests/integration/service/test_service_limits.py tests/integration/service/test_service_scaleout.py \
	  tests/integration/service/test_kafka_restart.py \
	  tests/integration/faust/test_faust_runtime.py tests/integration/faust/test_faust_runtime_fenced.py \
	  tests/integration/faust/test_faust_runtime_differential.py \
	  --deselect tests/integration/service/test_service_resilience.py::test_a_subscriber_queue_deleted_under_its_subscription_stops_nothing_and_loses_nothing \
	  --deselect tests/integration/service/test_service_limits.py::test_a_copy_too_large_for_one_queue_is_dead_lettered_and_the_others_delivered \
	  --deselect tests/integration/service/test_service_limits.py::test_a_record_kafka_refuses_all_the_same_takes_its_message_out_of_the_batch \
	  --deselect tests/integration/service/test_kafka_restart.py::test_a_fenced_transactional_id_ends_the_service_in_one_line_with_exit_3

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
