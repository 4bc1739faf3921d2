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

from dataclasses import dataclass
from typing import Any

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.dlh import decode_dlh
from mqkafka.mq.reasons import name_of
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


def reput_dead_letter(
    config: ClientConfig, msg_id_hex: str, *, namespace: str = "", qmgr: str = "QM1"
) -> ActionResult:
    """Move the dead letter whose MsgId is ``msg_id_hex`` to its DestQName."""
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
        md.Format = header.format.encode().ljust(8)[:8]
        md.Encoding, md.CodedCharSetId = header.encoding, header.ccsid
        try:
            target = pymqi.Queue(manager, header.dest_q_name, CMQC.MQOO_OUTPUT)
            target.put(body, md, pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            target.close()
            manager.commit()
        except pymqi.MQMIError as error:
            manager.backout()
            return ActionResult(False, f"put to {header.dest_q_name}: {name_of(error.reason)}")
        finally:
            dlq.close()
        return ActionResult(True, f"re-put {len(body)} bytes to {header.dest_q_name}")
    finally:
        manager.disconnect()


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


__all__ = ["ActionResult", "delete_subscription", "reput_dead_letter"]
