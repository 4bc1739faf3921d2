"""A browse passes over only records others got (issue 33): Kafka's share-group start and lag
count offsets, and a transaction's commit marker takes an offset that holds no record."""

from __future__ import annotations

import pytest

from mqkafka.mqi.kafkaqm.logreader import hidden_records


@pytest.mark.parametrize(
    ("hidden", "start", "end", "records", "passed_over"),
    [
        (0, 0, 5, 5, 0),  # nothing done with: nothing hidden
        (2, 0, 5, 5, 2),  # no markers: every done offset is a record got
        # the service's replies, one marker after each: records at 1, 3, 5, markers at 2, 4, 6;
        # 1 and 3 got, start 2 (a marker), end 7, lag 1 -> 7 - 2 - 1 = 4 offsets done, of which
        # markers 2, 4 and 6: only record 3 was got
        (4, 2, 7, 2, 1),
        (2, 4, 7, 1, 0),  # the same after the start moved on: the reply at 5 is shown
        (2, 0, 4, 1, 0),  # more markers than done offsets: never negative
        (5, -1, 5, 5, 0),  # the group never started
        (1, 6, 5, 0, 0),  # a start past the end read
    ],
)
def test_markers_count_as_done_offsets_not_as_got_records(
    hidden: int, start: int, end: int, records: int, passed_over: int
) -> None:
    assert hidden_records(hidden, start, end, records) == passed_over
