"""The broker service on Kafka (``mqk serve``): the engine between Kafka topics.

``app`` is the composition root; ``dispatcher`` turns consumed records into engine effects and
records to write; ``replica`` keeps every worker's copy of the shared state in step with the
state topics; ``journal`` undoes a batch's state changes when its transaction aborts.
"""
