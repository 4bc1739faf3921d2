"""The MQ client channel listener: IBM's own MQ clients (MQ classes for Java, JMS in
migration mode) reach the product's MQI over TCP as they reach a queue manager.

- :mod:`.codec`: the protocol's structures as bytes, pure;
- :mod:`.session`: one client connection's verbs mapped onto :mod:`mqkafka.mqi`;
- :mod:`.server`: the TCP listener, a thread per connection (a parked MQGET waits alone).
"""
