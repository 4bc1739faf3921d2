"""What an operator may change from the console: re-put a dead letter where it was meant to
go, and delete a subscription. Both act as an application would, never on Kafka directly:

- a re-put is what a dead-letter handler (runmqdlq's RETRY) does through the MQI, in one unit
  of work: MQGET the dead letter by its MsgId under syncpoint, strip the MQDLH (its Format,
  Encoding and CCSID go back to the MQMD), MQPUT it to the MQDLH's DestQName, MQCMIT. A put
  that fails backs out, so the dead letter stays where it was, and the reason is returned.
- a delete is the DeregSub that names exactly that subscription (topic, queue, CorrelAsId
  identity, SubName, Filter, SubPoint) under its own userid, as ``mqk sub delete`` sends.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.dlh import decode_dlh
from mqkafka.mq.reasons import RC, name_of
from mqkafka.query.messages import DEAD_LETTER_QUEUE
from mqkafka.query.state import SubscriptionView


@dataclass(frozen=True)
class ActionResult:
    """What an operator action did: whether it worked, and one line saying what."""

    ok: bool
    text: str  # one line for the operator
    result: Any = None  # the service's answer to a command (a CommandResult), when there is one
    unanswered: bool = False  # the command was put but not answered: do not send it again


def _connect(config: ClientConfig, namespace: str, qmgr: str) -> Any:
    import mqkafka.mqi as pymqi

    return pymqi.connect(
        qmgr, bootstrap_servers=config.bootstrap, kafka_config=dict(config.settings),
        **({"namespace": namespace} if namespace else {}),
    )  # fmt: skip


# Causes that are the message's own (its length, its header, its command): a re-put meets
# them again (a malformed command goes straight back to the dead-letter queue), so it is done
# only when the operator confirms. Other causes are the destination's (no such queue, full,
# put-inhibited, not authorized): fixed there, the re-put is the way back.
_MESSAGE_CAUSES = frozenset({RC.MSG_TOO_BIG_FOR_Q, RC.MSG_TOO_BIG_FOR_Q_MGR, RC.FORMAT_ERROR})


def cause_repeats(reason: int) -> bool:
    """Whether a dead letter's MQDLH reason would meet a re-put of the same message again."""
    name = name_of(reason)
    return reason in _MESSAGE_CAUSES or name.startswith(("MQRCCF_", "MQRC_RFH_"))


def _put_failure(error: Any, dest: str, length: int) -> str:
    """Why a re-put failed, as the operator needs it, with MQPUT's reasons for a message too
    large: the queue's own limit (its MAXMSGL, its topic's ``max.message.bytes``) is
    MQRC_MSG_TOO_BIG_FOR_Q 2030, the queue manager's (its MaxMsgLength, the producer's
    ``message.max.bytes``) 2031. The broker's refusal of a record too large for the topic
    reaches a put under syncpoint only at MQCMIT, as MQRC_BACKED_OUT (or a put as
    MQRC_CONNECTION_BROKEN) with Kafka's MSG_SIZE_TOO_LARGE: the topic's limit, 2030."""
    reason = int(error.reason)
    detail = str(getattr(error, "detail", "") or "")
    refused = "MSG_SIZE_TOO_LARGE" in detail or "too large" in detail.lower()
    if reason in (RC.MSG_TOO_BIG_FOR_Q, RC.MSG_TOO_BIG_FOR_Q_MGR) or refused:
        if reason == RC.MSG_TOO_BIG_FOR_Q_MGR:
            whose = "the queue manager takes (its MaxMsgLength or the producer's message.max.bytes)"
        else:
            reason = RC.MSG_TOO_BIG_FOR_Q
            whose = f"{dest} takes (its MAXMSGL or its topic's max.message.bytes)"
        return (
            f"not re-put: the message ({length} bytes) is larger than {whose} "
            f"({name_of(reason)} {reason}); it stays here"
        )
    why = f": {detail}" if detail else ""
    return f"not re-put to {dest}: {name_of(error.reason)} ({error.reason}){why}; it stays here"


def reput_dead_letter(
    config: ClientConfig,
    msg_id_hex: str,
    *,
    namespace: str = "",
    qmgr: str = "QM1",
    confirmed: bool = False,
) -> ActionResult:
    """Move the dead letter whose MsgId is ``msg_id_hex`` to its DestQName; one dead-lettered
    for a cause of its own (``cause_repeats``) only when ``confirmed``."""
    import mqkafka.mqi as pymqi
    from mqkafka.mq.errors import MQError
    from mqkafka.mqi import CMQC

    try:
        msg_id = bytes.fromhex(msg_id_hex)
    except ValueError:
        return ActionResult(False, f"not a MsgId: {msg_id_hex!r}")
    try:
        manager = _connect(config, namespace, qmgr)
    except pymqi.MQMIError as error:
        return ActionResult(False, f"connect: {name_of(error.reason)}")
    try:
        dlq = pymqi.Queue(manager, DEAD_LETTER_QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
        md = pymqi.MD(MsgId=msg_id)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT)
        try:
            data = dlq.get(None, md, gmo)
        except pymqi.MQMIError as error:
            dlq.close()
            return ActionResult(False, f"{DEAD_LETTER_QUEUE}: {name_of(error.reason)}")
        try:
            header, body = decode_dlh(data, md.Encoding)
        except MQError as error:
            manager.backout()
            dlq.close()
            return ActionResult(False, f"no MQDLH in front: {error.detail}")
        if cause_repeats(header.reason) and not confirmed:
            manager.backout()
            dlq.close()
            cause = f"{name_of(header.reason)} ({header.reason})"
            return ActionResult(
                False,
                f"not re-put: it was dead-lettered for {cause}, a cause of the message's own "
                f"that a re-put to {header.dest_q_name} would meet again; confirm to re-put "
                "it anyway",
            )
        md.Format = header.format.encode().ljust(8)[:8]
        md.Encoding, md.CodedCharSetId = header.encoding, header.ccsid
        try:
            target = pymqi.Queue(manager, header.dest_q_name, CMQC.MQOO_OUTPUT)
            target.put(body, md, pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            target.close()
            manager.commit()
        except pymqi.MQMIError as error:
            with contextlib.suppress(pymqi.MQMIError):
                manager.backout()
            return ActionResult(False, _put_failure(error, header.dest_q_name, len(body)))
        finally:
            dlq.close()
        return ActionResult(True, f"re-put {len(body)} bytes to {header.dest_q_name}")
    finally:
        manager.disconnect()


QUEUE_ACTIONS = ("define", "clear", "delete")


def administer_queue(
    config: ClientConfig,
    action: str,
    queue: str,
    *,
    namespace: str = "",
    qmgr: str = "QM1",
    purge: bool = False,
    description: str = "",
    max_depth: int | None = None,
) -> ActionResult:
    """DEFINE QLOCAL, CLEAR QLOCAL or DELETE QLOCAL [PURGE] of ``queue``, as ``mqk queue``
    does them (query/queueadmin.py), with runmqsc's rules."""
    import mqkafka.mqi as pymqi
    from mqkafka.query import queueadmin

    if action not in QUEUE_ACTIONS:
        return ActionResult(False, f"no queue action {action!r}")
    try:
        manager = queueadmin.connect(config, namespace, qmgr)
    except pymqi.MQMIError as error:
        return ActionResult(False, f"connect: {name_of(error.reason)}")
    try:
        if action == "define":
            changes: dict[str, Any] = {"description": description} if description else {}
            if max_depth is not None:
                changes["max_depth"] = max_depth
            done = queueadmin.define_queue(manager, queue, changes)
        elif action == "clear":
            done = queueadmin.clear_queue(manager, queue)
        else:
            done = queueadmin.delete_queue(manager, queue, purge=purge)
    except pymqi.MQMIError as error:
        return ActionResult(False, f"{action} {queue}: {name_of(error.reason)} ({error.reason})")
    finally:
        manager.disconnect()
    return ActionResult(True, done)


def delete_subscription(
    config: ClientConfig, view: SubscriptionView, *, namespace: str = "", wait: float = 30.0
) -> ActionResult:
    """Send the DeregSub that names ``view`` and wait for the service's answer."""
    from mqkafka.client.kafka_pubsub import KafkaPubSub

    kind, _, point = view.namespace.partition(":")
    if kind == "stream":
        return ActionResult(
            False,
            f"{view.label} is in stream {point} (MQRFH): deregister it with MQRFH's DeregSub "
            "naming MQPSStreamName",
        )
    client = KafkaPubSub(config, namespace=namespace, user=view.user_id)
    try:
        result = client.deregister(
            view.topic, queue=view.queue,
            options=["CorrelAsId"] if view.correl_id else [],
            correl_id=bytes.fromhex(view.correl_id) if view.correl_id else None,
            sub_name=view.name, filter=view.filter, sub_point=point or None, wait=wait,
        )  # fmt: skip
    except TimeoutError as error:  # NoReply: put, applied when the service runs
        return ActionResult(False, str(error), unanswered=True)
    finally:
        client.close()
    if result is None:
        return ActionResult(False, "no answer from the broker service")
    if result.ok:
        return ActionResult(True, f"deleted {view.label} -> {view.queue}", result)
    text = f"{result.completion}: {name_of(result.reason)} ({result.reason})"
    return ActionResult(False, text, result)


__all__ = [
    "QUEUE_ACTIONS",
    "ActionResult",
    "administer_queue",
    "cause_repeats",
    "delete_subscription",
    "reput_dead_letter",
]
