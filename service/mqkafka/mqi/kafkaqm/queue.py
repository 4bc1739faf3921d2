"""pymqi's ``Queue``: MQOPEN (now, or lazily at the first use as pymqi does), MQPUT, MQGET
and their pymqi helpers, MQINQ, MQSET and MQCLOSE on one object handle.

Code written for pymqi runs with ``import mqkafka.mqi as pymqi``::

    qmgr = pymqi.connect("QM1", conn_info="127.0.0.1(9092)")     # or bootstrap_servers=...
    queue = pymqi.Queue(qmgr, "APP.REQUEST", pymqi.CMQC.MQOO_OUTPUT)
    queue.put(b"hello", pymqi.MD(), pymqi.PMO())
    queue.close()
    qmgr.disconnect()

The connection, ``connect`` and the MQI error boundary are :mod:`.queuemanager`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm import putrun, transfer
from mqkafka.mqi.kafkaqm.blocks import end_block
from mqkafka.mqi.kafkaqm.handle import Handle
from mqkafka.mqi.kafkaqm.inquire import inquire_queue, set_queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager, _mqi, _two, string_message
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import InterfaceMisuse, MQMIError, failed
from mqkafka.mqi.rules.rfh2class import RFH2, strip_headers, with_headers
from mqkafka.mqi.rules.structs import GMO, MD, OD, PMO, mqchars

# pymqi's MQGET buffer when the caller gives no length and accepts truncation: nothing fits,
# so the call reports 2079 with the data that fitted (none) and the message's length.
TRUNCATED_DEFAULT_BUFFER = 0


def _od(q_desc: OD | str | bytes) -> OD:
    if isinstance(q_desc, OD):
        return q_desc
    return OD(ObjectName=q_desc)


class Queue:
    """An MQ queue (pymqi's ``Queue``): ``Queue(qmgr, name_or_od, open_options)``.

    With no open options the queue opens on first use: MQOO_OUTPUT for put, MQOO_INPUT_AS_Q_DEF
    (plus MQOO_BROWSE for a browse) for get, as pymqi does.
    """

    def __init__(
        self,
        qmgr: QueueManager,
        q_desc: OD | str | bytes | None = None,
        open_opts: int | None = None,
    ) -> None:
        self._qmgr = qmgr
        self._od = _od(q_desc) if q_desc is not None else None
        self._handle: Handle | None = None
        # an MQSUB subscription's queue: MQGET gives the publication's data alone, its
        # properties as message properties (module propdelivery)
        self.publications = False
        if self._od is not None and open_opts is not None:
            self.open(self._od, open_opts)

    def open(self, q_desc: OD | str | bytes, open_opts: int | None = None) -> Queue:
        """MQOPEN now with ``open_opts``; without them the open waits for the first put, get
        or ``with`` block, as pymqi's. Returns the Queue (``with queue.open(od, opts):``)."""
        with _mqi():
            if self._handle is not None and self._handle.open:
                raise InterfaceMisuse(RC.HOBJ_ERROR, "The Queue is already open")
            self._od = _od(q_desc)
            self._handle = None
            if open_opts is not None:
                self._handle = self._qmgr.connection.open(self._od, open_opts)
        return self

    def _opened(self, lazy_options: int) -> Handle:
        if self._handle is None:
            if self._od is None:
                raise failed(RC.HOBJ_ERROR, "the queue was never opened")
            self._handle = self._qmgr.connection.open(self._od, lazy_options)
        return self._handle

    @property
    def od(self) -> OD | None:
        return self._od

    @property
    def name(self) -> str:
        return (
            self._handle.name
            if self._handle is not None
            else mqchars(self._od.ObjectName if self._od else b"")
        )

    def put(self, msg: Any, *opts: Any) -> None:
        md, pmo = _two(opts, MD, PMO)
        msg, md = string_message(self._qmgr, msg, md)
        with _mqi():
            handle = self._opened(C.MQOO_OUTPUT)
            transfer.put(self._qmgr.connection, handle, msg, md, pmo)

    def put_run(self, md: MD, items: Sequence[tuple[bytes, bytes]]) -> tuple[int, MQMIError | None]:
        """MQPUT of each (data, MsgId) in turn with ``md`` but for its MsgId, and no MQPMO,
        as ``put(data, md)`` each (module putrun: the listener's async puts): the puts made
        before the first that raised, and its error (None: all were put)."""
        try:
            handle = self._opened(C.MQOO_OUTPUT)
            done, error = putrun.put_run(self._qmgr.connection, handle, md, items)
        except MQError as raised:
            done, error = 0, raised
        return done, None if error is None else MQMIError.of(error)

    def put_rfh2(self, msg: Any, *opts: Any) -> None:
        """pymqi's put_rfh2(msg, md, pmo, [RFH2, ...]): the headers go before ``msg``."""
        data, rest = with_headers(msg, opts)
        self.put(data, *rest)

    def put_async(self, msg: Any, *opts: Any) -> Future[None]:
        """MQPUT that does not wait for a persistent message to be stored: the future
        completes when Kafka has it (the throughput variant of persistent puts: many in
        flight, one wait). Checks and reason codes are MQPUT's, raised at once."""
        md, pmo = _two(opts, MD, PMO)
        done: Future[None] = Future()
        with _mqi():
            handle = self._opened(C.MQOO_OUTPUT)
            transfer.put(self._qmgr.connection, handle, msg, md, pmo, durable=done)
        return done

    def get(self, max_length: int | None = None, *opts: Any) -> bytes:
        md, gmo = _two(opts, MD, GMO)
        md = md if md is not None else MD()
        gmo = gmo if gmo is not None else GMO()
        if max_length is None and gmo.Options & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            max_length = TRUNCATED_DEFAULT_BUFFER
        try:  # the _mqi boundary, inline: MQGET is the hot path
            lazy = C.MQOO_INPUT_AS_Q_DEF
            if gmo.Options & transfer.BROWSE:
                lazy = C.MQOO_BROWSE
            handle = self._opened(lazy)
            conn = self._qmgr.connection
            return transfer.get(conn, handle, max_length, md, gmo, self.publications)
        except MQMIError:
            raise
        except MQError as error:
            raise MQMIError.of(error) from None

    def get_no_jms(self, max_length: int | None = None, *opts: Any) -> bytes:
        """MQGET without message properties (pymqi's get_no_jms / get_no_rfh2)."""
        md, gmo = _two(opts, MD, GMO)
        gmo = gmo if gmo is not None else GMO()
        gmo.Options |= C.MQGMO_NO_PROPERTIES | C.MQGMO_FAIL_IF_QUIESCING
        return self.get(max_length, md, gmo)

    get_no_rfh2 = get_no_jms

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        """pymqi's get_rfh2(max_length, md, gmo, headers): the RFH2 headers the MQMD's Format
        announces are parsed into the ``headers`` list; the data after them is returned."""
        if len(opts) < 3:
            return self.get(max_length, *opts)
        headers = opts[2]
        if headers is None:
            raise AttributeError("get_opts cannot be None if passed.")
        if not isinstance(headers, list):
            raise TypeError("Third item of opts should be a list.")
        md = opts[0] if opts[0] is not None else MD()
        data = self.get(max_length, md, opts[1])
        found: list[RFH2] = []
        data = strip_headers(data, md, found)
        headers.extend(found)
        return data

    def get_wait(
        self, interval_ms: int, max_length: int | None = None, md: MD | None = None
    ) -> bytes:
        """MQGET with MQGMO_WAIT for ``interval_ms`` (a convenience pymqi users write often)."""
        gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=interval_ms)
        return self.get(max_length, md or MD(), gmo)

    def get_many(
        self, count: int, wait_ms: int = 0, max_length: int | None = None
    ) -> list[tuple[MD, bytes]]:
        """Up to ``count`` messages (outside syncpoint): one call for a batch, as a
        throughput helper; waits up to ``wait_ms`` for the first only."""
        out: list[tuple[MD, bytes]] = []
        first_wait = wait_ms
        while len(out) < count:
            md = MD()
            options = C.MQGMO_NO_SYNCPOINT | (C.MQGMO_WAIT if first_wait else 0)
            try:
                data = self.get(max_length, md, GMO(Options=options, WaitInterval=first_wait))
            except MQMIError as error:
                if error.reason == RC.NO_MSG_AVAILABLE:
                    break
                raise
            out.append((md, data))
            first_wait = 0
        return out

    def put_many(self, messages: list[Any], md_factory: Callable[[], MD] | None = None) -> None:
        """Non-persistent puts of many messages with one descriptor factory (throughput)."""
        for message in messages:
            self.put(message, md_factory() if md_factory else None)

    def inquire(self, selector: int) -> int | bytes:
        """MQINQ (module :mod:`mqkafka.mqi.kafkaqm.inquire`); opens for MQOO_INQUIRE if not open."""
        with _mqi():
            handle = self._opened(C.MQOO_INQUIRE)
            return inquire_queue(self._qmgr.connection, handle, selector)

    def set(self, selector: int, value: int) -> None:
        """MQSET of MQIA_INHIBIT_PUT / MQIA_INHIBIT_GET; opens for MQOO_SET if not open."""
        with _mqi():
            handle = self._opened(C.MQOO_SET)
            set_queue(self._qmgr.connection, handle, selector, value)

    def get_handle(self) -> int | None:
        """The hobj, None when not open (as pymqi's)."""
        return self._handle.hobj if self._handle is not None and self._handle.open else None

    def close(self, options: int = C.MQCO_NONE) -> None:
        with _mqi():
            if self._handle is None:
                raise InterfaceMisuse(RC.HOBJ_ERROR, "not open")
            self._qmgr.connection.close(self._handle.hobj, options)
            self._handle = None

    def __del__(self) -> None:
        # pymqi closes a queue object that is garbage-collected (MQCO_NONE); the connection
        # does it outside the collection (Connection.collected says why).
        try:
            handle = self._handle
            if handle is not None and handle.open and self._qmgr.is_connected:
                conn = self._qmgr.connection
                conn.collected.append(partial(conn.close, handle.hobj, C.MQCO_NONE))
        except Exception:  # nothing to tell at collection time
            pass

    def __enter__(self) -> Queue:
        """A queue not yet opened opens for input and output (pymqi's ``with Queue(q, name)``)."""
        if self._handle is None and self._od is not None:
            with _mqi():
                self._handle = self._qmgr.connection.open(
                    self._od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT
                )
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self._handle is not None and self._handle.open and self._qmgr.is_connected:
            end_block(kind, self.close)


def wait_until(predicate: Callable[[], bool], timeout: float, step_s: float = 0.1) -> bool:
    """Poll ``predicate`` until true or ``timeout`` (a helper for callers and tests)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step_s)
    return predicate()
