"""IBM's own MQ client (fetched from Maven Central at test time) against ``mqk listen``."""
