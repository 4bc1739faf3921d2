"""Values built by ``fastvalues.copier`` equal the ones their constructors build."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.engine.effects import Deliver
from mqkafka.mq.commandparse import command_from_psc
from mqkafka.mq.commands import (
    DEFAULT_STREAM,
    EMPTY_CONTENT,
    Interface,
    PublicationContent,
    Publish,
)
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


@given(
    st.text(min_size=1, max_size=48),
    st.text(max_size=48),
    st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8)), max_size=3),
    st.sampled_from(list(Interface)),
)
def test_copied_deliver_equals_the_constructed_one(
    queue: str, qmgr: str, psc: list[tuple[str, str]], interface: Interface
) -> None:
    make = copier(Deliver, ("queue", "q_mgr_name", "md", "psc", "content", "interface"))
    args = (queue, qmgr, MQMD(), tuple(psc), EMPTY_CONTENT, interface)
    assert make((), *args) == Deliver(*args)


@given(
    st.binary(max_size=16),
    st.sampled_from(["REPLY", ""]),
    st.binary(min_size=24, max_size=24),
)
def test_a_copied_publish_equals_the_replaced_one(
    body: bytes, reply_to: str, msg_id: bytes
) -> None:
    """The remembered Publish of ``wire.messagecodec``: the template with this message's
    MQMD and content."""
    template = command_from_psc(
        [("Command", "Publish"), ("Topic", "Sport/A")], MQMD(), queue=DEFAULT_STREAM
    )
    assert isinstance(template, Publish)
    make = copier(Publish, ("md", "content"))
    md = MQMD(ReplyToQ=reply_to, MsgId=msg_id)
    content = PublicationContent(body=body)
    assert make(template_values(template), md, content) == replace(template, md=md, content=content)


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="no fields"):
        copier(MQMD, ("Nope",))
