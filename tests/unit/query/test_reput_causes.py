"""Which dead letters a re-put would send straight back (query/actions.py): causes of the
message's own need the operator's confirmation; the destination's are fixed there."""

from __future__ import annotations

import pytest

from mqkafka.mq.reasons import RC
from mqkafka.query.actions import _put_failure, cause_repeats

CAUSES = [
    (RC.MSG_TOO_BIG_FOR_Q, True),
    (RC.MSG_TOO_BIG_FOR_Q_MGR, True),
    (RC.RFH_FORMAT_ERROR, True),
    (RC.RFH_COMMAND_ERROR, True),
    (RC.CF_COMMAND_FAILED, True),
    (RC.UNKNOWN_OBJECT_NAME, False),
    (RC.Q_FULL, False),
    (RC.PUT_INHIBITED, False),
    (RC.NOT_AUTHORIZED, False),
]


@pytest.mark.parametrize(("reason", "repeats"), CAUSES)
def test_a_cause_of_the_message_s_own_repeats(reason: int, repeats: bool) -> None:
    assert cause_repeats(reason) is repeats


class Failure:
    def __init__(self, reason: int, detail: str) -> None:
        self.reason, self.detail = reason, detail


def test_a_put_kafka_refused_as_too_large_says_so_not_backed_out() -> None:
    said = _put_failure(Failure(RC.BACKED_OUT, "KafkaError{code=MSG_SIZE_TOO_LARGE}"), "Q", 9)
    assert "MQRC_MSG_TOO_BIG_FOR_Q_MGR 2031" in said and "MQRC_BACKED_OUT" not in said
    assert "(9 bytes)" in said and "Q" in said
    other = _put_failure(Failure(RC.Q_FULL, ""), "Q", 9)
    assert other == "not re-put to Q: MQRC_Q_FULL (2053); it stays here"
