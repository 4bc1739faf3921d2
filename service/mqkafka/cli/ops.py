"""Operations: ``mqk sub``, ``mqk retained`` (in cli/subs.py), ``mqk publish``, ``mqk subscribe``.

The lists read the compacted state topics (like DISPLAY SUB); publish and subscribe send real
command messages and print the broker's reply.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mqkafka.cli import subs as state
from mqkafka.cli.answering import require_service
from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.mq.commands import DEFAULT_STREAM


def register(sub: Any) -> None:
    subs = sub.add_parser("sub", help="subscriptions held by the broker")
    subs_sub = subs.add_subparsers(dest="action", required=True, metavar="ACTION")
    state.register_sub(subs_sub)

    retained = sub.add_parser("retained", help="retained publications")
    retained_sub = retained.add_subparsers(dest="action", required=True, metavar="ACTION")
    state.register_retained(retained_sub)

    publish = sub.add_parser("publish", help="send a Publish command message")
    publish.add_argument("topic")
    publish.add_argument("data", help="the publication's body (text)")
    publish.add_argument("--retain", action="store_true", help="PubOpt RetainPub")
    publish.add_argument("--stream", default=DEFAULT_STREAM, help="the stream queue")
    publish.add_argument("--persistent", action="store_true")
    publish.add_argument(
        "--register",
        action="store_true",
        help="register the publisher (MQ's implicit registration; by default mqk sends "
        "RFH1's Publish with NoReg, so a one-off publication leaves no registration)",
    )
    _reply_wait(publish)
    add_bootstrap(publish)
    publish.set_defaults(func=publish_cmd)

    subscribe = sub.add_parser("subscribe", help="send a RegSub command message")
    subscribe.add_argument("topic")
    subscribe.add_argument("--queue", required=True, help="the subscriber queue")
    subscribe.add_argument("--option", action="append", default=[], help="a RegOpt (repeatable)")
    subscribe.add_argument(
        "--correl-id", type=correl_id, help="CorrelId as hex, up to 24 bytes (with CorrelAsId)"
    )
    subscribe.add_argument("--name", help="SubName")
    subscribe.add_argument("--filter", help="content filter (SQL92 selector)")
    _reply_wait(subscribe)
    add_bootstrap(subscribe)
    subscribe.set_defaults(func=subscribe_cmd)


def _reply_wait(parser: Any) -> None:
    parser.add_argument(
        "--wait", type=float, default=30.0, metavar="SECONDS",
        help="how long to wait for the broker's reply (30); none: exit 6, the command is put",
    )  # fmt: skip


def correl_id(text: str) -> bytes:
    """A CorrelId given as hex: at most MQ's 24 bytes, padded with zeros to 24."""
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not hexadecimal") from None
    if len(value) > 24:
        raise argparse.ArgumentTypeError(f"{len(value)} bytes: a CorrelId has at most 24")
    return value.ljust(24, b"\0")


def report_result(result: Any, explain: Callable[[int], str | None] = lambda reason: None) -> int:
    from mqkafka.mq.reasons import name_of

    if result.ok:
        print("ok")
        return 0
    print(f"{result.completion}: {name_of(result.reason)} ({result.reason})")
    why = explain(result.reason)
    if why:
        print(f"  {why}")
    return 0 if result.completion == "warning" else 1


def _send(
    args: argparse.Namespace,
    command: Any,
    explain: Callable[[int], str | None] = lambda reason: None,
) -> int:
    """Send one command message with ``command(client)`` and print the broker's reply, and
    what ``explain`` adds to its reason code."""
    from mqkafka.client.kafka_pubsub import KafkaPubSub

    config = client_of(args)
    require_service(config, args.namespace)  # no one to answer: say so now, not after 30 s
    client = KafkaPubSub(config, namespace=args.namespace)
    try:
        result = command(client)
    except TimeoutError as error:
        raise no_reply(error) from None
    finally:
        client.close()
    return report_result(result, explain)


def no_reply(error: TimeoutError) -> UserError:
    """The command was put but not answered: its own exit code, so a script does not send
    it again (the service applies it when it runs)."""
    from mqkafka.cli.output import EXIT_NO_REPLY
    from mqkafka.client.kafka_pubsub import NoReply

    return UserError(str(error), EXIT_NO_REPLY if isinstance(error, NoReply) else 2)


def filter_error(flt: str | None, reason: int) -> str | None:
    """Where a Filter the broker refused (3150, or 2504 always false) is wrong. An RFH2 reply
    carries the reason code only, as MQ's does, so the same compiler says it here."""
    from mqkafka.mq.errors import MQError
    from mqkafka.mq.reasons import RC
    from mqkafka.selectors import compile_selector

    if flt is None or reason not in (RC.CF_FILTER_ERROR, RC.SELECTOR_ALWAYS_FALSE):
        return None
    try:
        compile_selector(flt)
    except MQError as error:
        return f"filter: {error.detail}"
    return None


def publish_cmd(args: argparse.Namespace) -> int:
    return _send(
        args,
        lambda client: client.publish(
            args.topic, args.data.encode(), retain=args.retain, stream=args.stream,
            persistent=args.persistent, register=args.register, wait=args.wait,
        ),
    )  # fmt: skip


def subscribe_cmd(args: argparse.Namespace) -> int:
    return _send(
        args,
        lambda client: client.register(
            args.topic, queue=args.queue, options=args.option, correl_id=args.correl_id,
            sub_name=args.name, filter=args.filter, wait=args.wait,
        ),
        lambda reason: filter_error(args.filter, reason),
    )  # fmt: skip
