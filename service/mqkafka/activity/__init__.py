"""Broker activity events: one per command processed and one per publication delivered."""
