"""A Faust app that counts the records of one topic in a Table, exactly once, taking a while
over one record (as a service worker awaits its sends). Run by test_faust_exactly_once.py:
``python eos_probe_app.py worker --without-web`` with PROBE_ID, PROBE_TOPIC, and PROBE_HOLD_AT
(the count at which it holds the record it is working on, for PROBE_SECONDS)."""

import asyncio
import os

from mqkafka.faust import make_app
from mqkafka.kafka.clientconfig import load_client_config

app = make_app(
    os.environ["PROBE_ID"],
    load_client_config(),
    datadir=os.environ["FAUST_DATADIR"],
    processing_guarantee="exactly_once",
    broker_commit_interval=0.2,
)
records = app.topic(os.environ["PROBE_TOPIC"], value_serializer="raw", key_serializer="raw")
counts = app.Table("counts", default=int, partitions=1)


@app.agent(records)
async def count(stream):
    async for _ in stream:
        counts["records"] += 1
        print(f"counted {counts['records']}", flush=True)
        if counts["records"] == int(os.environ["PROBE_HOLD_AT"]):
            await asyncio.sleep(float(os.environ["PROBE_SECONDS"]))


if __name__ == "__main__":
    app.main()
