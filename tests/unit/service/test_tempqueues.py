"""Which temporary dynamic queues went since the service last asked (reference §9.6)."""

from __future__ import annotations

from mqkafka.service.tempqueues import TemporaryQueueWatch


class Catalogue:
    """The two things the watch reads of the MQI's catalogue."""

    def __init__(self, *names: str) -> None:
        self.names = set(names)
        self.changes = 0
        self.reads = 0

    def temporary_dynamic_names(self) -> set[str]:
        self.reads += 1
        return set(self.names)

    def change(self, *, drop: str = "", add: str = "") -> None:
        self.names.discard(drop)
        if add:
            self.names.add(add)
        self.changes += 1


def test_a_queue_that_leaves_the_catalogue_is_gone_once() -> None:
    catalogue = Catalogue("AMQ.A", "AMQ.B")
    watch = TemporaryQueueWatch(catalogue)
    assert watch.gone() == set()
    catalogue.change(drop="AMQ.A", add="AMQ.C")  # a new one is not gone
    assert watch.gone() == {"AMQ.A"}
    assert watch.gone() == set()  # said once


def test_an_unchanged_catalogue_is_not_read_again() -> None:
    catalogue = Catalogue("AMQ.A")
    watch = TemporaryQueueWatch(catalogue)
    for _ in range(5):  # a batch each
        assert watch.gone() == set()
    assert catalogue.reads == 1  # at the start only


def test_queues_deleted_at_start_are_gone_at_the_first_batch() -> None:
    watch = TemporaryQueueWatch(Catalogue(), gone_at_start=["AMQ.OLD"])
    assert watch.gone() == {"AMQ.OLD"}
    assert watch.gone() == set()


def test_names_given_back_after_an_abort_are_gone_again() -> None:
    catalogue = Catalogue("AMQ.A")
    watch = TemporaryQueueWatch(catalogue)
    catalogue.change(drop="AMQ.A")
    gone = watch.gone()
    watch.give_back(gone)  # the transaction that removed their subscriptions aborted
    assert watch.gone() == {"AMQ.A"}
