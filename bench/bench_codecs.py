"""Benchmark of the message codecs; prints figures, asserts nothing.

    python -m bench.bench_codecs [--n 20000]

Measures, on one core, what the broker pays per message before the engine sees it: MQMD ↔
record headers, MQMD binary form, RFH2 encode/decode, folder parse/render, a whole command
decoded to its psc pairs, a publication's usr properties, and two hostile inputs that must
stay linear.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable

from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import parse_folder, render_folder
from mqkafka.mq.message import decode_message, encode_message
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQFMT_STRING, MQMD, MQMT, MQRO
from mqkafka.mq.rfh1 import Rfh1, parse_name_values
from mqkafka.mq.rfh2 import Rfh2
from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers
from mqkafka.wire.names import queue_to_topic, topic_to_queue

PSC = (
    "<psc><Command>RegSub</Command><Topic>Sport/Soccer/State/LatestScore/#</Topic>"
    "<RegOpt>PubOnReqOnly</RegOpt><RegOpt>CorrelAsId</RegOpt><QName>RESULTS.Q</QName></psc>"
)
USR = (
    '<usr><Score dt="i4">3</Score><Team>Leeds United</Team><Live dt="boolean">true</Live>'
    '<Odds dt="r8">2.75</Odds><Note>5 &lt; 7 &amp; 9 &gt; 8</Note></usr>'
)
MD = MQMD(
    MsgType=MQMT.REQUEST,
    Report=MQRO.PASS_CORREL_ID,
    Format=MQFMT_RF_HEADER_2,
    ReplyToQ="RESULTS.Q",
    CorrelId=b"\x07" * 24,
    MsgId=b"\x01" * 24,
    PutApplName="results-service",
    UserIdentifier="fred",
)


def rate(label: str, n: int, run: Callable[[], object]) -> None:
    start = time.perf_counter()
    run()
    elapsed = time.perf_counter() - start
    print(f"{label:<52} {n / elapsed:>12,.0f} /s   ({elapsed * 1e6 / n:7.2f} µs each)")


def repeat(n: int, call: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        for _ in range(n):
            call()

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    n = parser.parse_args().n

    headers = mqmd_to_headers(MD)
    raw_md = MD.to_bytes()
    command = Rfh2(format=MQFMT_STRING, folders=(PSC,))
    command_bytes = rfh2.encode(command, 546)
    value = encode_message([command], b"", MD)
    publication_md = MD.replace(MsgType=MQMT.DATAGRAM)
    publication = encode_message(
        [Rfh2(format=MQFMT_STRING, folders=(PSC, USR))], b"score update " * 8, publication_md
    )
    folder = parse_folder(PSC)
    rfh1_string = "MQPSCommand RegSub MQPSTopic Sport/Soccer/* MQPSRegOpts CorrelAsId"

    print(f"codec benchmark, n={n} per line, one core")
    rate("MQMD build (8 fields set)", n, repeat(n, lambda: MQMD(**MD.as_dict())))  # type: ignore[arg-type]
    rate("mqmd_to_headers", n, repeat(n, lambda: mqmd_to_headers(MD)))
    rate("mqmd_from_headers", n, repeat(n, lambda: mqmd_from_headers(headers)))
    rate("MQMD.to_bytes", n, repeat(n, MD.to_bytes))
    rate("MQMD.from_bytes", n, repeat(n, lambda: MQMD.from_bytes(raw_md)))
    rate(
        "queue_to_topic + topic_to_queue",
        n,
        repeat(n, lambda: topic_to_queue(queue_to_topic("APP/REPLY%1"))),
    )
    rate("rfh2.encode (1 folder)", n, repeat(n, lambda: rfh2.encode(command, 546)))
    rate("rfh2.decode (1 folder)", n, repeat(n, lambda: rfh2.decode(command_bytes, 546)))
    rate("parse_folder (psc, 5 elements)", n, repeat(n, lambda: parse_folder(PSC)))
    rate("render_folder (psc, 5 elements)", n, repeat(n, lambda: render_folder(folder)))
    rate("parse_name_values (RFH1, 3 pairs)", n, repeat(n, lambda: parse_name_values(rfh1_string)))
    rate(
        "rfh1 encode+decode",
        n,
        repeat(n, lambda: rfh1.decode(rfh1.encode(Rfh1(name_values=rfh1_string), 546), 546)),
    )
    rate(
        "command: headers→MQMD, decode, psc().pairs()",
        n,
        repeat(
            n,
            lambda: decode_message(value, mqmd_from_headers(headers)[0]).psc().pairs(),  # type: ignore[union-attr]
        ),
    )
    rate(
        "publication: decode + usr_properties()",
        n,
        repeat(n, lambda: decode_message(publication, publication_md).usr_properties()),
    )

    # Hostile inputs: cost must grow linearly with size.
    for count in (10_000, 40_000):
        many = b"".join(b"\x00\x00\x00\x00" for _ in range(count)) + b"\x0c\x00\x00\x00<a></a>     "
        data = rfh2.encode(Rfh2(), 546)[:36] + many
        data = data[:8] + len(data).to_bytes(4, "little") + data[12:]
        rate(f"rfh2.decode, {count} empty NameValueData", 1, lambda d=data: rfh2.decode(d, 546))  # type: ignore[misc]
    for count in (10_000, 40_000):
        attrs = " ".join(f'a{i}="v"' for i in range(count))
        text = f"<usr><x {attrs}/></usr>"
        rate(f"parse_folder, {count} attributes", 1, lambda t=text: parse_folder(t))  # type: ignore[misc]
    with contextlib.suppress(MQError):
        parse_folder("<usr>" + "<a>" * 100_000)


if __name__ == "__main__":
    main()
