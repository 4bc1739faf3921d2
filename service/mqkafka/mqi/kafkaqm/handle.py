"""One open queue of a connection (an hobj): what its MQOPEN resolved and what its calls keep.

MQOPEN makes it (:mod:`mqkafka.mqi.kafkaqm.opening`): the queue's name, topic, share group
and partitions, the open options and user, its getter (input) or browse reader, the headers
its puts reuse. A module of its own so that the calls on a handle (MQPUT, MQGET, MQINQ, the
Queue object) need not import the connection that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqkafka.mqi.kafkaqm.getter import Getter
from mqkafka.mqi.kafkaqm.logreader import LogReader
from mqkafka.mqi.kafkaqm.queuerecord import Rec
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.putmd import DefaultPut, QueueTraits, TemplatePut

# The MQOO options that open a queue for input (a getter, MQOO_INPUT_EXCLUSIVE's rule).
INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE


@dataclass
class Handle:
    """One open queue (an hobj)."""

    hobj: int
    name: str
    topic: str
    group: str
    partitions: int
    options: int
    user: str
    created: bool
    traits: QueueTraits
    getter: Getter | None = None
    browser: LogReader | None = None
    cursor: Rec | None = None
    open: bool = field(default=True)
    default_put: DefaultPut | None = None  # MQPUT(msg) headers, made on the first such put
    # MQPUT(msg, md) records by the MD's fields (putmd.TemplatePut), a few per handle
    md_puts: dict[tuple[object, ...], TemplatePut] = field(default_factory=dict)

    @property
    def encoded_name(self) -> bytes:
        return self.name.encode()


__all__ = ["INPUT", "Handle"]
