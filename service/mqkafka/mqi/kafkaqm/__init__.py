"""The queue manager on Kafka behind the MQI: connections and their heartbeats, open handles,
MQPUT and MQGET over a queue topic and its share group, syncpoint, the replica of the
catalogue and the connections table, the reaper of dead connections' temporary queues, and
the pymqi classes that use them (``QueueManager``, ``Queue``, ``Topic``, ``Subscription``,
``PubSub``, ``PCFExecute``). The rules it applies live in :mod:`mqkafka.mqi.rules`.
"""
