"""Authority: who may put to a queue, subscribe or publish on a topic, browse a stream.

The engine asks an ``AuthorityPort``; the answer is a yes or no, and the engine turns a no
into MQRCCF_NOT_AUTHORIZED (3081) - an error when nothing in a command is allowed, a warning
naming each topic left out when only some are (reference §2.7, §2.10, §2.11).

``ALLOW_ALL`` is the default. ``AclPolicy`` parses rules from the text of a small file (the
service reads the file: ``service.aclfile``):

    # comment                          (blank lines and lines starting # are ignored)
    allow  put        *      SYSTEM.BROKER.CONTROL.QUEUE
    allow  subscribe  alice  Sport/#
    deny   publish    *      Sport/Secret/#
    allow  *          admin  *
    allow  setid      bridge *

Each rule is ``allow|deny ACTION USER RESOURCE``:

* ACTION is ``put``, ``browse`` (resource: a queue name), ``subscribe``, ``publish``
  (resource: a topic), ``setid`` (resource: the userid a sender may claim in
  ``mqmd.UserIdentifier`` when identity assurance is on: MQ's set-identity authority) or ``*``
  for all but ``setid`` (which a rule must name: ``allow * * *`` grants no one another's
  identity); a ``*`` rule's resource is ``*`` (queue names and topics are written differently);
* USER, a queue and a setid RESOURCE are shell-style patterns (``*`` any run, ``?`` one
  character, ``[..]`` a set; ``fnmatch`` with case kept); a queue pattern with ``#`` or ``+``
  (never in a queue name: a topic filter written for a queue) is refused;
* a topic RESOURCE is an MQ topic filter, as subscriptions write them (``#`` any number of
  levels, ``+`` one level, each a whole level; ``*`` alone is every topic): ``Secret/#`` is
  ``Secret`` and everything below it. Shell characters (``*``, ``?``, ``[``) or a ``#``/``+``
  inside a level are refused (``Secret/*`` would otherwise be the literal topic and deny
  nothing);
* a topic in a namespace other than the root is matched as ``<namespace>/<topic>``, the MQ v7
  unified-tree spelling of a stream or subpoint topic (reference §1.4);
* a subscription is judged by what it could receive: a rule applies to it when the rule's
  filter covers the subscription's (``Sport/#`` covers ``Sport/+/Results``, not ``#``). So
  under ``deny subscribe carol Secret/#`` then ``allow subscribe * #``, carol's ``#`` is
  accepted, and each publication's own topic is checked when it is matched to the
  subscription: the ``Secret/...`` ones never reach her (retained copies included).

The first rule that matches decides; when none matches the answer is no (a file of rules is
a whitelist). Subscribe authority is asked for every copy a publication would make (issue 20):
decisions are kept per (action, userid, resource), so that after the first publication on a
topic a copy costs one dict hit, not a walk over the rules. A file that cannot be read or has
a malformed line is an ``AclError`` whose message is one line naming the file, the line and
the problem (``acl.txt:3: ...``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from mqkafka.engine.ports import AuthorityPort
from mqkafka.engine.topicspace import Namespace
from mqkafka.mq.topics import covers


class AllowAll:
    """Every user may do everything: the default when no ACL is configured - except claim
    another's userid, which only an ACL rule grants (identity assurance would mean nothing)."""

    def may_put(self, user_id: str, queue: str) -> bool:
        return True

    def may_browse(self, user_id: str, queue: str) -> bool:
        return True

    def may_subscribe(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return True

    def may_publish(self, user_id: str, namespace: Namespace, topic: str) -> bool:
        return True

    def may_set_identity(self, sender: str, claimed: str) -> bool:
        return False


ALLOW_ALL = AllowAll()


def grants_everything(port: AuthorityPort) -> bool:
    """True for ``AllowAll``: callers on the publish path may skip asking it."""
    return type(port) is AllowAll


ACTIONS = frozenset({"put", "browse", "subscribe", "publish", "setid"})
TOPIC_ACTIONS = frozenset({"subscribe", "publish"})
_ACTION_LIST = "put, browse, subscribe, publish, setid or *"
_CACHE_LIMIT = 200_000  # decisions kept; past it the cache starts again (bounded memory)


class AclError(ValueError):
    """An ACL file that cannot be used: ``FILE:LINE: problem`` (``FILE: problem`` when no one
    line is at fault), one line, for the operator who wrote it."""


@dataclass(frozen=True, slots=True)
class AclRule:
    allow: bool
    action: str  # one of ACTIONS, or "*"
    user: re.Pattern[str]
    resource: re.Pattern[str]  # queues and userids (a topic rule: its filter, below)
    line: int
    topics: str | None = None  # a topic rule's MQ topic filter; None: every topic

    def applies(self, action: str, user_id: str, resource: str) -> bool:
        if not (
            (self.action == action or (self.action == "*" and action != "setid"))
            and self.user.fullmatch(user_id) is not None
        ):
            return False
        if action in TOPIC_ACTIONS:
            return self.topics is None or covers(self.topics, resource)
        return self.resource.fullmatch(resource) is not None


_SHELL = frozenset("*?[]")


def _topic_problem(action: str, text: str) -> str | None:
    """Why a rule's resource cannot be read as its action needs, None when it can."""
    if action == "*" and text != "*":
        return (
            f"action * takes the resource * only, not {text!r}: queue names and topics are "
            "written differently, so give one rule per action"
        )
    if action in ("put", "browse") and ("#" in text or "+" in text):
        return (
            f"queue {text!r}: # and + are topic wildcards and never in a queue name; a queue "
            "pattern is a shell pattern (APP.* is every queue starting APP.)"
        )
    if action not in TOPIC_ACTIONS or text == "*":
        return None
    for level in text.split("/"):
        if _SHELL & set(level):
            return (
                f"topic {text!r} is not an MQ topic filter: write # for any levels and + for "
                "one level, each a whole level (Secret/# is Secret and all below it)"
            )
        if level not in ("#", "+") and ("#" in level or "+" in level):
            return f"topic {text!r}: # and + are wildcards only as a whole level"
    return None


def _problem(words: list[str]) -> str | None:
    """What is wrong with a rule's words, None when nothing is. Words are quoted with repr
    so that a stray control character cannot break the one-line message."""
    if words[0] not in ("allow", "deny"):
        return f"a rule starts with allow or deny, not {words[0]!r}"
    if len(words) != 4:
        return f"a rule is 'allow|deny ACTION USER RESOURCE': {len(words)} words, not 4"
    if words[1] != "*" and words[1] not in ACTIONS:
        return f"unknown action {words[1]!r} (one of {_ACTION_LIST})"
    return _topic_problem(words[1], words[3])


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(text), re.DOTALL)


class AclPolicy:
    """First matching rule decides; no matching rule means no."""

    def __init__(self, rules: tuple[AclRule, ...]) -> None:
        self.rules = rules
        self._decided: dict[tuple[str, str, str], bool] = {}

    @classmethod
    def parse(cls, text: str, source: str = "ACL") -> AclPolicy:
        """The rules of ``text``; ``source`` names it in an ``AclError``."""
        rules: list[AclRule] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            problem = _problem(line.split())
            if problem is not None:
                raise AclError(f"{source}:{number}: {problem}")
            verdict, action, user, resource = line.split()
            topics = None if resource == "*" else resource
            rules.append(
                AclRule(
                    verdict == "allow", action, _pattern(user), _pattern(resource), number, topics
                )
            )
        return cls(tuple(rules))

    def decide(self, action: str, user_id: str, resource: str) -> bool:
        key = (action, user_id, resource)
        decided = self._decided.get(key)
        if decided is None:
            decided = self._walk(action, user_id, resource)
            if len(self._decided) >= _CACHE_LIMIT:
                self._decided.clear()
            self._decided[key] = decided
        return decided

    def _walk(self, action: str, user_id: str, resource: str) -> bool:
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

    def may_set_identity(self, sender: str, claimed: str) -> bool:
        return self.decide("setid", sender, claimed)


def _resource(namespace: Namespace, topic: str) -> str:
    return topic if namespace.is_default or not namespace.name else f"{namespace.name}/{topic}"


__all__ = [
    "ALLOW_ALL",
    "AclError",
    "AclPolicy",
    "AclRule",
    "AllowAll",
    "AuthorityPort",
    "grants_everything",
]
