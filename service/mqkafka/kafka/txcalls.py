"""Calls into librdkafka that may never return, kept off the transactional loop's thread."""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import Future
from queue import SimpleQueue
from typing import Any

log = logging.getLogger(__name__)

CLOSE_WAIT = 10.0  # seconds a replaced consumer's close may take before it is left to itself
# A producer closed while its init_transactions goes on says so through Python's warnings
# (confluent-kafka 2.16's close aborts first): a retired producer's close expects it.
warnings.filterwarnings(
    "ignore", "Producer abort_transaction failed during close", RuntimeWarning, "mqkafka"
)


class TxCaller:
    """One daemon thread that runs calls handed to it: a call stuck for ever in librdkafka
    keeps neither the loop nor the process's exit waiting (a ThreadPoolExecutor's threads are
    joined at exit)."""

    def __init__(self) -> None:
        self._jobs: SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None]
        self._jobs = SimpleQueue()
        threading.Thread(target=self._serve, name="mqk-tx-call", daemon=True).start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, call, args = job
            try:
                future.set_result(call(*args))
            except BaseException as error:  # handed to the caller
                future.set_exception(error)

    def submit(self, call: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((future, call, args))
        return future

    def stop(self) -> None:
        self._jobs.put(None)


def close_in_background(consumer: Any, wait: float = CLOSE_WAIT) -> Future[None]:
    """A replaced consumer's close, which can wait for a coordinator that is gone, on a
    daemon thread (the process's exit does not wait for it): waited for up to ``wait``
    seconds, then left to itself; the future is done once the close has returned. A consumer
    still in its group is waited for: closed, it cannot rejoin the group under the instance
    id of its successor (a static member that rejoins fences the member that holds the id).
    One the group fenced cannot rejoin: nothing to wait for (``wait=0``)."""
    closed: Future[None] = Future()

    def close() -> None:
        try:
            consumer.close()
        except Exception as error:  # fenced, or closed already: let go all the same
            log.debug("closing a replaced consumer: %s", error)
        closed.set_result(None)

    closing = threading.Thread(target=close, name="mqk-close", daemon=True)
    closing.start()
    if wait > 0:
        closing.join(wait)
    return closed


def retire_producer(producer: Any) -> Future[None]:
    """A replaced producer's records purged (and their reports served) on the caller's
    thread, then the client closed on a daemon thread (a close may wait for a broker); the
    future is done once the close has returned. Until then the client may still send what it
    was asked before: an init_transactions given up on the caller's side goes on inside
    librdkafka, and its InitProducerId, landing after a successor's, fences the successor
    (``txrecovery._renew_producer`` waits for this)."""
    try:  # its records belong to a transaction that will not commit
        producer.purge(True, True, False)
        producer.poll(0)
    except Exception as error:  # fenced, failed, closed already: closed all the same
        log.debug("purging a replaced producer: %s", error)
    closed: Future[None] = Future()

    def close() -> None:
        try:
            producer.close()
        except Exception as error:  # fenced, failed, closed already: let go all the same
            log.debug("closing a replaced producer: %s", error)
        closed.set_result(None)

    threading.Thread(target=close, name="mqk-retire", daemon=True).start()
    return closed
