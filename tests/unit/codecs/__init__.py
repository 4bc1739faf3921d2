"""Tests of the message model and codecs (MQMD, wire headers and names, folders, RFH1/RFH2,
whole messages)."""
