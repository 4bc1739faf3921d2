"""``mqk sub list|show|delete`` and ``mqk retained list|show|delete``: the broker's state,
read from the compacted state topics (DISPLAY SUB), changed only by command messages
(DeregSub, DeletePub) that the broker service processes like any application's.

A subscription is picked by SubName, or by topic, queue and CorrelId; ``delete`` sends the
DeregSub that names exactly that subscription (topic, queue, CorrelAsId identity, SubName,
Filter, SubPoint) under the subscription's own userid, as an administrator's DELETE SUB
acts for its owner.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mqkafka.cli.answering import require_service
from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.cli.output import (
    EXIT_ERROR,
    EXIT_NO_REPLY,
    EXIT_NOT_FOUND,
    EXIT_OK,
    Column,
    console,
    note,
    plain,
    print_fields,
    print_json,
    print_table,
)

SUB_COLUMNS = (
    Column("TOPIC", wrap=True),
    Column("QUEUE", wrap=True),
    Column("CORRELID", wrap=True),
    Column("SUBNAME", wrap=True),
    Column("USERID"),
    Column("OPTIONS", wrap=True),
    Column("FILTER", wrap=True),
)
RETAINED_COLUMNS = (
    Column("TOPIC", wrap=True),
    Column("BYTES", right=True),
    Column("KIND"),
    Column("PERSISTENCE", right=True),
    Column("BODY"),
)
PREVIEW = 40  # characters of a body a listing shows

if TYPE_CHECKING:
    from mqkafka.query.state import RetainedView, SubscriptionView


def sub_row(s: SubscriptionView) -> tuple[Any, ...]:
    names = s.name if not s.identities else f"{s.name or ''} ids={','.join(s.identities)}"
    return (s.label, s.queue, s.correl_id, names, s.user_id, s.options, s.filter)


def retained_row(r: RetainedView) -> tuple[Any, ...]:
    first = r.body.text.replace("\n", " ")
    preview = first if len(first) <= PREVIEW else first[: PREVIEW - 3] + "..."
    label = r.topic if not r.namespace else f"[{r.namespace}] {r.topic}"
    return (label, r.body.length, r.body.kind, r.persistence, preview)


def register_sub(actions: Any) -> None:
    listing = actions.add_parser("list", help="like DISPLAY SUB: topic, identity, names, options")
    _common(listing)
    listing.set_defaults(func=sub_list)
    show = actions.add_parser("show", help="every attribute of the subscriptions picked")
    _pick(show)
    _common(show)
    show.set_defaults(func=sub_show)
    delete = actions.add_parser("delete", help="deregister one subscription (DeregSub)")
    _pick(delete)
    delete.add_argument("--all", action="store_true", help="every subscription picked")
    add_bootstrap(delete)
    delete.set_defaults(func=sub_delete)


def register_retained(actions: Any) -> None:
    listing = actions.add_parser("list", help="list them, optionally only topics FILTER selects")
    listing.add_argument("filter", nargs="?", help="a topic filter (# and + wildcards)")
    _common(listing)
    listing.set_defaults(func=retained_list)
    show = actions.add_parser("show", help="one retained publication: descriptor and body")
    show.add_argument("topic", help="a topic, or a filter (# and + wildcards)")
    _common(show)
    show.set_defaults(func=retained_show)
    delete = actions.add_parser("delete", help="delete a retained publication (DeletePub)")
    delete.add_argument("topic")
    add_bootstrap(delete)
    delete.set_defaults(func=retained_delete)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="JSON for scripts")
    add_bootstrap(parser)


def _pick(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="SubName")
    parser.add_argument("--topic", help="the subscription's topic (as registered)")
    parser.add_argument("--queue", help="its subscriber queue")
    parser.add_argument("--correl-id", help="its CorrelId (CorrelAsId), hex")


def picked(views: Sequence[SubscriptionView], args: argparse.Namespace) -> list[SubscriptionView]:
    """The subscriptions that every given selector names (a CorrelId given shorter than 24
    bytes is padded with zeros, as MQ pads it)."""
    correl = args.correl_id.lower().ljust(48, "0") if args.correl_id else None
    return [
        v
        for v in views
        if (args.name is None or v.name == args.name)
        and (args.topic is None or v.topic == args.topic)
        and (args.queue is None or v.queue == args.queue)
        and (correl is None or v.correl_id == correl)
    ]


def sub_list(args: argparse.Namespace) -> int:
    from mqkafka.query.state import subscriptions

    views = subscriptions(client_of(args), args.namespace)
    if args.json:
        print_json(views)
        return EXIT_OK
    print_table(SUB_COLUMNS, [sub_row(v) for v in views])
    note(f"{len(views)} subscription(s)")
    return EXIT_OK


def _found(args: argparse.Namespace) -> list[SubscriptionView]:
    from mqkafka.query.state import subscriptions

    if not any((args.name, args.topic, args.queue, args.correl_id)):
        raise UserError("name a subscription: SUBNAME, or --topic/--queue/--correl-id")
    return picked(subscriptions(client_of(args), args.namespace), args)


def sub_show(args: argparse.Namespace) -> int:
    views = _found(args)
    if not views:
        note("mqk: no subscription matches")
        return EXIT_NOT_FOUND
    if args.json:
        print_json(views)
        return EXIT_OK
    for number, view in enumerate(views):
        if number:
            print()
        print_fields([(key.upper(), value) for key, value in plain(view).items()])
    return EXIT_OK


def sub_delete(args: argparse.Namespace) -> int:
    from mqkafka.cli.ops import report_result
    from mqkafka.query.actions import delete_subscription

    views = _found(args)
    if not views:
        note("mqk: no subscription matches")
        return EXIT_NOT_FOUND
    if len(views) > 1 and not args.all:
        raise UserError(f"{len(views)} subscriptions match: name one more closely, or --all")
    config = client_of(args)
    require_service(config, args.namespace)
    worst = EXIT_OK
    for view in views:  # the console deletes through the same call
        outcome = delete_subscription(config, view, namespace=args.namespace)
        if outcome.result is None:
            raise UserError(outcome.text, EXIT_NO_REPLY if outcome.unanswered else EXIT_ERROR)
        print(f"{view.label} -> {view.queue}: ", end="")
        worst = max(worst, report_result(outcome.result))
    return worst


def retained_list(args: argparse.Namespace) -> int:
    from mqkafka.query.state import retained

    views = retained(client_of(args), args.namespace, args.filter)
    if args.json:
        print_json(views)
        return EXIT_OK
    print_table(RETAINED_COLUMNS, [retained_row(v) for v in views])
    note(f"{len(views)} retained publication(s)")
    return EXIT_OK


def retained_show(args: argparse.Namespace) -> int:
    from mqkafka.query.state import retained

    views = retained(client_of(args), args.namespace, args.topic)
    if not views:
        note(f"mqk: no retained publication on {args.topic}")
        return EXIT_NOT_FOUND
    if args.json:
        print_json(views)
        return EXIT_OK
    out = console()
    for number, view in enumerate(views):
        if number:
            out.print()
        rows = [("TOPIC", view.topic), ("NAMESPACE", view.namespace)]
        rows += [("PERSISTENCE", str(view.persistence))]
        rows += [("PRIORITY", str(view.priority)), ("EXPIRY", str(view.expiry))]
        rows += [(f"MQMD {k}", v) for k, v in view.md.items()]
        rows += [("MQRFH2", folder) for folder in view.folders]
        print_fields(rows)
        out.print(f"body ({view.body.kind}, {view.body.length} bytes)")
        if view.body.text:
            out.print(view.body.text, overflow="fold")
    return EXIT_OK


def retained_delete(args: argparse.Namespace) -> int:
    from mqkafka.cli.ops import no_reply, report_result
    from mqkafka.client.kafka_pubsub import KafkaPubSub
    from mqkafka.query.state import retained

    config = client_of(args)
    if not retained(config, args.namespace, args.topic):  # DeletePub of nothing answers ok
        note(f"mqk: no retained publication on {args.topic}: nothing to delete")
        return EXIT_NOT_FOUND
    require_service(config, args.namespace)
    client = KafkaPubSub(config, namespace=args.namespace)
    try:
        result = client.delete_publication(args.topic)
    except TimeoutError as error:
        raise no_reply(error) from None
    finally:
        client.close()
    return report_result(result)
