"""MQ queued pub/sub for Faust applications: subscriber queues as streams of typed
publications, commands and publications sent with one ``await``, on this project's Kafka.

The one package that imports faust and aiokafka (a test over the import graph keeps it so).
"""

from mqkafka.faust.mqschema import MQSchema, Publication, decode_publication, encode_record
from mqkafka.faust.pubsub import MQPubSub, default_reply_queue
from mqkafka.faust.settings import app_settings, broker_credentials, broker_urls, make_app
from mqkafka.faust.transport import MQApp

__all__ = [
    "MQApp",
    "MQPubSub",
    "MQSchema",
    "Publication",
    "app_settings",
    "broker_credentials",
    "broker_urls",
    "decode_publication",
    "default_reply_queue",
    "encode_record",
    "make_app",
]
