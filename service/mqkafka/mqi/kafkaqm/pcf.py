"""pymqi's ``PCFExecute`` for the common object commands, over the MQI's own administration.

| PCF command | here |
|---|---|
| MQCMD_CREATE_Q | ``QueueManager.define_queue``, local or model (MQIACF_REPLACE: kept if there) |
| MQCMD_DELETE_Q | ``QueueManager.delete_queue`` (MQIACF_PURGE) |
| MQCMD_CLEAR_Q | ``QueueManager.clear_queue`` (refused while open: MQRC_OBJECT_IN_USE) |
| MQCMD_INQUIRE_Q | the catalogue (names generic with a trailing ``*``), depth from Kafka |
| MQCMD_INQUIRE_SUBSCRIPTION | the broker's subscriptions (``mqk-subscriptions``), by SubName |
| MQCMD_DELETE_SUBSCRIPTION | a DeregSub for the named subscription, as ``mqk sub delete`` |
| MQCMD_CREATE_SUBSCRIPTION | a durable MQSUB: MQDC_MANAGED, or MQDC_PROVIDED to the DESTINATION |
| MQCMD_INQUIRE_Q_MGR | the attributes MQINQ of the queue manager answers (MQIACF_Q_MGR_ATTRS) |
| MQCMD_PING_Q_MGR | answers while the connection is up |

Parameters come as pymqi gives them: a dict ``{MQCA_Q_NAME: b"Q1", ...}`` or a list of
``CFST``/``CFIN``/``CFIL``/``CFBS`` objects; filters as ``CFIF``/``CFSF`` or ``Filter``.
Answers are lists of dicts keyed by parameter, strings as bytes (queue names blank-padded to
48, as MQ returns them). Any other MQCMD_* is MQRCCF_CFH_COMMAND_ERROR (3007).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mqkafka.mq.commands import RegOpt
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules import cmqcfc as F
from mqkafka.mqi.rules.catalogue import MESSAGE_FORMATS, QueueDefinition
from mqkafka.mqi.rules.errors import MQMIError, PYIFError

Params = dict[int, Any]


class _PCFParameter:
    """pymqi's PCF parameter structures, as the arguments they carry."""

    Parameter: int

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__dict__})"


class CFST(_PCFParameter):
    """String parameter: ``Parameter``, ``String``."""

    String: Any


class CFIN(_PCFParameter):
    """Integer parameter: ``Parameter``, ``Value``."""

    Value: int


class CFIL(_PCFParameter):
    """Integer list: ``Parameter``, ``Values``."""

    Values: list[int]


class CFSL(_PCFParameter):
    """String list: ``Parameter``, ``Strings``."""

    Strings: list[Any]


class CFBS(_PCFParameter):
    """Byte string: ``Parameter``, ``String``."""

    String: bytes


class CFIF(_PCFParameter):
    """Integer filter: ``Parameter``, ``Operator``, ``FilterValue``."""

    Operator: int
    FilterValue: Any


class CFSF(_PCFParameter):
    """String filter: ``Parameter``, ``Operator``, ``FilterValue``."""

    Operator: int
    FilterValue: Any


class Filter:
    """pymqi's ``Filter(selector).equal(value)`` and the other operators."""

    def __init__(self, selector: int) -> None:
        self.selector = selector

    def _make(self, operator: int, value: Any) -> CFIF | CFSF:
        kind = CFSF if isinstance(value, str | bytes) else CFIF
        return kind(Parameter=self.selector, Operator=operator, FilterValue=value)

    def less(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_LESS, value)

    def less_or_equal(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_NOT_GREATER, value)

    def equal(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_EQUAL, value)

    def not_equal(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_NOT_EQUAL, value)

    def greater(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_GREATER, value)

    def greater_or_equal(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_NOT_LESS, value)

    def like(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_LIKE, value)

    def not_like(self, value: Any) -> CFIF | CFSF:
        return self._make(F.MQCFOP_NOT_LIKE, value)


def _params(args: Mapping[int, Any] | Iterable[Any] | None) -> Params:
    if args is None:
        return {}
    if isinstance(args, Mapping):
        return dict(args)
    found: Params = {}
    for item in args:
        if isinstance(item, CFST | CFBS):
            found[item.Parameter] = item.String
        elif isinstance(item, CFIN):
            found[item.Parameter] = item.Value
        elif isinstance(item, CFIL):
            found[item.Parameter] = list(item.Values)
        elif isinstance(item, CFSL):
            found[item.Parameter] = list(item.Strings)
        else:
            raise PYIFError(f"not a PCF parameter: {item!r}")
    return found


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode()
    return str(value).rstrip(" \0")


def _failed(reason: int, text: str) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, reason, text)


_COMPARE: dict[int, Callable[[Any, Any], bool]] = {
    F.MQCFOP_LESS: lambda a, b: a < b,
    F.MQCFOP_NOT_GREATER: lambda a, b: a <= b,
    F.MQCFOP_EQUAL: lambda a, b: a == b,
    F.MQCFOP_NOT_EQUAL: lambda a, b: a != b,
    F.MQCFOP_GREATER: lambda a, b: a > b,
    F.MQCFOP_NOT_LESS: lambda a, b: a >= b,
    F.MQCFOP_LIKE: lambda a, b: fnmatch.fnmatchcase(_text(a), _text(b)),
    F.MQCFOP_NOT_LIKE: lambda a, b: not fnmatch.fnmatchcase(_text(a), _text(b)),
}


def _passes(row: Params, filters: Iterable[Any]) -> bool:
    for item in filters:
        compare = _COMPARE.get(item.Operator)
        if compare is None:
            raise _failed(F.MQRCCF_CFIF_OPERATOR_ERROR, f"filter operator {item.Operator}")
        value = row.get(item.Parameter)
        if value is None:
            return False
        wanted = item.FilterValue
        if isinstance(value, bytes):
            value, wanted = _text(value), _text(wanted)
        if not compare(value, wanted):
            return False
    return True


def _padded(text: str, length: int) -> bytes:
    return text.encode().ljust(length, b" ")


class PCFExecute:
    """``PCFExecute(qmgr)``: ``pcf.MQCMD_CREATE_Q(args)`` and the rest of the table above."""

    def __init__(self, name: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(name, str | bytes | type(None)):
            raise PYIFError("PCFExecute here takes a connected QueueManager")
        self.qmgr = name
        self._commands: dict[str, Callable[[Params, list[Any]], list[Params]]] = {
            "MQCMD_CREATE_Q": self._create_q,
            "MQCMD_CHANGE_Q": self._change_q,
            "MQCMD_DELETE_Q": self._delete_q,
            "MQCMD_CLEAR_Q": self._clear_q,
            "MQCMD_INQUIRE_Q": self._inquire_q,
            "MQCMD_INQUIRE_SUBSCRIPTION": self._inquire_sub,
            "MQCMD_DELETE_SUBSCRIPTION": self._delete_sub,
            "MQCMD_CREATE_SUBSCRIPTION": self._create_sub,
            "MQCMD_INQUIRE_Q_MGR": self._inquire_q_mgr,
            "MQCMD_PING_Q_MGR": self._ping,
        }

    def __getattr__(self, name: str) -> Callable[..., list[Params]]:
        if not name.startswith("MQCMD_"):
            raise AttributeError(name)
        command = self.__dict__["_commands"].get(name)
        if command is None:
            raise _failed(F.MQRCCF_CFH_COMMAND_ERROR, f"{name} is not available here")

        def run(args: Any = None, filters: Iterable[Any] | None = None) -> list[Params]:
            return command(_params(args), list(filters or ()))  # type: ignore[no-any-return]

        return run

    def disconnect(self) -> None:
        """pymqi closes its reply queue here; there is none to close."""

    @staticmethod
    def stringify_keys(rv: Mapping[int, Any]) -> dict[str, Any]:
        """An answer's row with MQ's names for its keys (pymqi's helper)."""
        return {_NAMES.get(key, str(key)): value for key, value in rv.items()}

    stringifyKeys = stringify_keys  # pymqi's old name

    # ---- the queue manager -----------------------------------------------------------------

    def _inquire_q_mgr(self, args: Params, _: list[Any]) -> list[Params]:
        from mqkafka.mqi.kafkaqm.inquire import qmgr_attributes

        row: Params = {key: read() for key, read in qmgr_attributes(self.qmgr.connection).items()}
        wanted = set(args.get(F.MQIACF_Q_MGR_ATTRS, [F.MQIACF_ALL]))
        if F.MQIACF_ALL not in wanted:
            row = {key: value for key, value in row.items() if key in wanted}
        return [row]

    def _ping(self, _: Params, __: list[Any]) -> list[Params]:
        self.qmgr.connection.require()
        return []

    # ---- queues --------------------------------------------------------------------------

    def _create_q(self, args: Params, _: list[Any]) -> list[Params]:
        name = _text(args.get(C.MQCA_Q_NAME, ""))
        if not name:
            raise _failed(F.MQRCCF_PARM_MISSING, "MQCA_Q_NAME")
        queue_type = args.get(C.MQIA_Q_TYPE, C.MQQT_LOCAL)
        if queue_type not in (C.MQQT_LOCAL, C.MQQT_MODEL):
            raise _failed(F.MQRCCF_Q_WRONG_TYPE, f"{name}: only local and model queues exist")
        if self.qmgr.display_queue(name) is not None:
            if args.get(F.MQIACF_REPLACE) == F.MQRP_YES:
                return []
            raise _failed(F.MQRCCF_OBJECT_ALREADY_EXISTS, name)
        fields: dict[str, Any] = {"queue_type": queue_type}
        if queue_type == C.MQQT_MODEL:
            fields["definition_type"] = args.get(C.MQIA_DEFINITION_TYPE, C.MQQDT_TEMPORARY_DYNAMIC)
        fields.update(_queue_fields(args))
        try:
            definition = QueueDefinition(name, **fields)
        except (TypeError, ValueError) as error:
            raise _failed(F.MQRCCF_ATTR_VALUE_ERROR, str(error)) from None
        self.qmgr.define_queue(definition)
        return []

    def _change_q(self, args: Params, _: list[Any]) -> list[Params]:
        """ALTER QLOCAL/QMODEL: the attributes CREATE_Q takes (issue 37: the message format)."""
        name = _text(args.get(C.MQCA_Q_NAME, ""))
        if not name:
            raise _failed(F.MQRCCF_PARM_MISSING, "MQCA_Q_NAME")
        if self.qmgr.display_queue(name) is None:
            raise _failed(RC.UNKNOWN_OBJECT_NAME, name)
        self.qmgr.alter_queue(name, **_queue_fields(args))
        return []

    def _delete_q(self, args: Params, _: list[Any]) -> list[Params]:
        name = _text(args.get(C.MQCA_Q_NAME, ""))
        if not name:
            raise _failed(F.MQRCCF_PARM_MISSING, "MQCA_Q_NAME")
        if self.qmgr.display_queue(name) is None:
            raise _failed(RC.UNKNOWN_OBJECT_NAME, name)
        self.qmgr.delete_queue(name, purge=args.get(F.MQIACF_PURGE) == F.MQPO_YES)
        return []

    def _clear_q(self, args: Params, _: list[Any]) -> list[Params]:
        """CLEAR QLOCAL: refused while the queue is open (MQRC_OBJECT_IN_USE)."""
        name = _text(args.get(C.MQCA_Q_NAME, ""))
        if not name:
            raise _failed(F.MQRCCF_PARM_MISSING, "MQCA_Q_NAME")
        if self.qmgr.display_queue(name) is None:
            raise _failed(RC.UNKNOWN_OBJECT_NAME, name)
        self.qmgr.clear_queue(name)
        return []

    def _inquire_q(self, args: Params, filters: list[Any]) -> list[Params]:
        pattern = _text(args.get(C.MQCA_Q_NAME, "*")) or "*"
        wanted_type = args.get(C.MQIA_Q_TYPE)
        attrs = set(args.get(F.MQIACF_Q_ATTRS, [F.MQIACF_ALL]))
        conn = self.qmgr.connection
        conn.replica.sync()
        rows: list[Params] = []
        for definition in sorted(conn.replica.catalogue.definitions(), key=lambda d: d.name):
            if definition.logically_deleted or not fnmatch.fnmatchcase(definition.name, pattern):
                continue
            if wanted_type is not None and definition.queue_type != wanted_type:
                continue
            row = self._queue_row(definition, attrs | {f.Parameter for f in filters})
            if _passes(row, filters):
                rows.append(_only(row, attrs))
        if not rows:
            raise _failed(RC.UNKNOWN_OBJECT_NAME, f"no queue matches {pattern}")
        return rows

    def _queue_row(self, definition: QueueDefinition, attrs: set[int]) -> Params:
        row: Params = {
            C.MQCA_Q_NAME: _padded(definition.name, C.MQ_Q_NAME_LENGTH),
            C.MQIA_Q_TYPE: definition.queue_type,
            C.MQCA_Q_DESC: _padded(definition.description, C.MQ_Q_DESC_LENGTH),
            C.MQIA_DEFINITION_TYPE: definition.definition_type,
            C.MQIA_DEF_PERSISTENCE: definition.default_persistence,
            C.MQIA_MAX_Q_DEPTH: definition.max_depth,
            C.MQIA_MAX_MSG_LENGTH: definition.max_msg_length,
            C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED
            if definition.inhibit_put
            else C.MQQA_PUT_ALLOWED,
            C.MQIA_INHIBIT_GET: C.MQQA_GET_INHIBITED
            if definition.inhibit_get
            else C.MQQA_GET_ALLOWED,
            C.MQKIA_MSG_FORMAT: C.MQKMF_KAFKA if definition.kafka_native else C.MQKMF_MQ,
        }
        wants_depth = F.MQIACF_ALL in attrs or C.MQIA_CURRENT_Q_DEPTH in attrs
        if definition.queue_type == C.MQQT_LOCAL and wants_depth:
            row[C.MQIA_CURRENT_Q_DEPTH] = self.qmgr.queue_depth(definition.name)
        return row

    # ---- subscriptions -------------------------------------------------------------------

    def _subscriptions(self, args: Params) -> list[Any]:
        from mqkafka.query.state import subscriptions

        pattern = _text(args.get(F.MQCACF_SUB_NAME, "")) or None
        if pattern is None and F.MQBACF_SUB_ID not in args:
            raise _failed(F.MQRCCF_PARM_MISSING, "MQCACF_SUB_NAME")
        settings = self.qmgr.connection.settings
        views = subscriptions(settings.client, settings.namespace)
        return [v for v in views if v.name and fnmatch.fnmatchcase(v.name, pattern or "*")]

    def _inquire_sub(self, args: Params, filters: list[Any]) -> list[Params]:
        rows: list[Params] = []
        for view in self._subscriptions(args):
            row: Params = {
                F.MQCACF_SUB_NAME: view.name.encode(),
                F.MQCA_TOPIC_STRING: view.topic.encode(),
                F.MQCACF_DESTINATION: _padded(view.queue, C.MQ_Q_NAME_LENGTH),
                F.MQCACF_DESTINATION_Q_MGR: _padded(view.qmgr, C.MQ_Q_MGR_NAME_LENGTH),
                F.MQBACF_DESTINATION_CORREL_ID: bytes.fromhex(view.correl_id or "0" * 48),
                F.MQCACF_SUB_USER_ID: _padded(view.user_id, C.MQ_USER_ID_LENGTH),
                F.MQCACF_SUB_SELECTOR: (view.filter or "").encode(),
            }
            if _passes(row, filters):
                rows.append(row)
        if not rows:
            raise _failed(RC.UNKNOWN_OBJECT_NAME, "no subscription matches")
        return rows

    def _create_sub(self, args: Params, _: list[Any]) -> list[Params]:
        """DEFINE SUB: a durable subscription that outlives this call, to a managed queue
        or to the queue MQCACF_DESTINATION names (MQDC_PROVIDED, MQ's default)."""
        from mqkafka.mqi.kafkaqm.pubsub import Subscription
        from mqkafka.mqi.kafkaqm.queue import Queue
        from mqkafka.mqi.rules.structs import SD

        name = _text(args.get(F.MQCACF_SUB_NAME, ""))
        topic = _text(args.get(C.MQCA_TOPIC_STRING, ""))
        if not name or not (topic or args.get(C.MQCA_TOPIC_NAME)):
            raise _failed(F.MQRCCF_PARM_MISSING, "MQCACF_SUB_NAME and MQCA_TOPIC_STRING")
        managed = args.get(F.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED) == C.MQDC_MANAGED
        options = C.MQSO_CREATE | C.MQSO_DURABLE | (C.MQSO_MANAGED if managed else 0)
        sd = SD(Options=options, SubName=name, ObjectString=topic)
        if args.get(C.MQCA_TOPIC_NAME):
            sd.ObjectName = _text(args[C.MQCA_TOPIC_NAME]).encode()
        if args.get(F.MQCACF_SUB_USER_DATA):
            sd.SubUserData = _text(args[F.MQCACF_SUB_USER_DATA]).encode()
        if args.get(F.MQCACF_SUB_SELECTOR):
            sd.SelectionString = _text(args[F.MQCACF_SUB_SELECTOR]).encode()
        destination = None
        if not managed:
            queue_name = _text(args.get(F.MQCACF_DESTINATION, ""))
            if not queue_name:
                raise _failed(F.MQRCCF_PARM_MISSING, "MQCACF_DESTINATION")
            if self.qmgr.display_queue(queue_name) is None:
                raise _failed(RC.UNKNOWN_OBJECT_NAME, queue_name)
            destination = Queue(self.qmgr, queue_name)  # named, not opened
        subscription = Subscription(self.qmgr)
        subscription.sub(sub_desc=sd, sub_queue=destination)
        subscription.close()  # MQCO_NONE: a durable subscription stays
        return []

    def _delete_sub(self, args: Params, _: list[Any]) -> list[Params]:
        from mqkafka.mqi.kafkaqm.psclient import PubSub, raise_for

        found = self._subscriptions(args)
        if not found:
            raise _failed(RC.UNKNOWN_OBJECT_NAME, "no subscription matches")
        pubsub = PubSub(self.qmgr)
        try:
            for view in found:
                correl = bytes.fromhex(view.correl_id) if view.correl_id else None
                reply = pubsub.deregister_subscriber(
                    [view.topic],
                    queue=view.queue,
                    options=RegOpt.CORREL_ID_AS_IDENTITY if correl else RegOpt.NONE,
                    correl_id=correl,
                    sub_name=view.name,
                )
                raise_for(reply, translate=True)
        finally:
            pubsub.close()
        return []


def _only(row: Params, attrs: set[int]) -> Params:
    if F.MQIACF_ALL in attrs:
        return row
    keep = attrs | {C.MQCA_Q_NAME}
    return {key: value for key, value in row.items() if key in keep}


def _names() -> dict[int, str]:
    """Parameter numbers to MQ's names, for stringify_keys (the attribute prefixes only:
    values of other groups share numbers with them)."""
    prefixes = ("MQCA_", "MQIA_", "MQCACF_", "MQIACF_", "MQBACF_", "MQCACH_", "MQIACH_", "MQKIA_")
    found: dict[int, str] = {}
    for module in (C, F):
        for key, value in vars(module).items():
            if key.startswith(prefixes) and isinstance(value, int):
                found.setdefault(value, key)
    return found


_NAMES = _names()


def _queue_fields(args: Params) -> dict[str, Any]:
    """The definition fields CREATE_Q and CHANGE_Q take from their parameters."""
    fields: dict[str, Any] = {}
    for selector, field in _QUEUE_FIELDS.items():
        if selector in args:
            value = args[selector]
            fields[field] = _text(value) if field == "description" else value
    if C.MQKIA_MSG_FORMAT in args:  # the emulator's own (issue 37): MQKMF_MQ | MQKMF_KAFKA
        fmt = MESSAGE_FORMATS.get(args[C.MQKIA_MSG_FORMAT])
        if fmt is None:
            raise _failed(F.MQRCCF_ATTR_VALUE_ERROR, "MQKIA_MSG_FORMAT: MQKMF_MQ or _KAFKA")
        fields["message_format"] = fmt
    return fields


_QUEUE_FIELDS = {
    C.MQIA_MAX_Q_DEPTH: "max_depth",
    C.MQIA_MAX_MSG_LENGTH: "max_msg_length",
    C.MQIA_DEF_PERSISTENCE: "default_persistence",
    C.MQCA_Q_DESC: "description",
}

__all__ = ["CFBS", "CFIF", "CFIL", "CFIN", "CFSF", "CFSL", "CFST", "Filter", "PCFExecute"]
