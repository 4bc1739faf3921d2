"""The topic tree as MQ Explorer draws it: one node per topic level, each with the
subscriptions registered on exactly that topic string and the retained publication held
there, and the totals of its whole branch. Pure: views in, nodes out.

A subscription's topic may be a filter (``Sport/#``): its levels are nodes like any other,
so the tree shows where subscribers listen, as DISPLAY TPSTATUS does for a wildcard.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from mqkafka.query.state import RetainedView, SubscriptionView


@dataclass
class TopicNode:
    name: str  # this level ("" for the root)
    path: str  # the topic string up to this level
    subscribers: int = 0  # subscriptions on exactly this topic string
    retained: int = 0  # retained publications on exactly this topic string
    children: dict[str, TopicNode] = field(default_factory=dict)

    @property
    def branch_subscribers(self) -> int:
        return self.subscribers + sum(c.branch_subscribers for c in self.children.values())

    @property
    def branch_retained(self) -> int:
        return self.retained + sum(c.branch_retained for c in self.children.values())


@dataclass(frozen=True)
class TreeRow:
    """A node as one row of an indented listing."""

    depth: int
    name: str
    path: str
    subscribers: int
    retained: int
    branch_subscribers: int
    branch_retained: int
    leaf: bool


def _node(root: TopicNode, topic: str) -> TopicNode:
    node = root
    for level in topic.split("/"):
        child = node.children.get(level)
        if child is None:
            path = level if node is root else f"{node.path}/{level}"
            child = node.children[level] = TopicNode(level, path)
        node = child
    return node


def topic_tree(
    subscriptions: Iterable[SubscriptionView], retained: Iterable[RetainedView]
) -> TopicNode:
    """The tree of every topic string that a subscription or a retained publication names
    (streams and subscription points kept apart by their label's prefix)."""
    root = TopicNode("", "")
    for sub in subscriptions:
        _node(root, sub.label).subscribers += 1
    for pub in retained:
        label = pub.topic if not pub.namespace else f"[{pub.namespace}] {pub.topic}"
        _node(root, label).retained += 1
    return root


def tree_rows(root: TopicNode) -> list[TreeRow]:
    """Depth first, children by name: the order an indented listing reads in."""
    return list(_rows(root, 0))


def _rows(node: TopicNode, depth: int) -> Iterator[TreeRow]:
    for name in sorted(node.children):
        child = node.children[name]
        yield TreeRow(
            depth, child.name, child.path, child.subscribers, child.retained,
            child.branch_subscribers, child.branch_retained, not child.children,
        )  # fmt: skip
        yield from _rows(child, depth + 1)


__all__ = ["TopicNode", "TreeRow", "topic_tree", "tree_rows"]
