"""What the tests and the benchmarks both use to drive outside tools (neither imports the
other's tree): IBM's MQ client for Java (``javaclient``)."""
