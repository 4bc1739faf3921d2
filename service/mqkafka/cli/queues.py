"""``mqk queue list|show``, ``mqk browse``, ``mqk get``, ``mqk put``: queues as runmqsc's
DISPLAY QLOCAL / amqsbcg / amqsget / amqsput show and use them.

``browse`` reads what is on a queue and changes nothing; ``get`` and ``put`` go through the
MQI, so a message got here is gone for every other getter, exactly as MQGET takes it.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from mqkafka.cli import queueadmin
from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.cli.output import (
    EXIT_EMPTY,
    EXIT_OK,
    Column,
    console,
    note,
    print_fields,
    print_json,
    print_table,
)

QUEUE_COLUMNS = (
    Column("QUEUE", wrap=True),
    Column("TYPE"),
    Column("DEPTH", right=True),
    Column("CONSUMERS", right=True),
    Column("PARTITIONS", right=True),
    Column("DESCRIPTION", wrap=True),
)

if TYPE_CHECKING:
    from mqkafka.query.render import QueueMessageView


def register(sub: Any) -> None:
    queue = sub.add_parser("queue", help="queues: their depth and consumers")
    queue_sub = queue.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = queue_sub.add_parser("list", help="like DISPLAY QLOCAL(*): name, depth, consumers")
    listing.add_argument(
        "--all", action="store_true", help="mqk's own reply queue (MQK.CLIENT.REPLY) too"
    )
    _common(listing)
    listing.set_defaults(func=queue_list)
    show = queue_sub.add_parser("show", help="one queue: depth, topic, who reads it")
    show.add_argument("queue")
    _common(show)
    show.set_defaults(func=queue_show)
    queueadmin.register_actions(queue_sub)

    browse = sub.add_parser("browse", help="show the messages on a queue without taking them")
    browse.add_argument("queue")
    browse.add_argument("--count", type=int, default=10, help="at most this many (10)")
    browse.add_argument("--wait", type=float, default=0.0, help="seconds to wait for one")
    _common(browse)
    browse.set_defaults(func=browse_cmd)

    get = sub.add_parser("get", help="take messages off a queue (destructive MQGET)")
    get.add_argument("queue")
    get.add_argument("--count", type=int, default=1, help="at most this many (1)")
    get.add_argument("--wait", type=float, default=0.0, help="seconds to wait for each")
    get.add_argument("--qmgr", default="QM1", help="the queue manager (QM1)")
    _common(get)
    get.set_defaults(func=get_cmd)

    put = sub.add_parser("put", help="put one message on a queue (MQPUT)")
    put.add_argument("queue")
    put.add_argument("data", help="the message's body (text); '-' reads it from stdin")
    put.add_argument("--reply-to-q", help="ReplyToQ")
    put.add_argument("--correl-id", help="CorrelId as hex, up to 24 bytes")
    put.add_argument("--persistent", action="store_true")
    put.add_argument("--qmgr", default="QM1", help="the queue manager (QM1)")
    add_bootstrap(put)
    put.set_defaults(func=put_cmd)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="JSON for scripts")
    add_bootstrap(parser)


def queue_list(args: argparse.Namespace) -> int:
    from mqkafka.query.queues import QueueReader

    reader = QueueReader(client_of(args), args.namespace)
    try:
        queues = reader.list(every=args.all)
    finally:
        reader.close()
    if args.json:
        print_json([{**_queue_json(q)} for q in queues])
        return EXIT_OK
    print_table(
        QUEUE_COLUMNS,
        [(q.name, q.kind, q.depth, q.consumers if q.topic else None,
          q.partitions or None, q.description) for q in queues],
    )  # fmt: skip
    note(f"{len(queues)} queue(s)")
    return EXIT_OK


def _queue_json(q: Any) -> dict[str, Any]:
    from mqkafka.cli.output import plain

    return {**plain(q), "consumers": q.consumers}


def queue_show(args: argparse.Namespace) -> int:
    from mqkafka.query.queues import QueueReader

    reader = QueueReader(client_of(args), args.namespace)
    try:
        found = reader.show(args.queue)
    finally:
        reader.close()
    if found is None:  # no topic carries it, no definition names it
        from mqkafka.mq.errors import MQError
        from mqkafka.mq.reasons import RC

        return _mq_failure(MQError(RC.UNKNOWN_OBJECT_NAME), args.queue)
    if args.json:
        print_json(_queue_json(found))
        return EXIT_OK
    print_fields([
        ("QUEUE", found.name), ("TYPE", found.kind), ("DEPTH", found.depth),
        ("CONSUMERS", found.consumers), ("TOPIC", found.topic),
        ("PARTITIONS", found.partitions), ("DESCRIPTION", found.description),
        ("MESSAGE FORMAT", found.message_format),
    ])  # fmt: skip
    if found.readers:
        print()
        print_table(
            (Column("CONSUMER GROUP", wrap=True), Column("MEMBERS", right=True),
             Column("LAG", right=True)),
            [(r.group, r.members, r.lag) for r in found.readers],
        )  # fmt: skip
    return EXIT_OK


def browse_cmd(args: argparse.Namespace) -> int:
    from mqkafka.mq.errors import MQError
    from mqkafka.mq.reasons import RC
    from mqkafka.query.messages import UnknownQueue, browse

    try:
        browsed = browse(
            client_of(args), args.queue, namespace=args.namespace, limit=args.count,
            wait=args.wait,
        )  # fmt: skip
    except UnknownQueue:
        return _mq_failure(MQError(RC.UNKNOWN_OBJECT_NAME), args.queue)
    if args.json:
        print_json(browsed.messages)
    else:
        for number, view in enumerate(browsed.messages, 1):
            print_message(view, f"message {number} on {args.queue}")
    more = " (more on the queue: --count)" if browsed.more else ""
    empty = "" if browsed.messages else _empty(args.queue)
    note(f"{len(browsed.messages)} message(s) browsed{more}{empty}")
    return EXIT_OK if browsed.messages else EXIT_EMPTY


def print_message(view: QueueMessageView, title: str) -> None:
    out = console()
    # a message got through the MQI has no Kafka position to show (offset -1)
    where = f" (partition {view.partition}, offset {view.offset})" if view.offset >= 0 else ""
    out.print(f"--- {title}{where}")
    rows: list[tuple[str, str]] = []
    if view.dead_letter is not None:
        d = view.dead_letter
        rows += [("DLH Reason", f"{d.reason_name} ({d.reason})"), ("DLH DestQName", d.dest_q_name)]
        rows += [
            ("DLH PutApplName", d.put_appl_name),
            ("DLH PutTime", f"{d.put_date} {d.put_time}"),
        ]
    rows += [(f"MQMD {k}", v) for k, v in view.md.items()]
    for header in view.headers:
        if header["type"] == "MQRFH2":
            rows += [("MQRFH2", folder) for folder in header["folders"]]
        else:
            rows.append(("MQRFH", header["name_values"]))
    rows += [(f"header {k}", v) for k, v in view.extra_headers.items()]
    if view.problem:
        rows.append(("problem", view.problem))
    print_fields(rows)
    out.print(f"body ({view.body.kind}, {view.body.length} bytes)")
    if view.body.text:
        out.print(view.body.text, overflow="fold")


def _connect(args: argparse.Namespace) -> Any:
    import mqkafka.mqi as pymqi

    config = client_of(args)
    return pymqi.connect(
        args.qmgr, bootstrap_servers=config.bootstrap, kafka_config=dict(config.settings),
        **({"namespace": args.namespace} if args.namespace else {}),
    )  # fmt: skip


def _mq_failure(error: Any, queue: str) -> int:
    """The MQI's failure as one line naming the queue (cli/explain.py), and its exit code."""
    from mqkafka.cli.explain import queue_failure

    line, exit_code = queue_failure(error.reason, queue, str(getattr(error, "detail", "")))
    print(f"mqk: {line}", file=sys.stderr)
    return exit_code


def get_cmd(args: argparse.Namespace) -> int:
    import mqkafka.mqi as pymqi
    from mqkafka.mqi import CMQC
    from mqkafka.query.render import view_message

    views: list[QueueMessageView] = []
    try:
        qmgr = _connect(args)
        try:
            queue = pymqi.Queue(qmgr, args.queue, CMQC.MQOO_INPUT_AS_Q_DEF)
            try:
                while len(views) < args.count:
                    md = pymqi.MD()
                    options = CMQC.MQGMO_WAIT if args.wait > 0 else CMQC.MQGMO_NO_WAIT
                    gmo = pymqi.GMO(Options=options | CMQC.MQGMO_FAIL_IF_QUIESCING,
                                    WaitInterval=int(args.wait * 1000))  # fmt: skip
                    try:
                        data = queue.get(None, md, gmo)
                    except pymqi.MQMIError as error:
                        if error.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                            break
                        raise
                    views.append(view_message(data, md.to_mqmd()))
            finally:
                queue.close()
        finally:
            qmgr.disconnect()
    except pymqi.MQMIError as error:
        return _mq_failure(error, args.queue)
    if args.json:
        print_json(views)
    else:
        for number, view in enumerate(views, 1):
            print_message(view, f"message {number} got from {args.queue}")
    note(f"{len(views)} message(s) got" + ("" if views else _empty(args.queue)))
    return EXIT_OK if views else EXIT_EMPTY


def _empty(queue: str) -> str:
    from mqkafka.cli.explain import queue_failure
    from mqkafka.mq.reasons import RC

    return ": " + queue_failure(RC.NO_MSG_AVAILABLE, queue)[0]


def put_cmd(args: argparse.Namespace) -> int:
    import mqkafka.mqi as pymqi
    from mqkafka.cli.ops import correl_id
    from mqkafka.mqi import CMQC

    data = sys.stdin.buffer.read() if args.data == "-" else args.data.encode()
    md = pymqi.MD(Format=CMQC.MQFMT_STRING)
    if args.reply_to_q:
        md.ReplyToQ = args.reply_to_q.encode()
        md.MsgType = CMQC.MQMT_REQUEST
    if args.correl_id:
        try:
            md.CorrelId = correl_id(args.correl_id)
        except argparse.ArgumentTypeError as error:
            raise UserError(f"--correl-id: {error}") from None
    if args.persistent:
        md.Persistence = CMQC.MQPER_PERSISTENT
    try:
        qmgr = _connect(args)
        try:
            queue = pymqi.Queue(qmgr, args.queue, CMQC.MQOO_OUTPUT)
            try:
                queue.put(data, md)
            finally:
                queue.close()
        finally:
            qmgr.disconnect()
    except pymqi.MQMIError as error:
        return _mq_failure(error, args.queue)
    print(f"put {len(data)} bytes to {args.queue}, MsgId {bytes(md.MsgId).hex()}")
    return EXIT_OK
