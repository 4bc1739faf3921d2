"""The per-identity index (``EngineState.of_identity``, ``owners_of``,
``owners_oldest_first``) against a naive model, on the in-memory and the RocksDB stores.

Random RegSub / DeregSub sequences by several users on two subscriber queues, with and
without VariableUserId: after every command the engine's answer is the one a naive walk over
every subscription of the identity (oldest first) gives, and the index lists what the model
holds. ``BrokerDriver`` also runs ``check_invariants`` after every command.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.engine.identity import Identity, Owner, check_owner
from mqkafka.engine.state import EngineState
from mqkafka.engine.topicspace import ROOT, Namespace
from mqkafka.mq.commands import RegOpt
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.state.rocks import RocksState
from tests.unit.engine.driver import QMGR, BrokerDriver

QUEUES = ["Q1", "Q2"]
TOPICS = ["a", "b", "c", "d"]
USERS = ["fred", "bob", "carol"]
SUB_POINTS = [None, "SP"]


class CarolMayNotBrowse:
    """Everyone may do everything, except that carol may not browse: so taking over another
    user's VariableUserId identity is 3081 for her and allowed for the others."""

    def may_put(self, user_id: str, queue: str) -> bool:
        return True

    def may_browse(self, user_id: str, queue: str) -> bool:
        return user_id != "carol"

    def may_subscribe(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return True

    def may_publish(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return True

    def may_set_identity(self, sender: str, claimed: str) -> bool:
        return True


AUTHORITY = CarolMayNotBrowse()
Key = tuple[str, str | None, str]  # queue, SubPoint, topic


def namespace(sub_point: str | None) -> Namespace:
    return ROOT if sub_point is None else Namespace.subpoint(sub_point)


class Model:
    """Subscriptions as (queue, SubPoint, topic) -> Owner, oldest first (dict order: an
    altered subscription keeps its place, as it keeps its place in delivery order)."""

    def __init__(self) -> None:
        self.subs: dict[Key, Owner] = {}

    def of_queue(self, queue: str) -> list[tuple[Key, Owner]]:
        return [(key, owner) for key, owner in self.subs.items() if key[0] == queue]

    def refusal(self, owners: list[Owner], user: str, variable: bool) -> int:
        options = RegOpt.VARIABLE_USER_ID if variable else RegOpt.NONE
        try:
            for owner in owners:
                check_owner(owner, user, options, AUTHORITY)
        except MQError as error:
            return error.reason
        return RC.NONE

    def register(self, key: Key, user: str, variable: bool) -> int:
        old = self.subs.get(key)
        if old is not None:  # re-registration alters its options, keeps its owner's userid
            reason = self.refusal([old], user, variable)
            if reason == RC.NONE:
                self.subs[key] = Owner(old.user_id, variable, key[0], namespace(key[1]))
            return reason
        reason = self.refusal([owner for _, owner in self.of_queue(key[0])], user, variable)
        if reason == RC.NONE:
            self.subs[key] = Owner(user, variable, key[0], namespace(key[1]))
        return reason

    def deregister(self, key: Key, user: str, variable: bool) -> int:
        old = self.subs.get(key)
        if old is None:
            return RC.CF_NOT_REGISTERED
        reason = self.refusal([old], user, variable)
        if reason == RC.NONE:
            del self.subs[key]
        return reason


@contextmanager
def engine_state(kind: str) -> Iterator[EngineState]:
    if kind == "memory":
        yield EngineState()
        return
    with tempfile.TemporaryDirectory() as tmp, RocksState(Path(tmp) / "state") as rocks:
        yield EngineState(rocks.subscriptions, rocks.retained, rocks.publishers)


commands = st.lists(
    st.tuples(
        st.sampled_from(["RegSub", "RegSub", "DeregSub"]),
        st.sampled_from(QUEUES),
        st.sampled_from(SUB_POINTS),
        st.sampled_from(TOPICS),
        st.sampled_from(USERS),
        st.booleans(),
    ),
    max_size=40,
)


@pytest.mark.parametrize("kind", ["memory", "rocks"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=commands)
def test_identity_index_matches_a_naive_walk(
    kind: str, steps: list[tuple[str, str, str | None, str, str, bool]]
) -> None:
    model = Model()
    with engine_state(kind) as state:
        broker = BrokerDriver(state=state, authority=AUTHORITY)
        for verb, queue, sub_point, topic, user, variable in steps:
            key = (queue, sub_point, topic)
            options = "VariableUserId" if variable else ""
            if verb == "RegSub":
                expected = model.register(key, user, variable)
                got = broker.register_subscriber(
                    topic, queue=queue, sub_point=sub_point, user=user, options=options
                )
            else:
                expected = model.deregister(key, user, variable)
                got = broker.deregister_subscriber(
                    topic, queue=queue, sub_point=sub_point, user=user, options=options
                )
            assert got.reason == expected, (verb, key, user, variable, got)
            for q in QUEUES:
                held = model.of_queue(q)
                identity = Identity(q, QMGR)
                subs = state.of_identity(identity)
                assert [(s.key.namespace, s.key.topic.text, s.owner) for s in subs] == [
                    (namespace(k[1]), k[2], owner) for k, owner in held
                ]
                distinct = list(dict.fromkeys(owner for _, owner in held))
                owners = state.owners_of(identity)
                assert len(owners) == len(distinct) and set(owners) == set(distinct)
                assert state.owners_oldest_first(identity) == distinct
