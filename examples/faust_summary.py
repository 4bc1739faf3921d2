"""A Faust subscriber on mqkafka: publications on ``Sport/#`` arrive on its subscriber queue,
are counted per topic in a Faust Table, and after each one the running summary is published
back as the retained publication ``Summary/Sport`` (JSON). Needs the broker service
(``mqk serve``). Run it as a Faust worker:

    MQK_BOOTSTRAP_SERVERS=127.0.0.1:9092 python examples/faust_summary.py worker --without-web

``MQK_NAMESPACE`` and ``MQK_KAFKA_CONFIG`` / ``MQK_KAFKA_*`` are read as ``mqk`` reads them;
``FAUST_DATADIR`` is where Faust keeps the Table's local store.
"""

import json
import os

from mqkafka.faust import MQPubSub, Publication, make_app
from mqkafka.kafka.clientconfig import load_client_config

QUEUE = os.environ.get("SUMMARY_QUEUE", "FAUST.SPORT")
SUBSCRIPTION = "Sport/#"
SUMMARY_TOPIC = "Summary/Sport"

NAMESPACE = os.environ.get("MQK_NAMESPACE", "")

app = make_app(
    "mqk-faust-summary",
    load_client_config(fallback_bootstrap="127.0.0.1:9092"),
    namespace=NAMESPACE,
    datadir=os.environ.get("FAUST_DATADIR", "faust-summary-data"),
    processing_guarantee=os.environ.get("FAUST_PROCESSING_GUARANTEE", "exactly_once"),
)
mq = MQPubSub(app, namespace=NAMESPACE)
publications = mq.queue(QUEUE)
counts = app.Table("sport-counts", default=int, partitions=1)


@app.task
async def subscribe() -> None:
    result = await mq.subscribe(SUBSCRIPTION, queue=QUEUE)
    print(f"RegSub {SUBSCRIPTION} -> {QUEUE}: {result.completion if result else '?'}", flush=True)


@app.agent(publications)
async def summarise(stream):
    pub: Publication
    async for pub in stream:
        if pub.topic is None:  # not a publication: nothing to count
            continue
        counts[pub.topic] += 1
        summary = {"publications": sum(counts.values()), "topics": dict(counts.items())}
        await mq.publish(SUMMARY_TOPIC, json.dumps(summary).encode(), retain=True)


if __name__ == "__main__":
    app.main()
