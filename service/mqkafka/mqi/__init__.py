"""The Python MQI on Kafka, shaped like pymqi: ``import mqkafka.mqi as pymqi``.

Two rooms behind this facade:

- :mod:`mqkafka.mqi.rules`: the MQI's own rules, pure (constants as pymqi groups them in
  CMQC, CMQCFC and CMQXC, structures, errors, option rules, match options, message
  properties, the MQRFH2 class, dynamic names, the dynamic queue lifecycle, the catalogue
  record). Nothing there imports Kafka. Pub/sub command messages: :mod:`mqkafka.mq.pscommands`.
- :mod:`mqkafka.mqi.kafkaqm`: the queue manager on Kafka (connection, getter, transfer,
  replica of the catalogue and connections, reaper, heartbeat, pub/sub and PCF clients).

The connected API (``connect``, ``QueueManager``, ``Queue``, ``Topic``, ``Subscription``,
``PubSub``, ``PCFExecute``) is loaded on first use, so code that only needs the rules never
loads a Kafka client.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

from mqkafka.mqi.kafkaqm.channel import CD, CSP, SCO, cd, csp, sco
from mqkafka.mqi.rules import cmqc as CMQC
from mqkafka.mqi.rules import cmqcfc as CMQCFC  # CMQC and the PCF names, as pymqi's
from mqkafka.mqi.rules.errors import Error, MQMIError, PYIFError, StructFieldError
from mqkafka.mqi.rules.properties import CMHO, IMPO, PD, SMPO, MessageHandle, cmho, impo, pd, smpo
from mqkafka.mqi.rules.pymqicompat import (
    MQ_BUILD,
    MQ_LEVELS,
    PYMQI_VERSION,
    common_q_args,
    commonQArgs,
    default,
    ensure_bytes,
    ensure_not_unicode,
    is_unicode,
    make_q_desc,
    makeQDesc,
    padded_count,
    py23long,
)
from mqkafka.mqi.rules.rfh2class import RFH2
from mqkafka.mqi.rules.structs import (
    CNO,
    GMO,
    MD,
    OD,
    PMO,
    SD,
    SRO,
    MQStruct,
    gmo,
    md,
    mqchars,
    od,
    pmo,
)
from mqkafka.mqi.rules.validation import (
    check_close_options,
    check_get_options,
    check_open_options,
    check_put1_options,
    check_put_options,
    check_sub_options,
)

if TYPE_CHECKING:
    from mqkafka.mqi.kafkaqm.pcf import CFBS, CFIF, CFIL, CFIN, CFSF, CFSL, CFST, Filter, PCFExecute
    from mqkafka.mqi.kafkaqm.psclient import PubSub
    from mqkafka.mqi.kafkaqm.pubsub import Subscription
    from mqkafka.mqi.kafkaqm.queue import Queue
    from mqkafka.mqi.kafkaqm.queuemanager import QueueManager, connect
    from mqkafka.mqi.kafkaqm.settings import Settings
    from mqkafka.mqi.kafkaqm.topic import Topic

# pymqi's CMQXC names are defined in rules.cmqxc and carried by CMQC, as pymqi's CMQC carries
# them; programs also read CMQC's names through CMQXC, so CMQXC answers every CMQC name.
CMQXC = CMQC
sd, cno = SD, CNO  # pymqi's lower-case spellings (md, od, pmo, gmo: structs; cd, sco: channel)
MQOpts = MQStruct  # pymqi's base of the structures (isinstance checks)
__version__, __mqlevels__, __mqbuild__ = PYMQI_VERSION, MQ_LEVELS, MQ_BUILD

# pymqi's constant groups are modules (``import pymqi.CMQC``, ``from pymqi.CMQC import ...``):
# the same modules, importable under this package's names.
for _group, _module in (("CMQC", CMQC), ("CMQCFC", CMQCFC), ("CMQXC", CMQXC)):
    sys.modules.setdefault(f"{__name__}.{_group}", _module)

_LAZY = {
    "connect": "mqkafka.mqi.kafkaqm.queuemanager",
    "Queue": "mqkafka.mqi.kafkaqm.queue",
    "QueueManager": "mqkafka.mqi.kafkaqm.queuemanager",
    "PubSub": "mqkafka.mqi.kafkaqm.psclient",
    "Subscription": "mqkafka.mqi.kafkaqm.pubsub",
    "Topic": "mqkafka.mqi.kafkaqm.topic",
    "Settings": "mqkafka.mqi.kafkaqm.settings",
    "PCFExecute": "mqkafka.mqi.kafkaqm.pcf",
    "CFST": "mqkafka.mqi.kafkaqm.pcf",
    "CFIN": "mqkafka.mqi.kafkaqm.pcf",
    "CFIL": "mqkafka.mqi.kafkaqm.pcf",
    "CFSL": "mqkafka.mqi.kafkaqm.pcf",
    "CFBS": "mqkafka.mqi.kafkaqm.pcf",
    "CFIF": "mqkafka.mqi.kafkaqm.pcf",
    "CFSF": "mqkafka.mqi.kafkaqm.pcf",
    "Filter": "mqkafka.mqi.kafkaqm.pcf",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mqkafka.mqi' has no attribute {name!r}")
    return getattr(import_module(module), name)


__all__ = [
    "CD",
    "CFBS",
    "CFIF",
    "CFIL",
    "CFIN",
    "CFSF",
    "CFSL",
    "CFST",
    "CMHO",
    "CMQC",
    "CMQCFC",
    "CMQXC",
    "CNO",
    "CSP",
    "GMO",
    "IMPO",
    "MD",
    "OD",
    "PD",
    "PMO",
    "RFH2",
    "SCO",
    "SD",
    "SMPO",
    "SRO",
    "Error",
    "Filter",
    "MQMIError",
    "MQOpts",
    "MessageHandle",
    "PCFExecute",
    "PYIFError",
    "PubSub",
    "Queue",
    "QueueManager",
    "Settings",
    "StructFieldError",
    "Subscription",
    "Topic",
    "cd",
    "check_close_options",
    "check_get_options",
    "check_open_options",
    "check_put1_options",
    "check_put_options",
    "check_sub_options",
    "cmho",
    "cno",
    "commonQArgs",
    "common_q_args",
    "connect",
    "csp",
    "default",
    "ensure_bytes",
    "ensure_not_unicode",
    "gmo",
    "impo",
    "is_unicode",
    "makeQDesc",
    "make_q_desc",
    "md",
    "mqchars",
    "od",
    "padded_count",
    "pd",
    "pmo",
    "py23long",
    "sco",
    "sd",
    "smpo",
]
