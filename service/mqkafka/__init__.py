"""mqkafka: the IBM WebSphere MQ queued publish/subscribe broker, emulated on Apache Kafka."""

import logging

__version__ = "0.1.0"

# A library says nothing on a program's stderr unless the program configures logging (as
# pymqi says nothing): without this, Python's last-resort handler would print librdkafka's
# warnings, e.g. the refused first host of a connection list that the next host answers.
# ``mqk`` configures its own (mqkafka.cli.logs).
logging.getLogger(__name__).addHandler(logging.NullHandler())
