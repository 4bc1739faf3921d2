"""The queues IBM's clients expect a queue manager to have, defined through the MQI when
missing: JMS migration mode's (its report queue, the shared subscriber queues, the admin
and status queues of its cleanup utility) and, on request, the IBM MQ developer container's
``DEV.*`` queues, so programs written against that container run unchanged."""

from __future__ import annotations

from typing import Any

from mqkafka.channel.settings import ListenerSettings
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

JMS_QUEUES = (
    "SYSTEM.JMS.REPORT.QUEUE",
    "SYSTEM.JMS.ND.SUBSCRIBER.QUEUE",
    "SYSTEM.JMS.ND.CC.SUBSCRIBER.QUEUE",
    "SYSTEM.JMS.D.SUBSCRIBER.QUEUE",
    "SYSTEM.JMS.D.CC.SUBSCRIBER.QUEUE",
    "SYSTEM.JMS.ADMIN.QUEUE",
    "SYSTEM.JMS.PS.STATUS.QUEUE",
)
DEV_QUEUES = ("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE")


def define_missing(settings: ListenerSettings, *, dev_queues: bool = False) -> list[str]:
    """Define what is missing; the names defined."""
    options: dict[str, Any] = {"namespace": settings.namespace, "appl_name": "mqk listen"}
    if settings.kafka_config:
        options["kafka_config"] = settings.kafka_config
    qmgr = QueueManager(None, **options)
    qmgr.connect(settings.qmgr, bootstrap_servers=settings.bootstrap_servers)
    made: list[str] = []
    try:
        for name in JMS_QUEUES + (DEV_QUEUES if dev_queues else ()):
            if qmgr.display_queue(name) is not None:
                continue
            try:
                qmgr.define_queue(name)
            except MQError as error:  # another listener defined it meanwhile
                if error.reason != RC.OBJECT_ALREADY_EXISTS:
                    raise
            made.append(name)
    finally:
        qmgr.disconnect()
    return made
