"""The seeds' sample application, end to end in-process (seed 001, "Sample application").

A match simulator publishes soccer events; the results service keeps the latest score of
each match as a retained publication. "When the results service restarts, it subscribes to
the topic Sport/Soccer/State/LatestScore/* with the 'Publish on Request Only' option. It uses
a different CorrelId from that used to subscribe to the publications Sport/Soccer/Event/*.
This allows it to retrieve from the same queue all the retained 'LatestScore' publications
before it starts processing the event publications again." (The RFH2 topic scheme spells the
seed's ``*`` as ``#``.)
"""

from __future__ import annotations

from mqkafka.mq.reasons import RC
from tests.unit.engine.driver import BrokerDriver

RESULTS_Q = "SAMPLE.RESULTS"
SCORES_ID = b"LATESTSCORES".ljust(24, b".")
EVENTS_ID = b"MATCHEVENTS".ljust(24, b".")
SCORES = "Sport/Soccer/State/LatestScore/#"
EVENTS = "Sport/Soccer/Event/#"


class ResultsService:
    """The results service as the sample describes it, over a BrokerDriver."""

    def __init__(self, broker: BrokerDriver) -> None:
        self.broker = broker
        self.scores: dict[str, bytes] = {}
        self.events: list[tuple[str, bytes]] = []

    def start(self) -> None:
        b = self.broker
        assert b.register_subscriber(
            SCORES, queue=RESULTS_Q, correl_id=SCORES_ID, options="PubOnReqOnly", user="results"
        ).ok
        assert b.register_subscriber(
            EVENTS, queue=RESULTS_Q, correl_id=EVENTS_ID, user="results"
        ).ok
        update = b.request_update(SCORES, queue=RESULTS_Q, correl_id=SCORES_ID, user="results")
        # "IBM's own sample treats 3077 as a non-error": nothing retained yet is fine.
        assert update.ok or update.reason == RC.CF_NO_RETAINED_MSG
        for message in b.drain(RESULTS_Q, correl_id=SCORES_ID):
            self.scores[message.topic.rsplit("/", 1)[1]] = message.body

    def process_events(self) -> None:
        for message in self.broker.drain(RESULTS_Q, correl_id=EVENTS_ID):
            self.events.append((message.topic, message.body))
            if message.topic.endswith("/ScoreChange"):
                match, score = message.body.split(b"=")
                self.scores[match.decode()] = score
                self.broker.publish(
                    f"Sport/Soccer/State/LatestScore/{match.decode()}",
                    body=score,
                    retain=True,
                    user="results",
                )

    def stop(self) -> None:
        b = self.broker
        b.deregister_subscriber(SCORES, queue=RESULTS_Q, correl_id=SCORES_ID, user="results")
        b.deregister_subscriber(EVENTS, queue=RESULTS_Q, correl_id=EVENTS_ID, user="results")


def simulate(broker: BrokerDriver, match: str, *events: tuple[str, bytes]) -> None:
    for event, body in events:
        broker.publish(f"Sport/Soccer/Event/{event}", body=body, user="simulator")


def test_results_service_end_to_end(any_broker: BrokerDriver) -> None:
    broker = any_broker
    service = ResultsService(broker)
    service.start()
    assert service.scores == {}

    simulate(broker, "Team1 Team2", ("MatchStarted", b"Team1 Team2"))
    simulate(broker, "Team1 Team2", ("ScoreChange", b"Team1 Team2=1-0"))
    simulate(broker, "Team3 Team4", ("ScoreChange", b"Team3 Team4=0-1"))
    service.process_events()
    assert service.scores == {"Team1 Team2": b"1-0", "Team3 Team4": b"0-1"}
    # PubOnReqOnly: the service's own retained scores were not pushed back to it.
    assert broker.messages(RESULTS_Q) == []

    # The service restarts: a new instance with no memory, the same queue and CorrelIds.
    service.stop()
    simulate(broker, "Team1 Team2", ("ScoreChange", b"Team1 Team2=2-0"))  # missed while down
    restarted = ResultsService(broker)
    restarted.start()
    assert restarted.scores == {"Team1 Team2": b"1-0", "Team3 Team4": b"0-1"}

    simulate(broker, "Team3 Team4", ("ScoreChange", b"Team3 Team4=1-1"))
    simulate(broker, "Team1 Team2", ("MatchEnded", b"Team1 Team2"))
    restarted.process_events()
    assert restarted.scores["Team3 Team4"] == b"1-1"
    assert restarted.events == [
        ("Sport/Soccer/Event/ScoreChange", b"Team3 Team4=1-1"),
        ("Sport/Soccer/Event/MatchEnded", b"Team1 Team2"),
    ]
    # The latest scores stay retained, one per topic, for the next restart.
    topics = sorted(p.topic.text for p in broker.state.retained)
    assert topics == [
        "Sport/Soccer/State/LatestScore/Team1 Team2",
        "Sport/Soccer/State/LatestScore/Team3 Team4",
    ]


def test_scores_and_events_share_one_queue_apart_by_correlid(any_broker: BrokerDriver) -> None:
    """Retained scores are fetched by CorrelId before any event is processed, although events
    are already waiting on the same queue."""
    broker = any_broker
    broker.publish("Sport/Soccer/State/LatestScore/A B", body=b"3-3", retain=True)
    broker.register_subscriber(EVENTS, queue=RESULTS_Q, correl_id=EVENTS_ID)
    simulate(broker, "A B", ("Goal", b"A"))
    broker.register_subscriber(SCORES, queue=RESULTS_Q, correl_id=SCORES_ID, options="PubOnReqOnly")
    broker.request_update(SCORES, queue=RESULTS_Q, correl_id=SCORES_ID)
    waiting = broker.messages(RESULTS_Q)
    assert [m.md.CorrelId for m in waiting] == [EVENTS_ID, SCORES_ID]
    assert [m.body for m in broker.drain(RESULTS_Q, correl_id=SCORES_ID)] == [b"3-3"]
    assert [m.body for m in broker.drain(RESULTS_Q, correl_id=EVENTS_ID)] == [b"A"]
