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


TOO_LARGE = "KafkaError{code=MSG_SIZE_TOO_LARGE}"


@pytest.mark.parametrize(
    ("reason", "detail", "said"),
    [
        # the topic's broker refused the record at MQCMIT: the queue's limit, as MQPUT's 2030
        (RC.BACKED_OUT, TOO_LARGE, "MQRC_MSG_TOO_BIG_FOR_Q 2030"),
        (RC.CONNECTION_BROKEN, TOO_LARGE, "MQRC_MSG_TOO_BIG_FOR_Q 2030"),
        # MQPUT measured it against the topic, or the queue's MAXMSGL
        (RC.MSG_TOO_BIG_FOR_Q, "5000 bytes: a record of 5100 bytes", "MQRC_MSG_TOO_BIG_FOR_Q 2030"),
        # the producer's message.max.bytes or MaxMsgLength: the queue manager's, 2031
        (RC.MSG_TOO_BIG_FOR_Q_MGR, TOO_LARGE, "MQRC_MSG_TOO_BIG_FOR_Q_MGR 2031"),
    ],
)
def test_a_put_refused_as_too_large_says_mqputs_reason_not_backed_out(
    reason: int, detail: str, said: str
) -> None:
    text = _put_failure(Failure(reason, detail), "Q", 9)
    assert said in text and "MQRC_BACKED_OUT" not in text, text
    assert "(9 bytes)" in text and "Q" in text


def test_another_failure_is_said_with_its_reason() -> None:
    other = _put_failure(Failure(RC.Q_FULL, ""), "Q", 9)
    assert other == "not re-put to Q: MQRC_Q_FULL (2053); it stays here"
