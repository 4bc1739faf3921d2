"""The MQI's rules, pure: what pymqi's API means, with no Kafka (no ``mqkafka.kafka``, no
``confluent_kafka``; tests/unit/test_import_layers.py keeps it so).

Constants as pymqi groups them (:mod:`cmqc`, :mod:`cmqcfc`, :mod:`cmqxc`), the structures
(:mod:`structs`), errors, the option rules of each call (:mod:`validation`), match options
and message tokens (:mod:`matching`), the descriptor of a put (:mod:`putmd`), message
properties (:mod:`properties`, :mod:`propwire`, :mod:`propdelivery`), the RFH2 class,
redelivery and BackoutCount, dynamic queue names, the dynamic queue lifecycle and the queue
catalogue record. (The pub/sub command messages are :mod:`mqkafka.mq.pscommands`, shared with
the plain Kafka client.)
"""
