"""Authority: who may put to a queue, subscribe or publish on a topic, browse a stream.

The engine asks an ``AuthorityPort``; the answer is a yes or no, and the engine turns a no
into MQRCCF_NOT_AUTHORIZED (3081) - an error when nothing in a command is allowed, a warning
naming each topic left out when only some are (reference §2.7, §2.10, §2.11).

``ALLOW_ALL`` is the default. ``AclPolicy`` reads rules from a small text file:

    # comment                          (blank lines and lines starting # are ignored)
    allow  put        *      SYSTEM.BROKER.CONTROL.QUEUE
    allow  subscribe  alice  Sport/*
    deny   publish    *      Sport/Secret/*
    allow  *          admin  *

Each rule is ``allow|deny ACTION USER RESOURCE``:

* ACTION is ``put``, ``browse`` (resource: a queue name), ``subscribe``, ``publish``
  (resource: a topic) or ``*`` for all four;
* USER and RESOURCE are shell-style patterns (``*`` any run, ``?`` one character, ``[..]``
  a set; ``fnmatch`` with case kept), matched against the userid and the resource text;
* a topic in a namespace other than the root is matched as ``<namespace>/<topic>``, the MQ v7
  unified-tree spelling of a stream or subpoint topic (reference §1.4);
* a subscription's topic is matched as written: the pattern ``Sport/*`` allows the
  subscription ``Sport/Soccer/#`` because its text starts with ``Sport/``.

The first rule that matches decides; when none matches the answer is no (a file of rules is
a whitelist). A malformed line is an ``MQError`` naming the line.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mqkafka.engine.topicspace import Namespace
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC


class AuthorityPort(Protocol):
    def may_put(self, user_id: str, queue: str) -> bool:
        """Put to a queue: the control queue, a stream queue, a subscriber queue."""
        ...

    def may_browse(self, user_id: str, queue: str) -> bool:
        """Browse a stream queue (ReqUpdate for another user's subscription, seed 000)."""
        ...

    def may_subscribe(self, user_id: str, namespace: Namespace, topic: str) -> bool: ...

    def may_publish(self, user_id: str, namespace: Namespace, topic: str) -> bool: ...


class AllowAll:
    """Every user may do everything: the default when no ACL is configured."""

    def may_put(self, user_id: str, queue: str) -> bool:
        return True

    def may_browse(self, user_id: str, queue: str) -> bool:
        return True

    def may_subscribe(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return True

    def may_publish(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return True


ALLOW_ALL = AllowAll()


def grants_everything(port: AuthorityPort) -> bool:
    """True for ``AllowAll``: callers on the publish path may skip asking it."""
    return type(port) is AllowAll


ACTIONS = frozenset({"put", "browse", "subscribe", "publish"})


@dataclass(frozen=True, slots=True)
class AclRule:
    allow: bool
    action: str  # one of ACTIONS, or "*"
    user: re.Pattern[str]
    resource: re.Pattern[str]
    line: int

    def applies(self, action: str, user_id: str, resource: str) -> bool:
        return (
            (self.action == "*" or self.action == action)
            and self.user.fullmatch(user_id) is not None
            and self.resource.fullmatch(resource) is not None
        )


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(text), re.DOTALL)


class AclPolicy:
    """First matching rule decides; no matching rule means no."""

    def __init__(self, rules: tuple[AclRule, ...]) -> None:
        self.rules = rules

    @classmethod
    def parse(cls, text: str) -> AclPolicy:
        rules: list[AclRule] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            if len(words) != 4 or words[0] not in ("allow", "deny"):
                raise MQError(RC.CF_COMMAND_FAILED, f"ACL line {number}: {raw!r}")
            verdict, action, user, resource = words
            if action != "*" and action not in ACTIONS:
                raise MQError(RC.CF_COMMAND_FAILED, f"ACL line {number}: action {action!r}")
            rules.append(
                AclRule(verdict == "allow", action, _pattern(user), _pattern(resource), number)
            )
        return cls(tuple(rules))

    @classmethod
    def load(cls, path: str | Path) -> AclPolicy:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise MQError(RC.CF_COMMAND_FAILED, f"cannot read ACL file {path}: {exc}") from exc
        return cls.parse(text)

    def decide(self, action: str, user_id: str, resource: str) -> bool:
        for rule in self.rules:
            if rule.applies(action, user_id, resource):
                return rule.allow
        return False

    def may_put(self, user_id: str, queue: str) -> bool:
        return self.decide("put", user_id, queue)

    def may_browse(self, user_id: str, queue: str) -> bool:
        return self.decide("browse", user_id, queue)

    def may_subscribe(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return self.decide("subscribe", user_id, _resource(namespace, topic))

    def may_publish(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return self.decide("publish", user_id, _resource(namespace, topic))


def _resource(namespace: Namespace, topic: str) -> str:
    return topic if namespace.is_default or not namespace.name else f"{namespace.name}/{topic}"


__all__ = ["ALLOW_ALL", "AclPolicy", "AclRule", "AllowAll", "AuthorityPort", "grants_everything"]
