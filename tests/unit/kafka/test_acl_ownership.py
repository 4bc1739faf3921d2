"""The shipped ACLs keep the service's consumer group and transactional ids the service's
(issue 35 point 1), and let applications read Kafka's share state (point 4): evaluated as
Kafka's authorizer matches a binding to a resource."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka.admin import AclOperation, ResourcePatternType, ResourceType

from mqkafka.kafka.groups import reader_group
from mqkafka.kafka.localsecurity import APP, SERVICE, acl_bindings
from mqkafka.kafka.sharelog import STATE_TOPIC

NS = "qm1."
G, X, T = ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID, ResourceType.TOPIC


def allowed(bindings: list[Any], user: str, kind: Any, name: str, operation: Any) -> bool:
    for b in bindings:
        if b.principal != f"User:{user}" or b.restype != kind or b.operation != operation:
            continue
        if b.resource_pattern_type == ResourcePatternType.PREFIXED:
            if name.startswith(b.name):
                return True
        elif b.name in ("*", name):
            return True
    return False


@pytest.mark.parametrize(
    ("user", "kind", "name", "operation", "expected"),
    [
        # the service's group and transactional ids: the service's alone
        (APP, G, f"{NS}mqk-broker", AclOperation.DESCRIBE, False),
        (APP, G, f"{NS}mqk-broker", AclOperation.READ, False),  # join
        (APP, X, f"{NS}mqk-serve-host-1", AclOperation.WRITE, False),
        (APP, X, f"{NS}mqk-serve-host-1", AclOperation.DESCRIBE, False),
        (SERVICE, G, f"{NS}mqk-broker", AclOperation.READ, True),
        (SERVICE, G, f"{NS}mqk-broker", AclOperation.DESCRIBE, True),
        (SERVICE, X, f"{NS}mqk-serve-host-1", AclOperation.WRITE, True),
        # an application's own: share groups, assign-only readers, syncpoint producers
        (APP, G, f"{NS}mqk-get.APP.Q1", AclOperation.READ, True),
        (APP, G, f"{NS}mqk-get.APP.Q1", AclOperation.ALTER_CONFIGS, True),
        # a reader group is named afresh each time: its own id keeps test ids the same on
        # every xdist worker
        pytest.param(APP, G, reader_group("browse"), AclOperation.READ, True, id="reader-group"),
        (APP, X, "mqk-mqi-7-0a1b2c3d", AclOperation.WRITE, True),
    ],
)
def test_who_may_use_which_group(
    user: str, kind: Any, name: str, operation: Any, expected: bool
) -> None:
    assert allowed(acl_bindings(NS), user, kind, name, operation) is expected


def test_no_application_group_prefix_covers_a_service_name() -> None:
    for b in acl_bindings(NS):
        if b.principal == f"User:{APP}" and b.restype in (G, X):
            for name in (f"{NS}mqk-broker", f"{NS}mqk-serve-", "mqk-broker", "mqk-serve-"):
                assert not name.startswith(b.name) and b.name != "*", (b, name)


@pytest.mark.parametrize(
    ("share_state", "operation", "expected"),
    [
        (True, AclOperation.READ, True),
        (True, AclOperation.DESCRIBE, True),
        (True, AclOperation.WRITE, False),
        (True, AclOperation.DELETE, False),
        (False, AclOperation.READ, False),
        (False, AclOperation.DESCRIBE, False),
    ],
)
def test_the_application_reads_the_share_state_unless_left_out(
    share_state: bool, operation: Any, expected: bool
) -> None:
    """Browse reads which records a share group acknowledged (issue 35 point 4); an operator
    may withhold it (``mqk kafka acls --without-share-state``), never grant more than reading."""
    bindings = acl_bindings(NS, share_state=share_state)
    assert allowed(bindings, APP, T, STATE_TOPIC, operation) is expected
