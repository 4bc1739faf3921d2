"""mqkafka: the IBM WebSphere MQ queued publish/subscribe broker, emulated on Apache Kafka."""

__version__ = "0.1.0"
