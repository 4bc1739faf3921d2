"""How MQ objects and messages are laid out on Kafka (design/wire-contract.md §1–§2):
queue names as topic names, the MQMD as record headers."""
