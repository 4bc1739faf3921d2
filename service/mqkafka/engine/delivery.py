"""One publication copy for one subscription: its MQMD (reference §4.1) and the pub/sub
properties the broker adds (§4.2, choice §10.8).

| MQMD field        | value on a delivered copy                                                   |
|-------------------|-----------------------------------------------------------------------------|
| Report, MsgType   | MQRO_NONE, MQMT_DATAGRAM                                                    |
| Format            | MQHRF2 (RFH2 subscriber) / MQHRF (RFH1 subscriber)                          |
| MsgId             | new                                                                         |
| CorrelId          | subscriber's with CorrelAsId, else the subscription's broker-chosen id (S1) |
| Priority          | publisher's, MQPRI_PRIORITY_AS_Q_DEF resolved when published                |
| Persistence       | NonPers 0 / Pers 1 / PersAsQueue: queue default / otherwise publisher's     |
| Expiry            | publisher's; a retained copy's reduced by the time it was held              |
| ReplyToQ/-QMgr    | blank / this queue manager                                                  |
| identity context  | the subscriber's, captured at registration                                  |
| PutApplType/-Name | MQAT_BROKER (26) / first 28 characters of the queue manager name            |
| PutDate/PutTime   | when the broker put it (GMT)                                                |

Added properties: Command Publish, Topic (the actual topic, one per copy), SubPoint when not
the default, PubOpt IsRetainedPub on retained copies for InformIfRet subscribers, PubTime and
SeqNum as the publisher gave them; RFH1 copies add MQPSStreamName for InclStreamName
subscribers or a non-default stream, and the publisher's MQPSQName/MQPSQMgrName when it
registered DirectReq.
"""

from __future__ import annotations

import time

from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import Deliver
from mqkafka.engine.records import Publication, Subscription
from mqkafka.engine.state import Live
from mqkafka.engine.topicspace import Namespace, NamespaceKind, TopicString, topic_text_for
from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
from mqkafka.mq.fastvalues import copier, template_values
from mqkafka.mq.mqmd import (
    MQAT,
    MQFMT_RF_HEADER_1,
    MQFMT_RF_HEADER_2,
    MQMD,
    MQMT,
    MQPER,
    MQRO,
)

_FORMAT = {Interface.RFH2: MQFMT_RF_HEADER_2, Interface.RFH1: MQFMT_RF_HEADER_1}

# A copy's MQMD is its subscription's template with these fields changed, all values the
# engine made valid (see fastvalues); the Deliver value is filled the same way.
_copy_md = copier(MQMD, ("MsgId", "Expiry", "Priority", "Persistence", "PutDate", "PutTime"))
_deliver = copier(Deliver, ("queue", "q_mgr_name", "md", "psc", "content", "interface"))


class Template:
    """What every copy for one subscription shares (computed once, cached on its ``Live``)."""

    __slots__ = ("correl_id", "fixed_persistence", "interface", "q_mgr_name", "queue", "values")

    def __init__(self, sub: Subscription, ctx: EngineContext) -> None:
        qmgr = ctx.qmgr_name
        md = MQMD(
            Report=MQRO.NONE,
            MsgType=MQMT.DATAGRAM,
            Format=_FORMAT[sub.interface],
            CorrelId=sub.delivery_correl_id,
            ReplyToQ="",
            ReplyToQMgr=qmgr,
            UserIdentifier=sub.context.user_identifier,
            AccountingToken=sub.context.accounting_token,
            ApplIdentityData=sub.context.appl_identity_data,
            PutApplType=MQAT.BROKER,
            PutApplName=ctx.config.put_appl_name,
        )
        self.values = template_values(md)
        self.queue = sub.key.identity.q_name
        self.q_mgr_name = sub.key.identity.q_mgr_name
        self.correl_id = sub.delivery_correl_id
        self.interface = sub.interface
        self.fixed_persistence = _fixed_persistence(sub, ctx)

    def md(self, msg_id: bytes, expiry: int, priority: int, persistence: int, put: PutTime) -> MQMD:
        fixed = self.fixed_persistence
        return _copy_md(
            self.values,
            msg_id,
            expiry,
            priority,
            persistence if fixed is None else fixed,
            put.date,
            put.time,
        )


def _fixed_persistence(sub: Subscription, ctx: EngineContext) -> int | None:
    """The subscription's persistence option, or None for "as published" (§2.7, §10.9)."""
    options = sub.options
    if RegOpt.NON_PERSISTENT in options:
        return int(MQPER.NOT_PERSISTENT)
    if RegOpt.PERSISTENT in options:
        return int(MQPER.PERSISTENT)
    if RegOpt.PERSISTENT_AS_Q in options:
        return ctx.queues.default_persistence(sub.key.identity.q_name)
    return None


class PutTime:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` in GMT (reference §6)."""

    __slots__ = ("date", "time")

    def __init__(self, now: float) -> None:
        stamp = time.gmtime(now)
        hundredths = int((now % 1) * 100)
        self.date = time.strftime("%Y%m%d", stamp)
        self.time = time.strftime("%H%M%S", stamp) + f"{hundredths:02d}"


_last_put: list[tuple[int, PutTime]] = [(-1, PutTime(0.0))]


def put_time(now: float) -> PutTime:
    """``PutTime(now)``, computed once per hundredth of a second (the field's resolution)."""
    tick = int(now * 100)
    last_tick, last = _last_put[0]
    if tick != last_tick:
        last = PutTime(now)
        _last_put[0] = (tick, last)
    return last


def template_of(live: Live, ctx: EngineContext) -> Template:
    template = live.template
    if template is None:
        template = live.template = Template(live.sub, ctx)
    return template  # type: ignore[return-value]


class Published:
    """What a copy needs of a publication: a ``Publication``'s fields without building one
    (a frozen value costs ~2.5 us; only retained publications need to be values)."""

    __slots__ = (
        "content",
        "expiry",
        "namespace",
        "persistence",
        "priority",
        "pub_time",
        "reply_to",
        "seq_num",
        "topic",
    )

    def __init__(
        self,
        namespace: Namespace,
        topic: TopicString,
        content: PublicationContent,
        priority: int,
        persistence: int,
        expiry: int,
        pub_time: str | None,
        seq_num: str | None,
        reply_to: tuple[str, str] | None,
    ) -> None:
        self.namespace = namespace
        self.topic = topic
        self.content = content
        self.priority = priority
        self.persistence = persistence
        self.expiry = expiry
        self.pub_time = pub_time
        self.seq_num = seq_num
        self.reply_to = reply_to

    @classmethod
    def of(cls, pub: Publication, expiry: int) -> Published:
        return cls(
            pub.namespace,
            pub.topic,
            pub.content,
            pub.priority,
            pub.persistence,
            expiry,
            pub.pub_time,
            pub.seq_num,
            pub.reply_to,
        )


def added_properties(
    pub: Published, sub: Subscription, retained: bool
) -> tuple[tuple[str, str], ...]:
    """The pub/sub properties on a copy for ``sub`` (names of the subscriber's interface)."""
    rfh1 = sub.interface is Interface.RFH1
    namespace = pub.namespace
    props: list[tuple[str, str]] = [
        ("MQPSCommand" if rfh1 else "Command", "Publish"),
        ("MQPSTopic" if rfh1 else "Topic", topic_text_for(pub.topic, sub.interface)),
    ]
    if rfh1:
        stream = namespace.name if namespace.kind is NamespaceKind.STREAM else ""
        if stream or RegOpt.INCLUDE_STREAM_NAME in sub.options:
            props.append(("MQPSStreamName", stream or "SYSTEM.BROKER.DEFAULT.STREAM"))
    elif namespace.kind is NamespaceKind.SUBPOINT and namespace.name:
        props.append(("SubPoint", namespace.name))  # choice §10.5: echo the subpoint
    if retained and RegOpt.INFORM_IF_RETAINED in sub.options:
        props.append(("MQPSPubOpts" if rfh1 else "PubOpt", "IsRetainedPub"))
    if pub.pub_time is not None:
        props.append(("MQPSPubTime" if rfh1 else "PubTime", pub.pub_time))
    if pub.seq_num is not None:
        props.append(("MQPSSeqNum" if rfh1 else "SeqNum", pub.seq_num))
    if rfh1 and pub.reply_to is not None:
        props += [("MQPSQName", pub.reply_to[0]), ("MQPSQMgrName", pub.reply_to[1])]
    return tuple(props)


class Copies:
    """Builds the copies of one publication; the added properties are shared between
    subscriptions that would get the same ones (the common case: all of them)."""

    __slots__ = ("_cache", "ctx", "pub", "put", "retained")

    def __init__(
        self, pub: Published, ctx: EngineContext, *, retained: bool = False, now: float
    ) -> None:
        self.pub = pub
        self.ctx = ctx
        self.retained = retained
        self.put = put_time(now)
        self._cache: dict[int, tuple[tuple[str, str], ...]] = {}

    @classmethod
    def retained_copies(cls, pub: Publication, ctx: EngineContext, now: float) -> Copies | None:
        """Copies of a retained publication, its Expiry counted down (§4.1); None if expired."""
        remaining = pub.remaining_expiry(now)
        if remaining is None:
            return None
        return cls(Published.of(pub, remaining), ctx, retained=True, now=now)

    def deliver(self, live: Live) -> Deliver:
        template = live.template
        if template is None:
            template = live.template = Template(live.sub, self.ctx)
        assert isinstance(template, Template)
        props = self._cache.get(live.shape)
        if props is None:
            props = self._cache[live.shape] = added_properties(self.pub, live.sub, self.retained)
        pub = self.pub
        md = template.md(self.ctx.ids.msg_id(), pub.expiry, pub.priority, pub.persistence, self.put)
        return _deliver(
            (), template.queue, template.q_mgr_name, md, props, pub.content, template.interface
        )


__all__ = ["Copies", "Published", "PutTime", "Template", "added_properties", "template_of"]
