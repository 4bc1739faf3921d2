"""What each page of the console shows, read through :mod:`mqkafka.query` (as the CLI
reads it) and shaped for its template. One function per page; each returns the template's
context."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.localbroker import default_home
from mqkafka.query.activity import last_deliveries
from mqkafka.query.listeners import duration, of_namespace, running_listeners
from mqkafka.query.messages import DEAD_LETTER_QUEUE, UnknownQueue, browse
from mqkafka.query.queues import QueueReader
from mqkafka.query.render import render_as
from mqkafka.query.service import service_state
from mqkafka.query.state import SubscriptionView, retained_bodies, subscriptions
from mqkafka.query.topictree import topic_tree, tree_rows

BODY_KINDS = ("auto", "text", "json", "hex")
DEAD_LETTERS_SHOWN = 200


@dataclass
class ConsoleSettings:
    config: ClientConfig
    namespace: str = ""
    metrics_url: str = "http://127.0.0.1:9464/metrics"
    allow_actions: bool = False
    qmgr: str = "QM1"
    interval: float = 2.0  # seconds between two live samples
    token: str = ""  # what an action's form must carry (set at start)
    home: Path = field(default_factory=default_home)  # $MQK_HOME: the listeners' status files
    # MsgIds this console re-put: Kafka's share-partition start offset, where a browse of the
    # dead-letter queue begins, trails the acknowledgements, so a moved message would still be
    # listed for a while (the MQI's own browse skips what its connection got the same way)
    moved: set[str] = field(default_factory=set, repr=False)
    _queues: QueueReader | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def queue_reader(self) -> QueueReader:
        """One reader for the console's life (its admin client and share-state client are
        costly to make at every refresh)."""
        if self._queues is None:
            self._queues = QueueReader(self.config, self.namespace)
        return self._queues

    def close(self) -> None:
        if self._queues is not None:
            self._queues.close()


def tree_page(s: ConsoleSettings) -> dict[str, Any]:
    subs = subscriptions(s.config, s.namespace)
    held = [view for view, _ in retained_bodies(s.config, s.namespace)]
    return {"rows": tree_rows(topic_tree(subs, held)), "subs": len(subs), "retained": len(held)}


def sub_matches(view: SubscriptionView, text: str) -> bool:
    """A filter box's test: every word appears in one of the subscription's attributes."""
    fields = (
        view.label, view.queue, view.name or "", view.user_id, view.correl_id or "",
        view.filter or "", " ".join(view.options), " ".join(view.identities),
    )  # fmt: skip
    haystack = "\n".join(fields).lower()
    return all(word in haystack for word in text.lower().split())


def subscriptions_page(s: ConsoleSettings, text: str = "") -> dict[str, Any]:
    views = subscriptions(s.config, s.namespace)
    shown = [v for v in views if sub_matches(v, text)] if text.strip() else views
    delivered = last_deliveries(s.config, s.namespace)
    rows = [(v, delivered.get((v.queue, v.correl_id or v.delivery_correl_id))) for v in shown]
    return {"rows": rows, "total": len(views), "q": text}


def find_subscription(s: ConsoleSettings, form: dict[str, str]) -> SubscriptionView | None:
    """The subscription a delete form names (every identifying attribute equal)."""
    for view in subscriptions(s.config, s.namespace):
        if (
            view.topic == form.get("topic")
            and view.namespace == form.get("namespace", "")
            and view.queue == form.get("queue")
            and (view.correl_id or "") == form.get("correl_id", "")
            and (view.name or "") == form.get("name", "")
        ):
            return view
    return None


def retained_page(s: ConsoleSettings, topic_filter: str = "", kind: str = "auto") -> dict[str, Any]:
    kind = kind if kind in BODY_KINDS else "auto"
    found = retained_bodies(s.config, s.namespace, topic_filter or None)
    shown = [(view, render_as(data, kind)) for view, data in found]
    return {"pubs": shown, "filter": topic_filter, "kind": kind, "kinds": BODY_KINDS}


def queues_page(s: ConsoleSettings) -> dict[str, Any]:
    with s._lock:
        queues = s.queue_reader().list()
    return {"queues": queues}


def dead_letters_page(s: ConsoleSettings) -> dict[str, Any]:
    try:
        browsed = browse(
            s.config, DEAD_LETTER_QUEUE, namespace=s.namespace, limit=DEAD_LETTERS_SHOWN
        )
    except UnknownQueue:
        return {"messages": [], "more": False, "missing": True}
    shown = [m for m in browsed.messages if m.md.get("MsgId") not in s.moved]
    return {"messages": shown, "more": browsed.more, "missing": False}


def workers_page(s: ConsoleSettings) -> dict[str, Any]:
    return {"service": service_state(s.config, s.namespace)}


def connections_page(s: ConsoleSettings, now: float | None = None) -> dict[str, Any]:
    """The channel listeners of the console's namespace on this machine (``mqk listen``; the
    queue manager's channels, as DISPLAY CHSTATUS shows them) and each one's connections,
    with how long each has run and its counters; the others are counted."""
    now = time.time() if now is None else now
    mine, others = of_namespace(running_listeners(s.home, now), s.namespace)
    shown = [(view, [(c, duration(now - c.since)) for c in view.connections]) for view in mine]
    namespaces = sorted({v.namespace for v in others})
    return {"listeners": shown, "home": s.home, "others": len(others), "namespaces": namespaces,
            "here": socket.gethostname()}  # fmt: skip


__all__ = [
    "BODY_KINDS",
    "ConsoleSettings",
    "connections_page",
    "dead_letters_page",
    "find_subscription",
    "queues_page",
    "retained_page",
    "sub_matches",
    "subscriptions_page",
    "tree_page",
    "workers_page",
]
