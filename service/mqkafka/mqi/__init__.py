"""The Python MQI on Kafka, shaped like pymqi: ``import mqkafka.mqi as pymqi``.

The pure core (constants, structures, errors, option rules, dynamic names, the dynamic
queue lifecycle, the catalogue) imports nothing from Kafka. The connected API
(``connect``, ``QueueManager``, ``Queue``, ``Topic``, ``Subscription``, ``PubSub``) is loaded
on first use, so code that only needs the core never loads a Kafka client.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from mqkafka.mqi import constants as CMQC
from mqkafka.mqi import pcfconstants as CMQCFC  # CMQC and the PCF names, as pymqi's
from mqkafka.mqi.channel import CD, CSP, SCO, cd, csp, sco
from mqkafka.mqi.errors import Error, MQMIError, PYIFError, StructFieldError
from mqkafka.mqi.properties import CMHO, IMPO, PD, SMPO, MessageHandle, cmho, impo, pd, smpo
from mqkafka.mqi.rfh2class import RFH2
from mqkafka.mqi.structs import CNO, GMO, MD, OD, PMO, SD, gmo, md, mqchars, od, pmo
from mqkafka.mqi.validation import (
    check_close_options,
    check_get_options,
    check_open_options,
    check_put1_options,
    check_put_options,
    check_sub_options,
)

if TYPE_CHECKING:
    from mqkafka.mqi.pcf import CFBS, CFIF, CFIL, CFIN, CFSF, CFSL, CFST, Filter, PCFExecute
    from mqkafka.mqi.psclient import PubSub
    from mqkafka.mqi.pubsub import Subscription, Topic
    from mqkafka.mqi.queue import Queue, QueueManager, connect
    from mqkafka.mqi.settings import Settings

CMQXC = CMQC  # so do the channel constants (MQCHT_*, MQXPT_*, MQCD_*)
sd, cno = SD, CNO  # pymqi's lower-case spellings (md, od, pmo, gmo: structs; cd, sco: channel)

_LAZY = {
    "connect": "mqkafka.mqi.queue",
    "Queue": "mqkafka.mqi.queue",
    "QueueManager": "mqkafka.mqi.queue",
    "PubSub": "mqkafka.mqi.psclient",
    "Subscription": "mqkafka.mqi.pubsub",
    "Topic": "mqkafka.mqi.pubsub",
    "Settings": "mqkafka.mqi.settings",
    "PCFExecute": "mqkafka.mqi.pcf",
    "CFST": "mqkafka.mqi.pcf",
    "CFIN": "mqkafka.mqi.pcf",
    "CFIL": "mqkafka.mqi.pcf",
    "CFSL": "mqkafka.mqi.pcf",
    "CFBS": "mqkafka.mqi.pcf",
    "CFIF": "mqkafka.mqi.pcf",
    "CFSF": "mqkafka.mqi.pcf",
    "Filter": "mqkafka.mqi.pcf",
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
    "Error",
    "Filter",
    "MQMIError",
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
    "connect",
    "csp",
    "gmo",
    "impo",
    "md",
    "mqchars",
    "od",
    "pd",
    "pmo",
    "sco",
    "sd",
    "smpo",
]
