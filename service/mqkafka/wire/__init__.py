"""How MQ objects and messages are laid out on Kafka (design/wire-contract.md §1–§2):
queue names as topic names (``names``), the MQMD as record headers (``headers``), a command
message's value in and a delivery's or reply's value out (``messagecodec``)."""
