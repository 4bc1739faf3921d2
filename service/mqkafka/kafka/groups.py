"""Whose Kafka consumer groups and transactional ids are whose (issue 35 point 1).

The shipped ACLs (``kafka/localsecurity.py``) grant by prefix, so each owner's names live under
a prefix of their own and no application prefix covers a name of the service's: an application
that could describe or join the service's group could read its member ids, fence it with its
``group.instance.id``, or take its partitions.

- the broker service: its consumer group ``<ns>mqk-broker`` (control queue and streams) and
  its transactional ids, which are also its static member ids, ``<ns>mqk-serve-<instance>``;
- an application: the MQI's share group of each queue, ``<ns>mqk-get.<topic>`` (a name kept
  from before: a renamed share group would deliver again what was got), assign-only readers
  ``mqk-app.<what>-<unique>`` (browse, counts, state and activity reads: they never join nor
  commit), and the MQI's syncpoint producers' transactional ids ``mqk-mqi-<connection>-...``.
"""

from __future__ import annotations

import uuid

SERVICE_GROUP = "mqk-broker"
SERVICE_TRANSACTIONS = "mqk-serve-"
SHARE_GROUP_PREFIX = "mqk-get."
APP_GROUP_PREFIX = "mqk-app."
APP_TRANSACTIONS = "mqk-mqi-"


def reader_group(what: str) -> str:
    """A fresh group id for an assign-only reader (it never joins the group nor commits;
    librdkafka still asks the group's coordinator, which the ACLs must allow)."""
    return f"{APP_GROUP_PREFIX}{what}-{uuid.uuid4().hex}"


__all__ = [
    "APP_GROUP_PREFIX",
    "APP_TRANSACTIONS",
    "SERVICE_GROUP",
    "SERVICE_TRANSACTIONS",
    "SHARE_GROUP_PREFIX",
    "reader_group",
]
