"""RegSub and ReqUpdate read only the retained topics under a filter's literal head."""

from __future__ import annotations

import pytest

from mqkafka.engine.effects import Retain
from mqkafka.engine.records import Publication
from mqkafka.engine.state import EngineState, literal_prefix
from mqkafka.engine.topicspace import ROOT
from mqkafka.mq.commands import Interface, PublicationContent
from mqkafka.mq.topics import Scheme, TopicFilter, TopicString


@pytest.mark.parametrize(
    ("text", "scheme", "prefix"),
    [
        ("Sport/Soccer/#", Scheme.TOPIC, "Sport/Soccer"),
        ("Sport/+/Results", Scheme.TOPIC, "Sport"),
        ("#", Scheme.TOPIC, ""),
        ("+/Results", Scheme.TOPIC, ""),
        ("Sport/*", Scheme.CHAR, "Sport/"),
        ("ABC%*D?", Scheme.CHAR, "ABC*D"),
        ("*", Scheme.CHAR, ""),
    ],
)
def test_literal_prefix(text: str, scheme: Scheme, prefix: str) -> None:
    assert literal_prefix(TopicFilter(text, scheme)) == prefix


class CountingStore:
    """A retained store that counts publications read, to show only selected ones are."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.reads = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def get(self, namespace: object, topic: str) -> object:
        self.reads += 1
        return self.inner.get(namespace, topic)  # type: ignore[attr-defined]


def test_only_selected_publications_are_read() -> None:
    from mqkafka.engine.stores import MemoryRetainedStore

    store = CountingStore(MemoryRetainedStore())
    state = EngineState(retained=store)  # type: ignore[arg-type]
    content = PublicationContent(body=b"x")
    for topic in ("Sport/Soccer/A", "Sport/Soccer/B", "Sport/Tennis/C", "News/D"):
        pub = Publication(ROOT, TopicString(topic), content, Interface.RFH2, 0, 0)
        state.apply([Retain(pub)])
    selected = state.retained_selected(ROOT, TopicFilter("Sport/Soccer/#", Scheme.TOPIC))
    assert [p.topic.text for p in selected] == ["Sport/Soccer/A", "Sport/Soccer/B"]
    assert store.reads == 2
