"""The MQ client channel protocol's structures as bytes, pure: segment headers and their
reassembly (:mod:`.segments`), the initial-data negotiation and the user id
(:mod:`.initial`), the API header and the small verb bodies (:mod:`.verbs`), binary MQOD,
MQPMO and MQGMO (:mod:`.mqstructs`), SPI structures (:mod:`.spi`).

Facts come from the protocol notes in ``../shared/design/mq-client-protocol/`` (Wireshark's
dissector, IBM's documentation and what the real client sent); nothing here does I/O.
"""
