"""Identity assurance: who sent a message, proved by a signature header (issue 20).

Kafka records carry no producer principal, so a sender signs each message it puts to the
control queue or a stream queue with a key only it and the broker service hold (``keys``);
``signature`` is the wire format (two headers), ``guard`` the service's check of it. Pure
standard library: any Kafka producer in any language can add the headers.
"""
