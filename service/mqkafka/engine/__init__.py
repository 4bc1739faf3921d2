"""The pure queued pub/sub engine: ``handle(state, command) -> effects``, no I/O."""
