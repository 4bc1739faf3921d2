"""The broker's state on disk and on Kafka: Avro record codecs (``codec``) and RocksDB
stores (``rocks``) implementing the engine's store Protocols."""
