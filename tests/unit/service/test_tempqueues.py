"""Which temporary dynamic queues went since the service last asked (reference §9.6)."""

from __future__ import annotations

from mqkafka.service.tempqueues import TemporaryQueueWatch


def test_a_queue_that_leaves_the_catalogue_is_gone_once():
    catalogue = {"AMQ.A", "AMQ.B"}
    watch = TemporaryQueueWatch(lambda: catalogue)
    assert watch.gone() == set()
    catalogue.discard("AMQ.A")
    catalogue.add("AMQ.C")  # a new one is not gone
    assert watch.gone() == {"AMQ.A"}
    assert watch.gone() == set()  # said once


def test_queues_deleted_at_start_are_gone_at_the_first_batch():
    watch = TemporaryQueueWatch(lambda: (), gone_at_start=["AMQ.OLD"])
    assert watch.gone() == {"AMQ.OLD"}
    assert watch.gone() == set()


def test_names_given_back_after_an_abort_are_gone_again():
    catalogue = {"AMQ.A"}
    watch = TemporaryQueueWatch(lambda: catalogue)
    catalogue.clear()
    gone = watch.gone()
    watch.give_back(gone)  # the transaction that removed their subscriptions aborted
    assert watch.gone() == {"AMQ.A"}
