"""Clients for applications: queued pub/sub over plain Kafka."""
