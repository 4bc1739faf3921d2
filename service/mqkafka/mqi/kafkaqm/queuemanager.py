"""pymqi's ``QueueManager`` and ``connect``: MQCONN and MQCONNX, MQDISC (also of connections
left open at exit), units of work, MQPUT1 and the queue administration (DEFINE, DELETE,
DISPLAY, CURDEPTH), over a :class:`~mqkafka.mqi.kafkaqm.connection.Connection`. Every failure
is an :class:`MQMIError` with MQ's completion and reason codes: :func:`_mqi` is the boundary
where product errors become MQI errors, for this module and the Queue, Topic and PubSub
classes built on it. ``conn_info`` in pymqi's ``host(port)`` form names the Kafka bootstrap
server unless the environment names Kafka (``MQK_BOOTSTRAP_SERVERS``, which wins over it;
the order is in :mod:`.channel`).
"""

from __future__ import annotations

import atexit
import itertools
import logging
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import Any, TypeVar

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm import objectadmin, transfer
from mqkafka.mqi.kafkaqm.blocks import end_block
from mqkafka.mqi.kafkaqm.channel import CD, CSP, client_bootstrap, environment_options, text
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.kafkaqm.inquire import inquire_qmgr
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.errors import InterfaceMisuse, MQMIError, failed
from mqkafka.mqi.rules.lifecycle import AdminDelete, DeleteAuthority, allow_all, step
from mqkafka.mqi.rules.properties import forget_connection
from mqkafka.mqi.rules.structs import CNO, MD, OD, PMO, mqchars

T = TypeVar("T")
_hconns = itertools.count(1)
TOPIC_DELETION_GRACE = 2.0  # seconds a DEFINE waits for another client's deletion of the name


@contextmanager
def _mqi() -> Iterator[None]:
    """The boundary: any product error leaves as an MQMIError."""
    try:
        yield
    except MQMIError:
        raise
    except MQError as error:
        raise MQMIError.of(error) from None


def _bootstrap(conn_info: str | bytes | None, bootstrap_servers: str | None) -> str:
    return client_bootstrap(conn_info, bootstrap_servers)  # the order: module channel


class QueueManager:
    """A connection to the emulated queue manager (pymqi's ``QueueManager``).

    ``QueueManager(name, ...)`` connects at once (``""``, the default, is the default queue
    manager, as in pymqi), ``QueueManager(None)`` waits for :meth:`connect`. Names are
    ``str`` or ``bytes``. Keyword options are :class:`Settings` fields (``heartbeat_interval``,
    ``lock_duration_ms`` ...); ``authority(user, queue)`` decides whether a user may delete a
    permanent dynamic queue it did not create (seed 004; default: everyone may). A ``str``
    message is put as ``bytes_encoding`` with CCSID ``default_ccsid`` and Format MQSTR.
    """

    def __init__(
        self,
        name: str | bytes | None = "",
        disconnect_on_exit: bool = True,
        bytes_encoding: str = "utf8",
        default_ccsid: int = C.MQCCSI_UTF8,
        *,
        bootstrap_servers: str | None = None,
        conn_info: str | bytes | None = None,
        authority: DeleteAuthority = allow_all,
        **options: Any,
    ) -> None:
        self._conn: Connection | None = None
        self._authority = authority
        self._options = {**environment_options(), **options}
        self.disconnect_on_exit = disconnect_on_exit
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        self._hconn = 0
        self._reconnect: Callable[[], QueueManager] | None = None  # ``with qmgr`` after MQDISC
        # MQDISC ends this connection's non-durable subscriptions (pubsub.Subscription).
        self.subscriptions: weakref.WeakSet[Any] = weakref.WeakSet()
        _LIVE.add(self)
        if name is not None:
            self.connect(name, bootstrap_servers=bootstrap_servers, conn_info=conn_info)

    # ---- connecting ----

    def connect(
        self,
        name: str | bytes | None = None,
        *,
        bootstrap_servers: str | None = None,
        conn_info: str | bytes | None = None,
        cno: CNO | None = None,
    ) -> QueueManager:
        """MQCONN; returns the QueueManager (pymqi: ``with qmgr.connect(name): ...``)."""
        name = text(name)
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
            self._hconn = next(_hconns)
        self._reconnect = partial(
            self.connect, name, bootstrap_servers=bootstrap_servers, conn_info=conn_info, cno=cno
        )
        return self

    def connect_with_options(self, name: str | bytes, *args: Any, **kwargs: Any) -> QueueManager:
        """MQCONNX: ``(name, cd=, sco=, user=, password=, opts=, cno=, csp=)``, or pymqi's
        old positional ``(name, cd[, sco])``. The CD's ConnectionName (else MQSERVER) names
        the Kafka bootstrap servers; ``user`` (or ``csp.CSPUserId``) is the user id."""
        cd = kwargs.get("cd")
        cno = kwargs.get("cno")
        for arg in args:
            if isinstance(arg, CNO):
                cno = arg
            elif isinstance(arg, CD):
                cd = arg
        csp = kwargs.get("csp")
        user = text(kwargs.get("user"))
        if not user and isinstance(csp, CSP):
            user = text(csp.CSPUserId)
        if user:
            self._options["user"] = user
        conn_info = kwargs.get("conn_info") or (text(cd.ConnectionName) if cd else None)
        return self.connect(
            name,
            bootstrap_servers=kwargs.get("bootstrap_servers"),
            conn_info=conn_info or None,
            cno=cno,
        )

    connectWithOptions = connect_with_options  # pymqi's old name

    def connect_tcp_client(
        self,
        name: str | bytes,
        cd: CD | None,
        channel: str | bytes | None,
        conn_name: str | bytes | None,
        user: str | bytes | None = None,
        password: str | bytes | None = None,
        **kwargs: Any,
    ) -> QueueManager:
        """A client connection over ``channel`` to ``conn_name`` (``host(port)``); the rest
        of the channel definition comes from ``cd``, which is filled in as pymqi does."""
        cd = cd if cd is not None else CD()
        cd.set(
            ChannelName=channel or b"",
            ConnectionName=conn_name or b"",
            ChannelType=C.MQCHT_CLNTCONN,
            TransportType=C.MQXPT_TCP,
        )
        return self.connect_with_options(name, cd=cd, user=user, password=password, **kwargs)

    connectTCPClient = connect_tcp_client  # pymqi's old name

    @property
    def connection(self) -> Connection:
        if self._conn is None or not self._conn.connected:
            raise InterfaceMisuse(RC.HCONN_ERROR, "not connected")
        return self._conn

    def get_handle(self) -> int:
        """The hconn (a number that names this connection, as pymqi's)."""
        self.connection  # noqa: B018 - raises when not connected
        return self._hconn

    getHandle = get_handle  # pymqi's old name

    def inquire(self, attribute: int) -> int | bytes:
        """MQINQ of the queue manager (module :mod:`mqkafka.mqi.kafkaqm.inquire`)."""
        with _mqi():
            return inquire_qmgr(self.connection, attribute)

    @property
    def is_connected(self) -> bool:
        return self._conn is not None and self._conn.connected

    @property
    def name(self) -> str:
        return self.connection.settings.qmgr_name

    def get_name(self) -> bytes:
        """The queue manager's name, as pymqi gives it (bytes; empty when not connected)."""
        return self.name.encode() if self.is_connected else b""

    def __enter__(self) -> QueueManager:
        """``with QueueManager(name) as qmgr``: connected inside, disconnected after; a
        QueueManager disconnected earlier connects again as it last did."""
        if not self.is_connected and self._reconnect is not None:
            self._reconnect()
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self.is_connected:
            end_block(kind, self.disconnect)

    def disconnect(self) -> None:
        with _mqi():
            conn = self.connection
            for subscription in list(self.subscriptions):
                subscription.end_with_connection()  # MQ removes non-durable ones at MQDISC
            conn.disconnect()
            forget_connection(self._hconn)

    def __del__(self) -> None:
        # pymqi disconnects a queue manager object that is garbage-collected. Not while the
        # interpreter is finalizing: Kafka's answers come on threads that can no longer run
        # Python, so a disconnect would wait forever (the program would never end); the exit
        # handler below disconnected what it could, and heartbeats stop with the process.
        try:
            if self.disconnect_on_exit and self.is_connected and not sys.is_finalizing():
                self.disconnect()
        except Exception:  # nothing to tell at collection time
            pass

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
        msg, md = string_message(self, msg, md)
        with _mqi():
            transfer.put1(self.connection, q_desc, msg, md, pmo)

    # ---- administration (MQSC's DEFINE QLOCAL / QMODEL and DELETE QLOCAL) ----

    def define_queue(
        self, definition: QueueDefinition | str, *, partitions: int | None = None, **attributes: Any
    ) -> QueueDefinition:
        """Define a local or model queue (``QueueDefinition`` fields as keywords); a local
        queue's topic gets ``partitions`` (default: the settings' ``queue_partitions``)."""
        with _mqi():
            conn = self.connection
            if isinstance(definition, str):
                definition = QueueDefinition(definition, **attributes)
            conn.replica.sync()
            if conn.replica.lookup(definition.name) is not None:
                raise failed(RC.OBJECT_ALREADY_EXISTS, f"{definition.name} is defined")
            if not definition.is_model:
                topic = conn.settings.topic_of(definition.name)
                _create_queue_topic(conn, topic, partitions)
                conn.admin.configure_share_group(conn.settings.share_group_of(topic))
            conn.replica.define(definition)
            return definition

    def delete_queue(self, name: str, *, purge: bool = False) -> None:
        """DELETE QLOCAL [PURGE]: refused while open (2042) or holding messages unless purged."""
        with _mqi():
            conn = self.connection
            conn.finish_collected()  # a Queue the program dropped has closed (pymqi: at once)
            conn.replica.sync()
            definition = conn.definition(name)
            depth = 0 if definition.is_model else _depth(conn, name)
            state = conn.queue_state(definition, depth=depth)
            outcome = step(state, AdminDelete(purge))
            if not outcome.ok:
                raise failed(outcome.reason, f"DELETE QLOCAL({name})")
            if definition.is_model:
                conn.replica.undefine(name)
                return
            conn.effects.carry_out(definition, outcome.effects)
            conn.consumed.pop(conn.settings.topic_of(name), None)

    def display_queue(self, name: str) -> QueueDefinition | None:
        """DISPLAY QUEUE: the catalogue's definition (None when there is no such queue)."""
        with _mqi():
            conn = self.connection
            conn.replica.sync()
            return conn.replica.lookup(name)

    def alter_queue(
        self, name: str, *, partitions: int | None = None, **changes: Any
    ) -> QueueDefinition:
        """ALTER QLOCAL/QMODEL: ``QueueDefinition`` fields as keywords (module objectadmin)."""
        with _mqi():
            return objectadmin.alter_queue(self.connection, name, changes, partitions)

    def clear_queue(self, name: str) -> int:
        """CLEAR QLOCAL: the committed messages discarded (refused while the queue is open,
        2042); how many there were."""
        with _mqi():
            conn = self.connection
            conn.finish_collected()
            conn.replica.sync()
            definition = conn.definition(name)
            depth = 0 if definition.is_model else _depth(conn, name)
            state = conn.queue_state(definition, depth=depth)
            return objectadmin.clear_queue(conn, definition, state)

    def queue_depth(self, name: str) -> int:
        """CURDEPTH of a queue, without opening it."""
        with _mqi():
            return _depth(self.connection, name)


_LIVE: weakref.WeakSet[QueueManager] = weakref.WeakSet()


@atexit.register
def _disconnect_at_exit() -> None:
    """MQDISC of every connection still open when the program ends (normally or by an
    uncaught exception), while Kafka's client threads still run: its handles close, its
    non-durable subscriptions and temporary queues go, as MQ ends a program's connection."""
    for qmgr in list(_LIVE):
        try:
            if qmgr.disconnect_on_exit and qmgr.is_connected:
                qmgr.disconnect()
        except Exception as error:  # the next one still deserves its MQDISC
            logging.getLogger(__name__).debug("MQDISC at exit: %s", error)


def _create_queue_topic(conn: Connection, topic: str, partitions: int | None = None) -> None:
    """The queue's topic, made now. A topic of the name that another client is deleting
    (DELETE then DEFINE of one name) goes within moments and is made again; one that stays
    was made outside the MQI (``mqk topics apply``) and is adopted."""
    deadline = time.monotonic() + TOPIC_DELETION_GRACE
    while not conn.admin.create_topic(topic, partitions or conn.settings.queue_partitions):
        if time.monotonic() > deadline:
            return
        time.sleep(0.1)


def _depth(conn: Connection, name: str) -> int:
    """CURDEPTH, counting this connection's settled gets, and the puts not yet committed."""
    topic = conn.settings.topic_of(name)
    return conn.current_depth(name, topic, conn.settings.share_group_of(topic))


def string_message(qmgr: QueueManager, msg: Any, md: MD | None) -> tuple[Any, MD | None]:
    """pymqi 1.12 puts a ``str`` as bytes in the queue manager's ``bytes_encoding`` and says
    so in the MQMD: Format MQSTR, CodedCharSetId ``default_ccsid`` (1208, UTF-8)."""
    if not isinstance(msg, str):
        return msg, md
    md = md if md is not None else MD()
    md.Format = C.MQFMT_STRING
    md.CodedCharSetId = qmgr.default_ccsid
    return msg.encode(qmgr.bytes_encoding), md


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


__all__ = ["QueueManager", "connect"]
