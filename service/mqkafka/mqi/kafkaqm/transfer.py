"""MQPUT, MQPUT1 and MQGET (destructive and browse) over an open :class:`Handle`.

Checks in MQ's order, each with its reason code:

| call | check | reason |
|---|---|---|
| all | handle open, connection open | 2019 HOBJ_ERROR / 2018 HCONN_ERROR |
| all | queue not deleted since it was opened (logically or physically) | 2052 Q_DELETED |
| MQPUT | options (seed 003), handle opened for output | 2046 / 2039 |
| MQGET | options (seed 003), handle opened for input / browse | 2046 / 2037 / 2036 |
| MQGET | WaitInterval >= 0 or MQWI_UNLIMITED with MQGMO_WAIT | 2090 |
| MQGET | MatchOptions | 2247 |
| MQGET | nothing to get | 2033 NO_MSG_AVAILABLE (2034 for the cursor) |
| MQGET | message longer than the buffer | 2080 failed, or 2079 warning with ACCEPT_TRUNCATED_MSG |

Persistence: a persistent message's MQPUT returns once Kafka has it (acks=all); a
non-persistent MQPUT returns once it is queued in the client (sent within ``linger.ms``,
lost only if the process dies first: MQ also loses non-persistent messages on a failure).
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm import browsecursor
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.kafkaqm.getter import Taken
from mqkafka.mqi.kafkaqm.handle import INPUT, Handle
from mqkafka.mqi.kafkaqm.putlimits import check_qmgr_length, check_room
from mqkafka.mqi.kafkaqm.putwrite import produce_put
from mqkafka.mqi.kafkaqm.queuerecord import Rec, fill_md
from mqkafka.mqi.kafkaqm.recordroom import check_fits
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.errors import MQMIError, PYIFError, failed
from mqkafka.mqi.rules.matching import Selection, selection
from mqkafka.mqi.rules.propdelivery import deliver_properties
from mqkafka.mqi.rules.properties import message_handle
from mqkafka.mqi.rules.propwire import to_headers
from mqkafka.mqi.rules.putmd import DefaultPut, TemplatePut, prepare, priority_warning
from mqkafka.mqi.rules.structs import GMO, MD, PMO
from mqkafka.mqi.rules.validation import Call, check

BROWSE = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
PUT_OUTPUT_FIELDS = (
    "MsgId",
    "CorrelId",
    "UserIdentifier",
    "AccountingToken",
    "ApplIdentityData",
    "PutApplType",
    "PutApplName",
    "PutDate",
    "PutTime",
    "ApplOriginData",
)
_DEFAULT_MD: dict[str, object] = dict(MD().__dict__)
_STAMPED = ("MsgId", "PutDate", "PutTime")  # what changes from one templated put to the next
MD_TEMPLATES = 16  # MQPUT(msg, md) templates kept per handle (Handle.md_puts)


def as_bytes(message: Any) -> bytes:
    if isinstance(message, bytes):
        return message
    if isinstance(message, bytearray | memoryview):
        return bytes(message)
    if isinstance(message, str):
        return message.encode()
    raise failed(RC.BUFFER_ERROR, f"message must be bytes, not {type(message).__name__}")


def _usable(conn: Connection, handle: Handle, inhibited: str = "") -> QueueDefinition:
    """The queue's definition; ``inhibited``: the catalogue flag (MQSET) that refuses this
    call, if any."""
    if not conn.connected:
        raise failed(RC.HCONN_ERROR, "the connection is not open")
    if not handle.open:
        raise failed(RC.HOBJ_ERROR, "the handle is closed")
    definition = conn.replica.catalogue.get(handle.name)
    if definition is None or definition.logically_deleted:
        # "Attempts to access a logically deleted queue (other than to close it) fail with
        # reason code MQRC_Q_DELETED" (seed 004); a queue gone altogether answers the same.
        raise failed(RC.Q_DELETED, f"{handle.name} has been deleted")
    if inhibited and getattr(definition, inhibited):
        reason = RC.PUT_INHIBITED if inhibited == "inhibit_put" else RC.GET_INHIBITED
        raise failed(reason, f"{handle.name}: {inhibited.replace('_', ' ')}")
    return definition


def _deletable_by_others(conn: Connection, handle: Handle) -> bool:
    """A permanent dynamic queue, which any connection may delete (MQCO_DELETE) while this
    handle holds it: MQPUT first waits for the catalogue (a list-offsets request: measured
    ~900 puts/s to such a queue instead of ~100,000 non-persistent ones). A temporary one is
    deleted by its creator's close and a predefined one by an administrator: their puts stay
    on the fast path and see a deletion within the replica's poll (~50 ms)."""
    definition = conn.replica.catalogue.get(handle.name)
    return definition is not None and definition.is_permanent_dynamic


# ---- MQPUT -------------------------------------------------------------------------------


def put(
    conn: Connection,
    handle: Handle,
    message: Any,
    md: MD | None,
    pmo: PMO | None,
    *,
    call: Call = Call.MQPUT,
    durable: Future[None] | None = None,
) -> None:
    """MQPUT. With ``durable`` (the asynchronous variant) a persistent put does not wait for
    Kafka: the future completes when Kafka has the message, or fails with the reason."""
    if _deletable_by_others(conn, handle):
        conn.replica.sync_catalogue()  # a delete that has returned is seen: 2052 every time
    definition = _usable(conn, handle, "inhibit_put")
    options = pmo.Options if pmo is not None else C.MQPMO_NONE
    check(call, options)
    if not handle.options & C.MQOO_OUTPUT:
        raise failed(RC.NOT_OPEN_FOR_OUTPUT, f"{handle.name} is not open for output")
    data = as_bytes(message)
    check_qmgr_length(len(data))
    default = handle.default_put
    extra = property_headers(pmo.OriginalMsgHandle) if pmo is not None else None
    if md is None and not options & ~C.MQPMO_NO_SYNCPOINT and default is not None:
        # pymqi's common q.put(msg): the handle's template (module DefaultPut)
        if len(data) > handle.traits.max_msg_length:
            raise failed(RC.MSG_TOO_BIG_FOR_Q, f"{len(data)} bytes")
        check_room(conn, handle, definition.max_depth)
        headers = default.render(conn.ids, conn.clock)
        if extra:
            headers += extra
        produce_put(
            conn.producer, handle.topic, data, conn.key, headers, default.persistent, durable
        )
        if durable is not None and not durable.done() and not default.persistent:
            durable.set_result(None)
        return
    shape: tuple[object, ...] | None = None
    given = b""  # a MsgId the program chose: IBM's Java client makes its async puts' itself
    if md is not None and not options & ~C.MQPMO_NO_SYNCPOINT:
        shape = tuple(md.__dict__.values())  # the MD's fields in their fixed order
        if any(md.MsgId):  # the template is the same but for the MsgId it stamps
            given = md.MsgId
            shape = tuple({**md.__dict__, "MsgId": None}.values())
        template = handle.md_puts.get(shape)
        if template is not None:
            _put_templated(conn, handle, definition, template, data, md, extra, durable, given)
            return
    values = dict(md.__dict__) if md is not None else dict(_DEFAULT_MD)
    prepared = prepare(
        values,
        len(data),
        options,
        handle.options,
        handle.traits,
        conn.identity,
        conn.ids,
        conn.clock,
    )
    headers = prepared.headers + extra if extra else prepared.headers
    check_room(conn, handle, definition.max_depth)
    if options & C.MQPMO_SYNCPOINT:
        first = handle.name not in conn.uow.work()
        # too big for the topic: 2030 at MQPUT, as MQ says it, not 2003 at MQCMIT
        check_fits(handle.topic, data, prepared.key or conn.key, headers)
        if not conn.uow.puts and conn.unsent_puts():
            # this connection's non-syncpoint puts land before its transaction's first record:
            # behind an open transaction, getters (read_committed) would not see them till it ends
            conn.producer.flush(30)
        conn.uow.put(handle.name, handle.topic, data, prepared.key or conn.key, headers)
        if first:
            conn.beat()  # others must see the uncommitted work (MQCO_DELETE_PURGE fails on it)
    else:
        key = prepared.key or conn.key
        produce_put(conn.producer, handle.topic, data, key, headers, prepared.persistent, durable)
    queued_is_done = not prepared.persistent or options & C.MQPMO_SYNCPOINT
    if durable is not None and not durable.done() and queued_is_done:
        # done once queued, as the blocking put (under syncpoint, MQCMIT is the point)
        durable.set_result(None)
    if md is not None:
        outputs = {name: values[name] for name in PUT_OUTPUT_FIELDS}
        md.__dict__.update(outputs)
        if shape is not None and not prepared.warning:
            if len(handle.md_puts) >= MD_TEMPLATES:
                handle.md_puts.clear()
            for name in _STAMPED:
                del outputs[name]
            handle.md_puts[shape] = TemplatePut(prepared, outputs)
    elif not options & ~C.MQPMO_NO_SYNCPOINT and handle.default_put is None:
        handle.default_put = DefaultPut(prepared)
    warning = priority_warning(prepared)
    if warning is not None:
        raise warning


def _put_templated(
    conn: Connection,
    handle: Handle,
    definition: QueueDefinition,
    template: TemplatePut,
    data: bytes,
    md: MD,
    extra: list[tuple[str, bytes]] | None,
    durable: Future[None] | None,
    given: bytes = b"",
) -> None:
    """MQPUT(msg, md) by a template (putmd.TemplatePut): the record and the filled-in MD are
    those the rules would make, but for the MsgId (a new one, or the one ``given`` in the MD:
    the listener's async puts went from ~13 to ~7 us in the MQI, as the Python MQI's) and
    the time."""
    if len(data) > handle.traits.max_msg_length:
        raise failed(RC.MSG_TOO_BIG_FOR_Q, f"{len(data)} bytes")
    check_room(conn, handle, definition.max_depth)
    msg_id = given or conn.ids.new()
    date, stamp = conn.clock.now()
    headers = template.stamped(msg_id, date, stamp)
    if extra:
        headers += extra
    key = template.key or conn.key
    produce_put(conn.producer, handle.topic, data, key, headers, template.persistent, durable)
    if durable is not None and not durable.done() and not template.persistent:
        durable.set_result(None)
    fields = md.__dict__
    fields.update(template.outputs)
    fields["MsgId"], fields["PutDate"], fields["PutTime"] = msg_id, date, stamp


def property_headers(hmsg: int) -> list[tuple[str, bytes]] | None:
    """The record headers of the properties of message handle ``hmsg`` (PMO.OriginalMsgHandle);
    MQRC_HMSG_ERROR (2460) for a number that names no live handle."""
    if not hmsg:
        return None
    found = message_handle(hmsg)
    if found is None:
        raise failed(RC.HMSG_ERROR, f"no message handle {hmsg}")
    return to_headers(found.properties.values)


def put1(conn: Connection, od: Any, message: Any, md: MD | None, pmo: PMO | None) -> None:
    """MQPUT1: open, put one message, close - without a heartbeat (nobody sees the handle)."""
    from mqkafka.mqi.rules.structs import OD

    conn.require()
    options = pmo.Options if pmo is not None else C.MQPMO_NONE
    check(Call.MQPUT1, options)
    descriptor = od if isinstance(od, OD) else OD(ObjectName=od)
    conn.replica.sync()
    from mqkafka.mqi.rules.structs import mqchars

    definition = conn.definition(mqchars(descriptor.ObjectName))
    if definition.is_model:
        # A model queue cannot be used with MQPUT1 (§9.5); reason: UNCERTAIN-lite choice.
        raise failed(RC.Q_TYPE_ERROR, f"{definition.name} is a model queue")
    open_options = C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_PASS_ALL_CONTEXT
    handle = conn._handle(0, definition, open_options & ~INPUT, conn.settings.user, False)
    descriptor.ResolvedQName = definition.name.encode()
    put(conn, handle, message, md, pmo, call=Call.MQPUT1)


# ---- MQGET -------------------------------------------------------------------------------


def _wait_seconds(options: int, interval: int) -> float:
    if not options & C.MQGMO_WAIT:
        return 0.0
    if interval == C.MQWI_UNLIMITED:
        return 365 * 24 * 3600.0
    if interval < 0:
        raise failed(RC.WAIT_INTERVAL_ERROR, f"WaitInterval {interval}")
    return interval / 1000.0


def get(
    conn: Connection,
    handle: Handle,
    max_length: int | None,
    md: MD,
    gmo: GMO,
    publication: bool = False,
) -> bytes:
    """MQGET; ``publication``: the queue is an MQSUB subscription's (module propdelivery)."""
    _usable(conn, handle, "inhibit_get")
    options = gmo.Options
    check(Call.MQGET, options)
    if max_length is not None and max_length < 0:
        raise failed(RC.BUFFER_LENGTH_ERROR, f"buffer length {max_length}")
    if gmo.MsgHandle and message_handle(gmo.MsgHandle) is None:
        raise failed(RC.HMSG_ERROR, f"no message handle {gmo.MsgHandle}")
    if options & BROWSE:
        return _browse(conn, handle, max_length, md, gmo, publication)
    if not handle.options & INPUT or handle.getter is None:
        raise failed(RC.NOT_OPEN_FOR_INPUT, f"{handle.name} is not open for input")
    wait = _wait_seconds(options, gmo.WaitInterval)
    chosen = _selection(md, gmo)
    under_cursor = bool(options & C.MQGMO_MSG_UNDER_CURSOR)
    if under_cursor:
        if handle.cursor is None or not browsecursor.still_under_cursor(
            conn, handle, handle.cursor
        ):
            raise failed(RC.NO_MSG_UNDER_CURSOR, "no message under the browse cursor")
        chosen = Selection(position=handle.cursor.position)
    if conn.unsent_puts():
        conn.producer.flush(30)  # this connection's own puts are on the queue before it gets
    getter = handle.getter
    taken = getter.take(chosen, wait, lambda: conn.admin.depth(handle.topic, handle.group))
    if taken is None:
        raise failed(RC.NO_MSG_UNDER_CURSOR if under_cursor else RC.NO_MSG_AVAILABLE, handle.name)
    data = _shaped(taken.rec, md, gmo, publication)
    length = len(data)
    truncated = max_length is not None and length > max_length
    if truncated and not options & C.MQGMO_ACCEPT_TRUNCATED_MSG:
        getter.untake(taken)  # the message stays on the queue
        raise MQMIError(C.MQCC_FAILED, RC.TRUNCATED_MSG_FAILED, handle.name, original_length=length)
    if _under_syncpoint(options, taken):
        first = handle.name not in conn.uow.work()
        conn.uow.got(handle.name, getter, taken)
        if first:
            conn.beat()
    else:
        getter.accept(taken)
    return _deliver(handle, taken.rec, data, length, max_length, md, gmo)


def _under_syncpoint(options: int, taken: Taken) -> bool:
    if options & C.MQGMO_SYNCPOINT:
        return True
    if options & C.MQGMO_SYNCPOINT_IF_PERSISTENT:
        return taken.rec.persistent()
    return False


def _selection(md: MD, gmo: GMO) -> Selection | None:
    return selection(
        gmo.Version,
        gmo.MatchOptions,
        md.MsgId,
        md.CorrelId,
        md.GroupId,
        md.MsgSeqNumber,
        md.Offset,
        gmo.MsgToken,
    )


def _shaped(rec: Rec, md: MD, gmo: GMO, publication: bool) -> bytes:
    """The record's data as MQGET returns it, the MQMD filled: with the message's properties
    where the GMO asks for them (module propdelivery; the common case has none)."""
    fill_md(md, rec)
    data = rec.value()
    if publication or gmo.MsgHandle or rec.has_properties:
        fields = rec.fields()
        target = message_handle(gmo.MsgHandle)  # checked before the get
        try:
            data = deliver_properties(data, md, gmo.Options, fields, target, publication)
        except PYIFError as error:  # an MQRFH2 that does not parse, from a raw producer
            raise failed(RC.RFH_ERROR, str(error)) from None
    return data


def _deliver(
    handle: Handle,
    rec: Rec,
    data: bytes,
    length: int,
    max_length: int | None,
    md: MD,
    gmo: GMO,
) -> bytes:
    # valid values of the structure's own types: set without the per-field checks
    gmo.__dict__.update(MsgToken=rec.token, ResolvedQName=handle.encoded_name)
    if max_length is not None and length > max_length:
        gmo.ReturnedLength = max_length
        raise MQMIError(
            C.MQCC_WARNING,
            RC.TRUNCATED_MSG_ACCEPTED,
            handle.name,
            message=data[:max_length],
            original_length=length,
        )
    gmo.__dict__["ReturnedLength"] = length
    return data


# ---- browse ------------------------------------------------------------------------------


def _browse(
    conn: Connection,
    handle: Handle,
    max_length: int | None,
    md: MD,
    gmo: GMO,
    publication: bool,
) -> bytes:
    options = gmo.Options
    if not handle.options & C.MQOO_BROWSE:
        raise failed(RC.NOT_OPEN_FOR_BROWSE, f"{handle.name} is not open for browse")
    wait = _wait_seconds(options, gmo.WaitInterval)
    if options & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
        rec = handle.cursor
        if rec is None or not browsecursor.still_under_cursor(conn, handle, rec):
            raise failed(RC.NO_MSG_UNDER_CURSOR, "no message under the browse cursor")
    else:
        chosen = _selection(md, gmo)
        if options & C.MQGMO_BROWSE_FIRST or handle.cursor is None:
            reader = browsecursor.first_call(conn, handle)
        else:
            reader = browsecursor.next_call(conn, handle)
        if conn.unsent_puts():
            conn.producer.flush(30)
        found = reader.next(lambda r: chosen is None or chosen.accepts(r.ids(), r.position), wait)
        if found is None:
            raise failed(RC.NO_MSG_AVAILABLE, handle.name)
        rec = handle.cursor = found
    data = _shaped(rec, md, gmo, publication)
    length = len(data)
    if (
        max_length is not None
        and length > max_length
        and not options & C.MQGMO_ACCEPT_TRUNCATED_MSG
    ):
        raise MQMIError(C.MQCC_FAILED, RC.TRUNCATED_MSG_FAILED, handle.name, original_length=length)
    return _deliver(handle, rec, data, length, max_length, md, gmo)


def inquire(conn: Connection, handle: Handle, selector: int) -> int | str:
    """MQINQ of one attribute (the few a queue has here); needs MQOO_INQUIRE (2038)."""
    _usable(conn, handle)
    if not handle.options & C.MQOO_INQUIRE:
        raise failed(RC.NOT_OPEN_FOR_INQUIRE, f"{handle.name} is not open for inquire")
    definition = conn.replica.catalogue.get(handle.name)
    assert definition is not None
    answers: dict[int, Any] = {
        C.MQIA_CURRENT_Q_DEPTH: lambda: conn.current_depth(handle.name, handle.topic, handle.group),
        C.MQIA_DEF_PERSISTENCE: lambda: definition.default_persistence,
        C.MQIA_DEF_PRIORITY: lambda: 0,
        C.MQIA_DEFINITION_TYPE: lambda: definition.definition_type,
        C.MQIA_MAX_MSG_LENGTH: lambda: definition.max_msg_length,
        C.MQIA_MAX_Q_DEPTH: lambda: definition.max_depth,
        C.MQIA_Q_TYPE: lambda: definition.queue_type,
    }
    answer = answers.get(selector)
    if answer is None:
        raise failed(C.MQRC_SELECTOR_ERROR, f"attribute selector {selector}")
    value: int | str = answer()
    return value


__all__ = ["as_bytes", "get", "inquire", "put", "put1"]
