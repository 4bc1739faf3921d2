"""The pymqi-shaped API: ``connect``, ``QueueManager``, ``Queue``.

Code written for pymqi runs with ``import mqkafka.mqi as pymqi``::

    qmgr = pymqi.connect("QM1", conn_info="127.0.0.1(9092)")     # or bootstrap_servers=...
    queue = pymqi.Queue(qmgr, "APP.REQUEST", pymqi.CMQC.MQOO_OUTPUT)
    queue.put(b"hello", pymqi.MD(), pymqi.PMO())
    queue.close()
    qmgr.disconnect()

Every failure is an :class:`MQMIError` with MQ's completion and reason codes (the boundary
where product errors become MQI errors is :func:`_mqi`). ``conn_info`` in pymqi's
``host(port)`` form names the Kafka bootstrap server; ``MQK_BOOTSTRAP_SERVERS`` is used
when neither it nor ``bootstrap_servers`` is given.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TypeVar

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import constants as C
from mqkafka.mqi import transfer
from mqkafka.mqi.catalogue import QueueDefinition
from mqkafka.mqi.connection import Connection, Handle
from mqkafka.mqi.errors import MQMIError, failed
from mqkafka.mqi.lifecycle import AdminDelete, DeleteAuthority, allow_all, step
from mqkafka.mqi.queuestate import assemble
from mqkafka.mqi.settings import Settings
from mqkafka.mqi.structs import CNO, GMO, MD, OD, PMO, mqchars

T = TypeVar("T")
_CONN_INFO = re.compile(r"\s*([^(\s]+)\s*\(\s*(\d+)\s*\)\s*")


@contextmanager
def _mqi() -> Iterator[None]:
    """The boundary: any product error leaves as an MQMIError."""
    try:
        yield
    except MQMIError:
        raise
    except MQError as error:
        raise MQMIError.of(error) from None


def _bootstrap(conn_info: str | None, bootstrap_servers: str | None) -> str:
    if bootstrap_servers:
        return bootstrap_servers
    if conn_info:
        hosts = []
        for part in conn_info.split(","):
            match = _CONN_INFO.fullmatch(part)
            hosts.append(f"{match.group(1)}:{match.group(2)}" if match else part.strip())
        return ",".join(hosts)
    found = os.environ.get("MQK_BOOTSTRAP_SERVERS", "")
    if not found:
        raise failed(
            RC.Q_MGR_NOT_AVAILABLE, "no conn_info, bootstrap_servers or MQK_BOOTSTRAP_SERVERS"
        )
    return found


class QueueManager:
    """A connection to the emulated queue manager (pymqi's ``QueueManager``).

    ``QueueManager(name, ...)`` connects at once, ``QueueManager(None)`` waits for
    :meth:`connect`. Keyword options are :class:`Settings` fields (``heartbeat_interval``,
    ``lock_duration_ms`` ...); ``authority(user, queue)`` decides whether a user may delete a
    permanent dynamic queue it did not create (seed 004; default: everyone may).
    """

    def __init__(
        self,
        name: str | None = None,
        *,
        bootstrap_servers: str | None = None,
        conn_info: str | None = None,
        authority: DeleteAuthority = allow_all,
        **options: Any,
    ) -> None:
        self._conn: Connection | None = None
        self._authority = authority
        self._options = options
        if name is not None:
            self.connect(name, bootstrap_servers=bootstrap_servers, conn_info=conn_info)

    # ---- connecting ----

    def connect(
        self,
        name: str | None = None,
        *,
        bootstrap_servers: str | None = None,
        conn_info: str | None = None,
        cno: CNO | None = None,
    ) -> None:
        with _mqi():
            if self._conn is not None and self._conn.connected:
                raise MQMIError(C.MQCC_WARNING, RC.ALREADY_CONNECTED, "already connected")
            options: dict[str, Any] = dict(self._options)
            if name:
                options["qmgr_name"] = name
            settings = Settings(_bootstrap(conn_info, bootstrap_servers), **options)
            if cno is not None and mqchars(cno.ApplName):
                settings = replace(settings, appl_name=mqchars(cno.ApplName))
            self._conn = Connection(settings, self._authority)

    def connect_with_options(self, name: str, *args: Any, **kwargs: Any) -> None:
        cno = kwargs.get("cno") or next((a for a in args if isinstance(a, CNO)), None)
        self.connect(
            name,
            bootstrap_servers=kwargs.get("bootstrap_servers"),
            conn_info=kwargs.get("conn_info"),
            cno=cno,
        )

    def connect_tcp_client(
        self,
        name: str,
        cd: Any = None,
        channel: str | None = None,
        conn_info: str | None = None,
        user: str | None = None,
        password: str | None = None,
    ) -> None:
        if user:
            self._options.setdefault("user", user)
        self.connect(name, conn_info=conn_info)

    @property
    def connection(self) -> Connection:
        if self._conn is None or not self._conn.connected:
            raise MQMIError(C.MQCC_FAILED, RC.HCONN_ERROR, "not connected")
        return self._conn

    @property
    def is_connected(self) -> bool:
        return self._conn is not None and self._conn.connected

    @property
    def name(self) -> str:
        return self.connection.settings.qmgr_name

    def disconnect(self) -> None:
        with _mqi():
            self.connection.disconnect()

    # ---- units of work ----

    def commit(self) -> None:
        with _mqi():
            self.connection.end_unit_of_work(commit=True)

    def backout(self) -> None:
        with _mqi():
            self.connection.end_unit_of_work(commit=False)

    def begin(self) -> None:
        """MQBEGIN: a local unit of work starts with the first syncpoint call anyway."""
        self.connection.require()

    # ---- MQPUT1 ----

    def put1(self, q_desc: OD | str | bytes, msg: Any, *opts: Any) -> None:
        md, pmo = _two(opts, MD, PMO)
        with _mqi():
            transfer.put1(self.connection, q_desc, msg, md, pmo)

    # ---- administration (MQSC's DEFINE QLOCAL / QMODEL and DELETE QLOCAL) ----

    def define_queue(self, definition: QueueDefinition | str, **attributes: Any) -> QueueDefinition:
        """Define a local or model queue (``QueueDefinition`` fields as keywords)."""
        with _mqi():
            conn = self.connection
            if isinstance(definition, str):
                definition = QueueDefinition(definition, **attributes)
            conn.replica.sync()
            if conn.replica.lookup(definition.name) is not None:
                raise failed(RC.OBJECT_ALREADY_EXISTS, f"{definition.name} is defined")
            if not definition.is_model:
                topic = conn.settings.topic_of(definition.name)
                conn.admin.create_topic(topic, conn.settings.queue_partitions)
                conn.admin.configure_share_group(conn.settings.share_group_of(topic))
            conn.replica.define(definition)
            return definition

    def delete_queue(self, name: str, *, purge: bool = False) -> None:
        """DELETE QLOCAL [PURGE]: refused while open (2042) or holding messages unless purged."""
        with _mqi():
            conn = self.connection
            conn.replica.sync()
            definition = conn.definition(name)
            depth = 0 if definition.is_model else _depth(conn, name)
            state = assemble(
                definition,
                own={
                    h.hobj: _open_handle(conn, h) for h in conn.handles.values() if h.name == name
                },
                others=conn.replica.connections.uses(name, exclude=conn.id),
                own_connection=conn.id,
                own_work=conn.uow.work().get(name, (0, 0)),
                depth=depth,
            )
            outcome = step(state, AdminDelete(purge))
            if not outcome.ok:
                raise failed(outcome.reason, f"DELETE QLOCAL({name})")
            if definition.is_model:
                conn.replica.undefine(name)
                return
            conn.effects.carry_out(definition, outcome.effects)

    def display_queue(self, name: str) -> QueueDefinition | None:
        """DISPLAY QUEUE: the catalogue's definition (None when there is no such queue)."""
        with _mqi():
            conn = self.connection
            conn.replica.sync()
            return conn.replica.lookup(name)

    def queue_depth(self, name: str) -> int:
        """CURDEPTH of a queue, without opening it."""
        with _mqi():
            return _depth(self.connection, name)


def _depth(conn: Connection, name: str) -> int:
    """CURDEPTH, counting this connection's settled gets and its own puts."""
    conn.settle_acks(name)
    topic = conn.settings.topic_of(name)
    group = conn.settings.share_group_of(topic)
    gone = conn.consumed_of(topic).__contains__
    return conn.admin.depth(topic, group, exact=True, gone=gone)


def _open_handle(conn: Connection, handle: Handle) -> Any:
    from mqkafka.mqi.lifecycle import OpenHandle

    return OpenHandle(conn.id, handle.options, handle.user, handle.created)


def _two(opts: tuple[Any, ...], first: type[T], second: type[Any]) -> tuple[Any, Any]:
    if len(opts) > 2:
        raise failed(RC.UNEXPECTED_ERROR, f"at most 2 structures, got {len(opts)}")
    a = opts[0] if len(opts) > 0 else None
    b = opts[1] if len(opts) > 1 else None
    return a, b


def connect(
    queue_manager: str,
    channel: str | None = None,
    conn_info: str | None = None,
    user: str | None = None,
    password: str | None = None,
    *,
    bootstrap_servers: str | None = None,
    **options: Any,
) -> QueueManager:
    """pymqi.connect: a connected :class:`QueueManager`."""
    if user:
        options.setdefault("user", user)
    return QueueManager(
        queue_manager, bootstrap_servers=bootstrap_servers, conn_info=conn_info, **options
    )


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
        if self._od is not None and open_opts is not None:
            self.open(self._od, open_opts)

    def open(self, q_desc: OD | str | bytes, open_opts: int | None = None) -> None:
        with _mqi():
            if self._handle is not None and self._handle.open:
                raise failed(RC.HOBJ_ERROR, "this Queue object is already open")
            self._od = _od(q_desc)
            options = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT if open_opts is None else open_opts
            self._handle = self._qmgr.connection.open(self._od, options)

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
        with _mqi():
            handle = self._opened(C.MQOO_OUTPUT)
            transfer.put(self._qmgr.connection, handle, msg, md, pmo)

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
        with _mqi():
            lazy = C.MQOO_INPUT_AS_Q_DEF
            if gmo.Options & transfer.BROWSE:
                lazy = C.MQOO_BROWSE
            handle = self._opened(lazy)
            return transfer.get(self._qmgr.connection, handle, max_length, md, gmo)

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

    def inquire(self, selector: int) -> int | str:
        with _mqi():
            handle = self._opened(C.MQOO_INQUIRE)
            return transfer.inquire(self._qmgr.connection, handle, selector)

    def close(self, options: int = C.MQCO_NONE) -> None:
        with _mqi():
            if self._handle is None:
                raise failed(RC.HOBJ_ERROR, "the queue is not open")
            self._qmgr.connection.close(self._handle.hobj, options)
            self._handle = None

    def __enter__(self) -> Queue:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None and self._handle.open and self._qmgr.is_connected:
            self.close()


def wait_until(predicate: Callable[[], bool], timeout: float, step_s: float = 0.1) -> bool:
    """Poll ``predicate`` until true or ``timeout`` (a helper for callers and tests)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step_s)
    return predicate()


__all__ = ["Queue", "QueueManager", "connect", "wait_until"]
