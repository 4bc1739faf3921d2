"""MQPUT(msg, md)'s fast path for an MD whose MsgId the program chose (IBM's Java client makes
its async puts' MsgIds itself): a template made by one put with its own MsgId renders, with
another MsgId, the record headers, key and filled-in MD that the rules make for that one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.unit.mqi.test_mqi_puttemplate import ME, OUTPUTS, QUEUE, FixedClock, FixedIds, mds

from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.putmd import TemplatePut, prepare
from mqkafka.mqi.rules.structs import MD

ids = st.binary(min_size=24, max_size=24).filter(any)


@settings(max_examples=200, deadline=None)
@given(md=mds, options=st.sampled_from([0, C.MQPMO_NO_SYNCPOINT]), first_id=ids, next_id=ids)
def test_a_template_stamps_the_msgid_given(
    md: MD, options: int, first_id: bytes, next_id: bytes
) -> None:
    first_values = {**md.__dict__, "MsgId": first_id}
    first = prepare(first_values, 10, options, C.MQOO_OUTPUT, QUEUE, ME,
                    FixedIds(b"1" * 24), FixedClock(b"20260101", b"10000000"))  # fmt: skip
    template = TemplatePut(first, {name: first_values[name] for name in OUTPUTS})

    plain_values = {**md.__dict__, "MsgId": next_id}
    plain = prepare(plain_values, 10, options, C.MQOO_OUTPUT, QUEUE, ME,
                    FixedIds(b"2" * 24), FixedClock(b"20260102", b"11223344"))  # fmt: skip

    assert plain_values["MsgId"] == next_id  # the rules keep a MsgId given
    assert template.stamped(next_id, b"20260102", b"11223344") == plain.headers
    assert (template.key, template.persistent) == (plain.key, plain.persistent)
    assert template.outputs == {name: plain_values[name] for name in OUTPUTS}
