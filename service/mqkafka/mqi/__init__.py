"""The pure core of the Python MQI: pymqi-shaped structures, constants, errors and rules.

``from mqkafka.mqi import CMQC`` gives MQ's constants as pymqi's ``CMQC`` module does.
Nothing here talks to Kafka: the queue manager connection, ``Queue``, ``Topic`` and
``Subscription`` sit on top of these pieces in a later layer.
"""

from mqkafka.mqi import constants as CMQC
from mqkafka.mqi.errors import MQMIError, StructFieldError
from mqkafka.mqi.structs import CNO, GMO, MD, OD, PMO, SD, mqchars
from mqkafka.mqi.validation import (
    check_close_options,
    check_get_options,
    check_open_options,
    check_put1_options,
    check_put_options,
    check_sub_options,
)

CMQCFC = CMQC  # MQRCCF_* reason codes live in the same module here

__all__ = [
    "CMQC",
    "CMQCFC",
    "CNO",
    "GMO",
    "MD",
    "OD",
    "PMO",
    "SD",
    "MQMIError",
    "StructFieldError",
    "check_close_options",
    "check_get_options",
    "check_open_options",
    "check_put1_options",
    "check_put_options",
    "check_sub_options",
    "mqchars",
]
