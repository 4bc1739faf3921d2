"""``BrokerDriver``: drive the engine the way the MQ manual describes an application using it.

A scenario reads like the manual::

    broker = BrokerDriver()
    broker.register_subscriber("Sport/#", queue="RESULTS", correl_id=b"A" * 24)
    broker.publish("Sport/Soccer", b"1-0", retain=True)
    broker.request_update("Sport/#", queue="RESULTS", correl_id=b"A" * 24)
    assert broker.reason == RC.CF_NO_RETAINED_MSG

Commands are built from ``<psc>`` (or RFH1) pairs with an MQMD, exactly as the codec would
hand them over, so the parser is exercised too; ``wire=True`` goes further and sends every
command as bytes through ``wire.messagecodec`` and decodes what comes back. Messages the broker
puts are kept per queue; ``get`` takes them off like MQGET (optionally by CorrelId).
Everything is deterministic: ids count up from one and the clock only moves when told.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mqkafka.engine.authority import ALLOW_ALL, AuthorityPort
from mqkafka.engine.context import (
    CountingIds,
    EngineConfig,
    EngineContext,
    QueueDefaults,
    StaticQueueDefaults,
)
from mqkafka.engine.effects import DeadLetter, Deliver, Effect, Reply
from mqkafka.engine.filters import PASS_ALL
from mqkafka.engine.handle import step
from mqkafka.engine.ports import FilterPort
from mqkafka.engine.replies import respond
from mqkafka.engine.state import EngineState
from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.commandparse import command_from_psc, command_from_rfh1
from mqkafka.mq.commands import (
    CONTROL_QUEUE,
    DEFAULT_STREAM,
    Command,
    Interface,
    PublicationContent,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQMD, MQMT, MQRO
from mqkafka.mq.reasons import RC, name_of
from mqkafka.mq.responses import Completion, Response
from mqkafka.wire.messagecodec import (
    CommandReader,
    encode_delivery,
    encode_reply,
    process_message,
)

QMGR = "QM1"
REPLY_Q = "APP.REPLY"


class Clock:
    """A clock that only moves when a test says so."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Received:
    """A message the broker put on a queue, as an application would MQGET it."""

    md: MQMD
    psc: dict[str, list[str]]  # the broker's pub/sub properties, by tag
    body: bytes
    folders: tuple[str, ...] = ()  # other RFH2 folders (RFH1: user name/value pairs)
    response: Response | None = None  # for replies

    @property
    def topic(self) -> str:
        return (self.psc.get("Topic") or self.psc.get("MQPSTopic") or [""])[0]

    @property
    def is_retained(self) -> bool:
        return "IsRetainedPub" in self.psc.get("PubOpt", []) + self.psc.get("MQPSPubOpts", [])


@dataclass
class Outcome:
    """What one command did: its effects and the response sent back (if any)."""

    effects: list[Effect] = field(default_factory=list)

    def __repr__(self) -> str:
        answers = [
            f"{r.response.completion.value} {name_of(r.response.reason)}" for r in self.replies
        ]
        answers += [f"dead letter {name_of(d.reason)}" for d in self.dead_letters]
        return f"Outcome({', '.join(answers) or 'no reply'}; {len(self.deliveries)} deliveries)"

    @property
    def replies(self) -> list[Reply]:
        return [e for e in self.effects if isinstance(e, Reply)]

    @property
    def deliveries(self) -> list[Deliver]:
        return [e for e in self.effects if isinstance(e, Deliver)]

    @property
    def dead_letters(self) -> list[DeadLetter]:
        return [e for e in self.effects if isinstance(e, DeadLetter)]

    @property
    def response(self) -> Response:
        (reply,) = self.replies
        return reply.response

    @property
    def reason(self) -> int:
        return self.response.reason

    @property
    def completion(self) -> Completion:
        return self.response.completion

    @property
    def ok(self) -> bool:
        return self.completion is Completion.OK


class BrokerDriver:
    def __init__(
        self,
        *,
        wire: bool = False,
        authority: AuthorityPort = ALLOW_ALL,
        filters: FilterPort = PASS_ALL,
        config: EngineConfig | None = None,
        queues: QueueDefaults | None = None,
        state: EngineState | None = None,
    ) -> None:
        self.clock = Clock()
        self.ctx = EngineContext(
            config=config or EngineConfig(qmgr_name=QMGR),
            clock=self.clock,
            ids=CountingIds(),
            authority=authority,
            filters=filters,
            queues=queues or StaticQueueDefaults(),
        )
        self.state = state or EngineState(filters=filters)
        self.wire = wire
        self.reader = CommandReader()  # as the service's: it remembers repeated commands
        self.queues: dict[str, list[Received]] = {}
        self.last = Outcome()
        self._msg = 0

    # ---- the manual's verbs -----------------------------------------------------------------

    def register_subscriber(self, *topics: str, **kw: Any) -> Outcome:
        return self.command("RegSub", topics, **kw)

    def deregister_subscriber(self, *topics: str, **kw: Any) -> Outcome:
        return self.command("DeregSub", topics, **kw)

    def request_update(self, topic: str, **kw: Any) -> Outcome:
        return self.command("ReqUpdate", (topic,), **kw)

    def publish(self, *topics: str, body: bytes = b"", retain: bool = False, **kw: Any) -> Outcome:
        pub_options = list(_words(kw.pop("pub_options", ())))
        if retain:
            pub_options.append("RetainPub")
        kw.setdefault("queue_put", DEFAULT_STREAM)
        return self.command("Publish", topics, pub_options=pub_options, body=body, **kw)

    def delete_publication(self, *topics: str, **kw: Any) -> Outcome:
        kw.setdefault("queue_put", DEFAULT_STREAM)
        return self.command("DeletePub", topics, **kw)

    def register_publisher(self, *topics: str, **kw: Any) -> Outcome:
        return self.command("RegPub", topics, rfh1=True, **kw)

    def deregister_publisher(self, *topics: str, **kw: Any) -> Outcome:
        return self.command("DeregPub", topics, rfh1=True, **kw)

    # ---- building and sending ------------------------------------------------------------

    def command(
        self,
        verb: str,
        topics: Iterable[str],
        *,
        queue: str | None = None,
        q_mgr: str | None = None,
        correl_id: bytes | None = None,
        options: str | Sequence[str] = (),
        pub_options: str | Sequence[str] = (),
        del_options: str | Sequence[str] = (),
        sub_name: str | None = None,
        sub_identity: str | None = None,
        sub_user_data: str | None = None,
        sub_point: str | None = None,
        filter: str | None = None,
        stream: str | None = None,
        user: str = "fred",
        body: bytes = b"",
        folders: Sequence[str] = (),
        extra: Sequence[tuple[str, str]] = (),
        rfh1: bool = False,
        queue_put: str = CONTROL_QUEUE,
        msg_type: int = MQMT.REQUEST,
        report: int = MQRO.PASS_CORREL_ID,
        reply_to: str | None = REPLY_Q,
    ) -> Outcome:
        """Send one command. ``correl_id`` given means CorrelAsId with that MQMD.CorrelId;
        ``queue`` is the QName property (omitted: the MQMD ReplyToQ default applies)."""
        reg_options = list(_words(options))
        if correl_id is not None and "CorrelAsId" not in reg_options:
            reg_options.append("CorrelAsId")
        p = "MQPS" if rfh1 else ""
        pairs: list[tuple[str, str]] = [(p + "Command", verb)]
        pairs += [(p + "Topic", t) for t in topics]
        for tag, value in (
            ("SubPoint", sub_point),
            ("Filter", filter),
            ("StreamName", stream),
            ("QMgrName", q_mgr),
            ("QName", queue),
            ("SubName", sub_name),
            ("SubIdentity", sub_identity),
            ("SubUserData", sub_user_data),
        ):
            if value is not None:
                pairs.append((p + tag, value))
        reg_tag, pub_tag, del_tag = (
            ("MQPSRegOpts", "MQPSPubOpts", "MQPSDelOpts")
            if rfh1
            else ("RegOpt", "PubOpt", "DelOpt")
        )
        pairs += [(reg_tag, o) for o in reg_options]
        pairs += [(pub_tag, o) for o in _words(pub_options)]
        pairs += [(del_tag, o) for o in _words(del_options)]
        pairs += list(extra)
        self._msg += 1
        md = MQMD(
            MsgType=msg_type,
            Report=report,
            Format=MQFMT_RF_HEADER_1 if rfh1 else MQFMT_RF_HEADER_2,
            MsgId=b"CMD" + self._msg.to_bytes(21, "big"),
            CorrelId=correl_id if correl_id is not None else bytes(24),
            ReplyToQ=reply_to or "",
            UserIdentifier=user,
        )
        if self.wire:
            return self.send_bytes(_encode_command(pairs, md, rfh1, body, folders), md, queue_put)
        content = PublicationContent(body=body, folders=tuple(folders))
        build = command_from_rfh1 if rfh1 else command_from_psc
        try:
            cmd = build(pairs, md, queue=queue_put, local_qmgr=QMGR, content=content)
        except MQError as error:  # answered as the codec answers an unparsable command
            interface = Interface.RFH1 if rfh1 else Interface.RFH2
            response = Response.of_error(error)
            return self._collect(respond(md, interface, response, tuple(pairs), self.ctx))
        return self.send(cmd)

    def send(self, cmd: Command) -> Outcome:
        """Step the engine with a command; collect what it put on queues."""
        effects = step(self.state, cmd, self.ctx)
        self.state.check_invariants()
        return self._collect(effects)

    def send_bytes(self, value: bytes, md: MQMD, queue: str = CONTROL_QUEUE) -> Outcome:
        effects = process_message(self.state, value, md, queue, self.ctx, reader=self.reader)
        self.state.check_invariants()
        return self._collect(effects)

    def _collect(self, effects: list[Effect]) -> Outcome:
        for effect in effects:
            if isinstance(effect, Deliver):
                self.queues.setdefault(effect.queue, []).append(self._received(effect))
            elif isinstance(effect, Reply):
                self.queues.setdefault(effect.queue, []).append(self._reply(effect))
        self.last = Outcome(effects)
        return self.last

    def _received(self, deliver: Deliver) -> Received:
        if not self.wire:
            folders = deliver.content.folders or tuple(
                f"{k}={v}" for k, v in deliver.content.name_values
            )
            return Received(deliver.md, _group(deliver.psc), deliver.content.body, folders)
        md, value = encode_delivery(deliver)
        return _decode_received(md, value)

    def _reply(self, reply: Reply) -> Received:
        if self.wire:
            md, value = encode_reply(reply)
            received = _decode_received(md, value)
            received.response = reply.response
            return received
        return Received(reply.md, {}, b"", (), reply.response)

    # ---- the application side ----------------------------------------------------------

    @property
    def reason(self) -> int:
        return self.last.reason

    def messages(self, queue: str) -> list[Received]:
        """Publications (not replies) waiting on a queue."""
        return [m for m in self.queues.get(queue, []) if m.response is None]

    def get(self, queue: str, correl_id: bytes | None = None) -> Received | None:
        """MQGET: the first publication on ``queue`` (with that CorrelId), removed."""
        waiting = self.queues.get(queue, [])
        for index, message in enumerate(waiting):
            if message.response is None and (correl_id is None or message.md.CorrelId == correl_id):
                return waiting.pop(index)
        return None

    def drain(self, queue: str, correl_id: bytes | None = None) -> list[Received]:
        out = []
        while (message := self.get(queue, correl_id)) is not None:
            out.append(message)
        return out


def _words(options: object) -> list[str]:
    if isinstance(options, str):
        return options.split()
    return [str(o) for o in options]  # type: ignore[attr-defined]


def _group(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for tag, value in pairs:
        grouped.setdefault(tag, []).append(value)
    return grouped


def _encode_command(
    pairs: list[tuple[str, str]], md: MQMD, rfh1_form: bool, body: bytes, folders: Sequence[str]
) -> bytes:
    from mqkafka.mq.folders import Folder, render_folder

    if rfh1_form:
        header = rfh1.Rfh1(format="MQSTR", name_values=rfh1.format_name_values(pairs))
        return rfh1.encode(header, md.Encoding) + body
    psc = render_folder(Folder.from_pairs("psc", pairs))
    header2 = rfh2.Rfh2(format="MQSTR", folders=(psc, *folders))
    return rfh2.encode(header2, md.Encoding) + body


def _decode_received(md: MQMD, value: bytes) -> Received:
    message = decode_message(value, md)
    header = message.headers[0]
    if isinstance(header, rfh1.Rfh1):
        pairs = header.pairs()
        psc = _group((k, v) for k, v in pairs if k.startswith("MQPS"))
        users = tuple(f"{k}={v}" for k, v in pairs if not k.startswith("MQPS"))
        return Received(md, psc, message.body, users)
    psc_folder = message.psc()
    psc = _group(psc_folder.pairs()) if psc_folder is not None else {}
    others = tuple(t for t in header.folders if not t.lstrip().startswith(("<psc>", "<pscr>")))
    return Received(md, psc, message.body, others)


__all__ = ["QMGR", "RC", "REPLY_Q", "BrokerDriver", "Clock", "Outcome", "Received"]
