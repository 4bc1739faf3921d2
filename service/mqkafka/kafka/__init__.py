"""Adapters to Apache Kafka: the local broker, topic provisioning, admin helpers."""
