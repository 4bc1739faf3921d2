"""A Faust worker that counts the records of one topic in a RocksDB-backed Table and sends one
output per record, exactly once. Run by test_faust_exactly_once.py as ``python eos_count_app.py
worker --without-web`` with:

- EOS_RUNTIME: ``plain`` (``faust.App``) or ``corrected`` (``mqkafka.faust.make_app``: the
  product's correction of Faust's exactly-once);
- EOS_ID, EOS_INPUT, EOS_OUTPUT: the app's id, the topic it counts, where its outputs go;
- EOS_HOLD_AT and EOS_MARKER: the record (its value) the agent holds after counting it and
  sending its output, until the marker file exists (as a service worker awaits its sends).

It prints what the test waits for: ``holding N``, and ``commit done`` after each of Faust's
commits (a sensor: Faust calls it whether or not the commit had offsets to send).
"""

import asyncio
import os
from pathlib import Path
from typing import Any

import faust

from mqkafka.faust import app_settings, make_app
from mqkafka.kafka.clientconfig import load_client_config

SETTINGS: dict[str, Any] = {
    "datadir": os.environ["FAUST_DATADIR"],
    "processing_guarantee": "exactly_once",
    "broker_commit_interval": 0.2,
    "store": "rocksdb://",
    # The killed worker's member leaves the group after this, not Faust's 60 s: the restart
    # waits for it.
    "broker_session_timeout": 6.0,
    "broker_heartbeat_interval": 1.0,
}
APP_ID = os.environ["EOS_ID"]
if os.environ["EOS_RUNTIME"] == "corrected":
    app = make_app(APP_ID, load_client_config(), **SETTINGS)
else:
    app = faust.App(APP_ID, **{**app_settings(load_client_config()), **SETTINGS})

records = app.topic(os.environ["EOS_INPUT"], value_serializer="raw", key_serializer="raw")
outputs = app.topic(os.environ["EOS_OUTPUT"], value_serializer="raw", key_serializer="raw")
# rocksdict is the driver faust-streaming picks when it is installed; named so it stays so.
counts = app.Table("counts", default=int, partitions=1, options={"driver": "rocksdict"})
HOLD_AT = os.environ["EOS_HOLD_AT"].encode()
MARKER = Path(os.environ["EOS_MARKER"])


class CommitProbe(faust.Sensor):  # type: ignore[misc]
    def on_commit_completed(self, consumer: Any, state: Any) -> None:
        print("commit done", flush=True)


app.sensors.add(CommitProbe())


@app.agent(records)  # type: ignore[untyped-decorator]
async def count(stream: Any) -> None:
    async for record in stream:
        counts["records"] += 1
        await outputs.send(value=record)
        if record == HOLD_AT and not MARKER.exists():
            print(f"holding {record.decode()}", flush=True)
            while not MARKER.exists():
                await asyncio.sleep(0.05)


if __name__ == "__main__":
    app.main()
