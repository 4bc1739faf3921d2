"""The pure queued pub/sub engine: ``handle(state, command, context) -> effects``, no I/O.

Where things are:

* ``handle`` - the entry point (``handle``, ``step``) and the frame every command goes through;
  ``subscribe`` / ``unsubscribe`` / ``request_update`` / ``publisher`` - one module per group of
  commands; ``subscriptions`` - what the subscriber commands share.
* ``effects`` - what the engine asks for (deliver, reply, dead-letter, store/remove,
  retain/delete, register/deregister a publisher); ``replies`` - when and how a command is
  answered; ``delivery`` - a publication copy's MQMD and added properties.
* ``state`` - stores plus derived indexes, and its invariants; ``stores`` - the store ports and
  in-memory stores; ``records`` - the values kept; ``identity`` - identities and ownership.
* ``context`` - configuration, clock, ids, ports; ``authority`` - allow-all and the ACL file;
  ``filters`` - the default (non-evaluating) filter port; ``view`` - a publication as a filter
  sees it; ``topicspace`` - the one view of topics, namespaces and the matcher.
* ``inputs`` - what ``handle`` takes besides MQ's commands (an invalid command, a deleted
  queue); ``ports`` - every question the engine asks outside its state.

Bytes are the adapters' business: ``mqkafka.wire.messagecodec`` reads command messages into
commands and writes the message effects (``mqkafka.mq.fastvalues`` builds known-valid frozen
values cheaply).
"""
