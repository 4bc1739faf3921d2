"""Part of the service's integration suite on ``mqk serve --runtime faust`` (issue 36 point
3), in ``make test``: the seed scenarios, the commands' core (publish and deliver, retained
publications) and a worker killed and restarted as the same static member. ``make
test-faust`` runs the whole list of the service suite's tests that hold on Faust; the
crash-and-restart exactly-once test and the differential test are this directory's
``test_faust_runtime*.py``."""

from __future__ import annotations

import pytest

from tests.integration.service.conftest import client, namespace, start_service
from tests.integration.service.test_service_commands import (
    test_regsub_publish_delivers_with_the_topic_and_the_subscriber_correlid,
    test_retained_publication_request_update_and_delete_pub,
)
from tests.integration.service.test_service_seed_rules import (
    as_user,
    test_a_command_message_without_command_is_parm_missing,
    test_a_constant_false_filter_is_selector_always_false_and_a_bad_one_filter_error,
    test_request_update_by_sub_name_from_another_user_of_a_variable_user_id_subscription,
)
from tests.integration.service.test_service_takeover import (
    test_a_worker_killed_and_restarted_takes_its_partitions_back_as_the_same_member,
)

pytestmark = pytest.mark.kafka

__all__ = [
    "as_user",
    "client",
    "namespace",
    "start_service",
    "test_a_command_message_without_command_is_parm_missing",
    "test_a_constant_false_filter_is_selector_always_false_and_a_bad_one_filter_error",
    "test_a_worker_killed_and_restarted_takes_its_partitions_back_as_the_same_member",
    "test_regsub_publish_delivers_with_the_topic_and_the_subscriber_correlid",
    "test_request_update_by_sub_name_from_another_user_of_a_variable_user_id_subscription",
    "test_retained_publication_request_update_and_delete_pub",
]


@pytest.fixture(autouse=True)
def faust_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``mqk serve`` these tests start runs on Faust."""
    monkeypatch.setenv("MQK_RUNTIME", "faust")
