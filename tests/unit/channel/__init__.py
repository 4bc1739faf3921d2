"""Tests of the MQ client channel listener's pure codec and session rules."""
