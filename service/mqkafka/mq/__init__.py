"""The MQ message model: reason codes, MQMD, RFH1/RFH2 codecs, pub/sub commands, topics."""
