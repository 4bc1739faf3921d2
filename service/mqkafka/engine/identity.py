"""Who a command speaks for: traditional identities, subscription names, subscriber
identities, and the userid that owns them (seed 001, seed 002, reference §2.6).

| rule (source)                                                                | reason |
|------------------------------------------------------------------------------|--------|
| identity = (QName, QMgrName, CorrelId only with CorrelAsId) (S1)             |        |
| QName defaults to ReplyToQ, "which must not be blank in this case" (S0)      | 3076   |
| QName / QMgrName are MQ object names: 1-48 of ``A-Z a-z 0-9 . / _ %`` (§9.5)  | 3076 / 3074 |
| a blank QMgrName means the local queue manager (S0)                          |        |
| SubName: any length, not empty; "names that start with MQ are reserved" (S2) | 3153   |
| SubIdentity: at most 128 (MQ_SUB_IDENTITY_LENGTH), not empty, no MQ prefix (S2) | 3154 |
| another userid using an identity without VariableUserId (S0; choice §10.1)   | 3078   |
| another userid with VariableUserId lacking browse/put authority (S0)         | 3081   |
| ReqUpdate by SubName: the subscription's VariableUserId is enough (S0)        |        |

Choices: a reserved ``MQ`` prefix is reported with the code of the malformed value (3153 /
3154), the only codes that name a bad SubName / SubIdentity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mqkafka.engine.authority import AuthorityPort
from mqkafka.engine.topicspace import Namespace, stream_queue_of
from mqkafka.mq.commands import RegOpt
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

MQ_OBJECT_NAME_LENGTH = 48
MQ_SUB_IDENTITY_LENGTH = 128
RESERVED_PREFIX = "MQ"
_OBJECT_NAME = re.compile(r"[A-Za-z0-9./_%]{1,48}")


@dataclass(frozen=True, slots=True)
class Identity:
    """A traditional identity: queue, queue manager, and the CorrelId when it is part of it.

    "A single publisher or subscriber queue can therefore support multiple identities, each
    with a specific correlation identifier value, plus one further identity for which the
    correlation identifier is not specified" (seed 001): ``correl_id`` None is that one.
    """

    q_name: str
    q_mgr_name: str
    correl_id: bytes | None = None

    def __post_init__(self) -> None:
        if not _OBJECT_NAME.fullmatch(self.q_name):
            raise MQError(RC.CF_Q_NAME_ERROR, f"bad queue name {self.q_name[:60]!r}", parm="QName")
        if not _OBJECT_NAME.fullmatch(self.q_mgr_name):
            raise MQError(
                RC.CF_Q_MGR_NAME_ERROR,
                f"bad queue manager name {self.q_mgr_name[:60]!r}",
                parm="QMgrName",
            )
        if self.correl_id is not None and (len(self.correl_id) != 24 or not any(self.correl_id)):
            raise MQError(RC.CF_CORREL_ID_ERROR, "CorrelId must be 24 non-zero bytes")


def identity_of(
    q_name: str, q_mgr_name: str, correl_id: bytes, options: RegOpt, local_qmgr: str
) -> Identity:
    """The identity a command names; a blank queue is MQRCCF_Q_NAME_ERROR (seed 000)."""
    if not q_name:
        raise MQError(RC.CF_Q_NAME_ERROR, "no QName and a blank MQMD.ReplyToQ", parm="QName")
    with_correl = RegOpt.CORREL_ID_AS_IDENTITY in options
    return Identity(q_name, q_mgr_name or local_qmgr, correl_id if with_correl else None)


def check_sub_name(name: str | None) -> None:
    """SubName: "arbitrary character strings with no length limit"; MQ prefix reserved (S2)."""
    if name is None:
        return
    if not name:
        raise MQError(RC.CF_SUB_NAME_ERROR, "empty SubName", parm="SubName")
    if name.startswith(RESERVED_PREFIX):
        raise MQError(RC.CF_SUB_NAME_ERROR, "SubNames starting MQ are reserved", parm="SubName")


def check_sub_identity(identity: str | None) -> None:
    """SubIdentity: "Identity names that start with MQ are reserved for internal use" (S2)."""
    if identity is None:
        return
    if not identity or len(identity) > MQ_SUB_IDENTITY_LENGTH:
        raise MQError(RC.CF_SUB_IDENTITY_ERROR, "SubIdentity length", parm="SubIdentity")
    if identity.startswith(RESERVED_PREFIX):
        raise MQError(
            RC.CF_SUB_IDENTITY_ERROR, "SubIdentities starting MQ are reserved", parm="SubIdentity"
        )


@dataclass(frozen=True, slots=True)
class Owner:
    """What the ownership rule needs to know about an existing registration."""

    user_id: str
    variable: bool  # registered with VariableUserId
    q_name: str  # the subscriber (or publisher) queue
    namespace: Namespace


def check_owner(
    owner: Owner,
    user_id: str,
    options: RegOpt,
    authority: AuthorityPort,
    *,
    named: bool = False,
) -> None:
    """May ``user_id`` act on a registration owned by ``owner``?

    Same userid: yes. Otherwise only when the registration has VariableUserId and the command
    says VariableUserId too ("this must be set at request update time to indicate which
    subscription is referred to", S0) - or, ``named``, found by its SubName, which overrides
    that ("This is overridden, along with the other subscriber identifiers, if a subscription
    name is supplied"; "unless VariableUserId is set on the subscription itself", S0) - and
    the user "has authority to browse the stream queue and put to the subscriber queue" (S0),
    else MQRCCF_NOT_AUTHORIZED. Any other case is MQRCCF_DUPLICATE_IDENTITY, naming the owner
    (choice §10.1).
    """
    if owner.user_id == user_id:
        return
    if owner.variable and (named or RegOpt.VARIABLE_USER_ID in options):
        if authority.may_browse(user_id, stream_queue_of(owner.namespace)) and authority.may_put(
            user_id, owner.q_name
        ):
            return
        raise MQError(RC.CF_NOT_AUTHORIZED, f"{user_id!r} may not browse/put for this identity")
    raise MQError(RC.CF_DUPLICATE_IDENTITY, f"identity owned by {owner.user_id!r}", parm="UserId")


__all__ = [
    "Identity",
    "Owner",
    "check_owner",
    "check_sub_identity",
    "check_sub_name",
    "identity_of",
]
