"""Values built by ``fastvalues.copier`` equal the ones their constructors build."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.engine.effects import Deliver
from mqkafka.mq.commands import EMPTY_CONTENT, Interface
from mqkafka.mq.fastvalues import copier, template_values
from mqkafka.mq.mqmd import MQMD

CHANGED = ("MsgId", "Expiry", "Priority", "Persistence", "PutDate", "PutTime")
copy_md = copier(MQMD, CHANGED)


@given(
    st.binary(min_size=24, max_size=24),
    st.integers(-1, 10**6),
    st.integers(0, 9),
    st.integers(0, 1),
    st.from_regex(r"[0-9]{8}", fullmatch=True),
    st.from_regex(r"[0-9]{0,8}", fullmatch=True),
)
def test_copied_mqmd_equals_the_replaced_one(
    msg_id: bytes, expiry: int, priority: int, persistence: int, date: str, time: str
) -> None:
    template = MQMD(ReplyToQ="Q", UserIdentifier="fred", CorrelId=b"C" * 24, Format="MQHRF2")
    fast = copy_md(template_values(template), msg_id, expiry, priority, persistence, date, time)
    slow = template.replace(
        MsgId=msg_id,
        Expiry=expiry,
        Priority=priority,
        Persistence=persistence,
        PutDate=date,
        PutTime=time,
    )
    assert fast == slow and hash(fast) == hash(slow)
    with pytest.raises(AttributeError):
        fast.MsgId = b"x" * 24  # type: ignore[misc]  # still frozen


def test_copied_deliver_equals_the_constructed_one() -> None:
    make = copier(Deliver, ("queue", "q_mgr_name", "md", "psc", "content", "interface"))
    args = ("Q", "QM1", MQMD(), (("Command", "Publish"),), EMPTY_CONTENT, Interface.RFH2)
    assert make((), *args) == Deliver(*args)


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="no fields"):
        copier(MQMD, ("Nope",))
