"""MQPUT(msg, md)'s fast path (putmd.TemplatePut) against its plain path: for any MD a
program may pass, a template made by one put renders the record headers, the record key and
the filled-in MD that the rules make for the next put of an MD with the same fields."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.putmd import (
    DefaultContext,
    IdSource,
    PutClock,
    QueueTraits,
    TemplatePut,
    prepare,
)
from mqkafka.mqi.rules.structs import MD

QUEUE = QueueTraits("APP.Q", C.MQPER_NOT_PERSISTENT, 1 << 20, temporary=False)
ME = DefaultContext(b"alice", b"payroll")
OUTPUTS = ("CorrelId", "UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplType",
           "PutApplName", "ApplOriginData")  # fmt: skip


class FixedIds(IdSource):
    def __init__(self, *ids: bytes) -> None:
        super().__init__()
        self.ids = list(ids)

    def new(self) -> bytes:
        return self.ids.pop(0)


class FixedClock(PutClock):
    def __init__(self, date: bytes, stamp: bytes) -> None:
        super().__init__()
        self.value = (date, stamp)

    def now(self) -> tuple[bytes, bytes]:
        return self.value


text = st.binary(max_size=8).filter(lambda b: b"\0" not in b and not b.endswith(b" "))
mds = st.builds(
    MD,
    Format=st.sampled_from([b"", C.MQFMT_STRING, C.MQFMT_RF_HEADER_2, b"MYFMT"]),
    CodedCharSetId=st.sampled_from([0, 1208, 819, 437]),
    Encoding=st.sampled_from([C.MQENC_NATIVE, 273]),
    Priority=st.integers(-1, 9),
    Persistence=st.sampled_from([C.MQPER_PERSISTENCE_AS_Q_DEF, 0, 1]),
    Expiry=st.sampled_from([-1, 1, 600]),
    MsgType=st.sampled_from([C.MQMT_DATAGRAM, C.MQMT_REPLY, C.MQMT_REQUEST]),
    ReplyToQ=st.sampled_from([b"REPLY.Q", b"AMQ.1234"]),
    CorrelId=st.sampled_from([b"", b"c" * 24]),
    Report=st.sampled_from([0, C.MQRO_PASS_CORREL_ID]),
    GroupId=st.sampled_from([b"", b"g" * 24]),
    Feedback=st.integers(0, 3),
    UserIdentifier=text,
)


@settings(max_examples=200, deadline=None)
@given(md=mds, options=st.sampled_from([0, C.MQPMO_NO_SYNCPOINT]))
def test_a_template_renders_what_the_rules_make(md: MD, options: int) -> None:
    first_values = dict(md.__dict__)
    first = prepare(first_values, 10, options, C.MQOO_OUTPUT, QUEUE, ME,
                    FixedIds(b"1" * 24), FixedClock(b"20260101", b"10000000"))  # fmt: skip
    template = TemplatePut(first, {name: first_values[name] for name in OUTPUTS})

    plain_values = dict(md.__dict__)
    plain = prepare(plain_values, 10, options, C.MQOO_OUTPUT, QUEUE, ME,
                    FixedIds(b"2" * 24), FixedClock(b"20260102", b"11223344"))  # fmt: skip

    assert template.stamped(b"2" * 24, b"20260102", b"11223344") == plain.headers
    assert (template.key, template.persistent) == (plain.key, plain.persistent)
    assert template.outputs == {name: plain_values[name] for name in OUTPUTS}
