"""A browse handle's reader, and the browse barrier around each browse call: MQGET with
BROWSE_FIRST, BROWSE_NEXT or BROWSE_MSG_UNDER_CURSOR (:func:`.transfer.get` makes the
checks and hands out the message)."""

from __future__ import annotations

from functools import partial

from mqkafka.mqi.kafkaqm.browsebarrier import acked_again, before_browse
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.kafkaqm.handle import Handle
from mqkafka.mqi.kafkaqm.liveconnections import consumed_in_process, got_in_process
from mqkafka.mqi.kafkaqm.logreader import LogReader, kafka_share, known_between
from mqkafka.mqi.kafkaqm.queuerecord import Rec


def first_call(conn: Connection, handle: Handle) -> LogReader:
    """BROWSE_FIRST, or a handle's first browse: the reader back at the queue's start once
    every getter's acknowledgements reached Kafka, this process's (so that its lag counts
    every message they got: issue 35) and other processes' (:mod:`.browsebarrier`)."""
    conn.settle_acks(handle.name)
    settled = before_browse(conn, handle.name)
    reader = reader_of(conn, handle)
    reader.rewind()
    reader.mark, reader.held, reader.acked = settled.mark, settled.held, settled.acked
    return reader


def next_call(conn: Connection, handle: Handle) -> LogReader:
    """BROWSE_NEXT: the barrier on every call, not only the first (issue 35)."""
    reader = reader_of(conn, handle)
    settled_since(conn, handle, reader)
    return reader


def settled_since(conn: Connection, handle: Handle, reader: LogReader) -> None:
    """A browse call after the first: the barrier again (browsebarrier: a round of its
    own or a shared one, none while nobody elsewhere gets), then Kafka's share state read
    to its end unless nobody elsewhere can have got anything since it last was."""
    settled = before_browse(conn, handle.name)
    if settled.mark is None or settled.mark != reader.mark:
        reader.refresh()
    reader.mark, reader.held, reader.acked = settled.mark, settled.held, settled.acked


def still_under_cursor(conn: Connection, handle: Handle, rec: Rec) -> bool:
    """Whether the message under the browse cursor is still on the queue: not got by any
    connection (MQ answers NO_MSG_UNDER_CURSOR for one removed since it was browsed)."""
    if handle.browser is None:
        return True
    settled_since(conn, handle, handle.browser)
    return handle.browser.shows(rec)


def reader_of(conn: Connection, handle: Handle) -> LogReader:
    """The handle's reader, made at its first browse."""
    if handle.browser is None:
        topic, partitions = handle.topic, handle.partitions

        def known(partition: int, start: int, end: int) -> int:
            return known_between(consumed_in_process(topic), partition, start, end)

        handle.browser = LogReader(
            conn.settings.client,
            topic,
            partitions,
            lambda: conn.admin.share_start(topic, handle.group, partitions),
            conn.consumed_of(topic),
            lambda starts: conn.admin.got_unseen(topic, partitions, handle.group, starts, known),
            partial(got_in_process, topic),
            kafka_share(conn.settings.client, conn.admin.share_state, handle.group),
            partial(acked_again, conn, handle.name),
        )
    return handle.browser


__all__ = ["first_call", "next_call", "reader_of", "settled_since", "still_under_cursor"]
