"""Topic strings, subscription filters, namespaces and the exact matching rule (reference §7).

Three value types that cannot be confused:

* ``TopicString``: a publication topic in its canonical, *literal* form (no wildcards, no
  escapes). A character-scheme publication ``ABC%*D`` and a topic-scheme publication
  ``ABC*D`` are the same topic, so retained publications keyed by topic agree.
* ``TopicFilter``: a subscription topic together with its wildcard ``Scheme``. The scheme is
  always explicit (RFH2 / MQSO_WILDCARD_TOPIC versus RFH1 / MQSO_WILDCARD_CHAR) and is never
  guessed from the text.
* ``Namespace``: a stream (RFH1) or a subscription point (RFH2); each is its own topic space
  and wildcards never match across namespaces (reference §1.4).

Publication topics and subscription filters are validated by separate functions, as
mosquitto does (``validate_publish_topic`` versus ``validate_filter``). ``matches`` is the
exact semantic and the oracle for the indexed matcher in ``mqkafka.engine.matcher``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from functools import cache, lru_cache

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

LEVEL_SEPARATOR = "/"
MULTI_LEVEL = "#"  # topic scheme: zero or more whole levels
SINGLE_LEVEL = "+"  # topic scheme: exactly one whole level
ANY_CHARS = "*"  # character scheme: zero or more characters, `/` included
ONE_CHAR = "?"  # character scheme: exactly one character
ESCAPE = "%"  # character scheme: the next character (`*`, `?` or `%`) is literal
ESCAPABLE = frozenset("*?%")

MQ_TOPIC_STR_LENGTH = 10240  # reference §7.1 (pymqi-C)
MQ_SUB_POINT_LENGTH = 128  # reference §1.4 (pymqi-C)
MQ_OBJECT_NAME_LENGTH = 48  # reference §9.5: a stream is named by its stream queue
DEFAULT_STREAM_NAME = "SYSTEM.BROKER.DEFAULT.STREAM"
DEFAULT_SUBPOINT_NAME = ""
ADMIN_TOPIC_PREFIX = "$SYS/MQ/"  # reference §7.1: publishing here gives 2598

# MQ object names: A-Z a-z 0-9 . / _ %  (reference §9.5).
_OBJECT_NAME = re.compile(r"[A-Za-z0-9./_%]+")


class Scheme(Enum):
    """Which characters are wildcards in a subscription (reference §7.2, §7.3, §10.16)."""

    TOPIC = "topic"  # `#` and `+` as whole levels; RFH2 and MQSO_WILDCARD_TOPIC
    CHAR = "char"  # `*`, `?` with `%` escapes; RFH1 and MQSO_WILDCARD_CHAR


class NamespaceKind(Enum):
    STREAM = "stream"  # RFH1 MQPSStreamName
    SUBPOINT = "subpoint"  # RFH2 <SubPoint>


# --------------------------------------------------------------------------------------
# Shared checks
# --------------------------------------------------------------------------------------


def _topic_error(detail: str, text: str) -> MQError:
    return MQError(RC.CF_TOPIC_ERROR, f"{detail}: {text[:80]!r}", parm="Topic")


def _check_length_and_characters(text: str) -> None:
    """Rules common to publication topics and filters: not empty, no NUL, at most
    MQ_TOPIC_STR_LENGTH (reference §7.1)."""
    if not text:
        raise _topic_error("the topic is empty", text)
    if "\0" in text:
        raise _topic_error("the topic contains NUL", text)
    # MQ counts bytes in the topic's CCSID; we count UTF-8 bytes (CCSID 1208). Only strings
    # that could be too long pay for the encoding.
    if len(text) * 4 > MQ_TOPIC_STR_LENGTH and len(text.encode()) > MQ_TOPIC_STR_LENGTH:
        raise _topic_error(f"the topic is longer than {MQ_TOPIC_STR_LENGTH} bytes", text)


@dataclass(frozen=True, slots=True)
class CharToken:
    """One piece of a character-scheme pattern: a literal run or a single wildcard."""

    text: str  # the literal run (escapes removed) or the wildcard `*` / `?`
    wildcard: bool


def parse_char_pattern(text: str) -> tuple[CharToken, ...]:
    """Split a character-scheme string into literal runs and wildcards (reference §7.3).

    ``%`` escapes the next character, which must be ``*``, ``?`` or ``%``; anything else
    (or a ``%`` at the end) is invalid → MQRCCF_TOPIC_ERROR.
    """
    if not any(special in text for special in (ESCAPE, ANY_CHARS, ONE_CHAR)):
        return (CharToken(text, wildcard=False),) if text else ()
    tokens: list[CharToken] = []
    run: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == ESCAPE:
            if i + 1 == len(text) or text[i + 1] not in ESCAPABLE:
                raise _topic_error("'%' must be followed by '*', '?' or '%'", text)
            run.append(text[i + 1])
            i += 2
            continue
        if ch in (ANY_CHARS, ONE_CHAR):
            if run:
                tokens.append(CharToken("".join(run), wildcard=False))
                run = []
            tokens.append(CharToken(ch, wildcard=True))
        else:
            run.append(ch)
        i += 1
    if run:
        tokens.append(CharToken("".join(run), wildcard=False))
    return tuple(tokens)


def escape_char_literal(literal: str) -> str:
    """The character-scheme spelling of a literal topic: ``ABC*D`` → ``ABC%*D``."""
    return "".join(ESCAPE + ch if ch in ESCAPABLE else ch for ch in literal)


# --------------------------------------------------------------------------------------
# Value types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicString:
    """A publication topic in canonical literal form: no wildcards, no escapes.

    Any Unicode, case-sensitive, blanks ordinary, empty levels kept (``/a`` differs from
    ``a``) [reference §7.1]. Build one from wire text with ``validate_publish_topic``, which
    applies the rules of the publisher's scheme.
    """

    text: str

    def __post_init__(self) -> None:
        _check_length_and_characters(self.text)

    @property
    def levels(self) -> list[str]:
        return self.text.split(LEVEL_SEPARATOR)

    def spelled_for(self, scheme: Scheme) -> str:
        """The topic as written in a message of the given scheme (escaped for CHAR)."""
        return escape_char_literal(self.text) if scheme is Scheme.CHAR else self.text


@dataclass(frozen=True, slots=True)
class TopicFilter:
    """A subscription topic with its wildcard scheme; validated by ``validate_filter``'s rules.

    TOPIC scheme: any text is allowed; ``#`` and ``+`` are wildcards only as whole levels
    (``USA#`` and ``Sport+`` are literal). CHAR scheme: ``%`` may escape only ``*?%``.
    """

    text: str
    scheme: Scheme

    def __post_init__(self) -> None:
        _check_length_and_characters(self.text)
        if self.scheme is Scheme.CHAR:
            parse_char_pattern(self.text)  # raises on a bad escape

    @property
    def has_wildcards(self) -> bool:
        if self.scheme is Scheme.TOPIC:
            return any(level in (MULTI_LEVEL, SINGLE_LEVEL) for level in self.levels)
        return any(token.wildcard for token in parse_char_pattern(self.text))

    @property
    def exact_topic(self) -> str | None:
        """The one topic a filter without wildcards selects (escapes removed), else None."""
        if self.scheme is Scheme.TOPIC:
            return None if self.has_wildcards else self.text
        tokens = parse_char_pattern(self.text)
        if any(token.wildcard for token in tokens):
            return None
        return "".join(token.text for token in tokens)

    @property
    def levels(self) -> list[str]:
        """The filter split on ``/`` with empty levels kept (meaningful for TOPIC)."""
        return self.text.split(LEVEL_SEPARATOR)

    def char_tokens(self) -> tuple[CharToken, ...]:
        """Literal runs and wildcards (CHAR scheme only)."""
        if self.scheme is not Scheme.CHAR:
            raise ValueError("char_tokens() is for character-scheme filters")
        return parse_char_pattern(self.text)


@dataclass(frozen=True, slots=True)
class Namespace:
    """A stream or a subscription point: a separate topic space (reference §1.4).

    A stream and a subpoint never share a namespace, even with the same name. Stream names
    are MQ object names (1-48 of ``A-Z a-z 0-9 . / _ %``) → MQRCCF_STREAM_ERROR otherwise.
    Subpoint names are at most MQ_SUB_POINT_LENGTH characters; empty is the default subpoint.
    """

    kind: NamespaceKind
    name: str
    # looked up once or twice per publication: hash once (Enum hashing runs Python code)
    _hash: int = field(init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return self._hash

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.kind.value, self.name)))
        if self.kind is NamespaceKind.STREAM:
            if len(self.name) > MQ_OBJECT_NAME_LENGTH or not _OBJECT_NAME.fullmatch(self.name):
                raise MQError(
                    RC.CF_STREAM_ERROR,
                    f"invalid stream name {self.name[:60]!r}",
                    parm="StreamName",
                )
        # UNCERTAIN (reference §3.5, code 3309): whether the queued interface reports a bad
        # SubPoint with MQRCCF_SUBSCRIPTION_POINT_ERR; it is the only code that names one.
        elif len(self.name) > MQ_SUB_POINT_LENGTH or "\0" in self.name:
            raise MQError(
                RC.CF_SUBSCRIPTION_POINT_ERR,
                f"invalid subscription point {self.name[:60]!r}",
                parm="SubPoint",
            )

    @classmethod
    def stream(cls, name: str = DEFAULT_STREAM_NAME) -> Namespace:
        """A stream namespace; trailing blanks are padding of the MQ name field and dropped."""
        return cls(NamespaceKind.STREAM, name.rstrip(" "))

    @classmethod
    def subpoint(cls, name: str = DEFAULT_SUBPOINT_NAME) -> Namespace:
        return cls(NamespaceKind.SUBPOINT, name)

    @property
    def is_default(self) -> bool:
        default = DEFAULT_STREAM_NAME if self.kind is NamespaceKind.STREAM else ""
        return self.name == default


DEFAULT_STREAM = Namespace.stream()
DEFAULT_SUBPOINT = Namespace.subpoint()


# --------------------------------------------------------------------------------------
# Validation of wire text
# --------------------------------------------------------------------------------------


def validate_publish_topic(text: str, scheme: Scheme) -> TopicString:
    """Check a Publish (or DeletePub) topic as the publisher's scheme says; return it literal.

    Rules (reference §7.1, §7.2, §7.3, choice §10.6):

    | scheme | rule                                                        | reason |
    |--------|-------------------------------------------------------------|--------|
    | both   | empty, NUL, longer than 10240 bytes                         | 3072   |
    | both   | starts with ``$SYS/MQ/`` (admin topics)                     | 2598   |
    | TOPIC  | a level that is exactly ``#`` or ``+``                      | 3072   |
    | TOPIC  | ``#``/``+`` inside a level (``USA#``) are literal           | ok     |
    | CHAR   | an unescaped ``*`` or ``?``                                 | 3072   |
    | CHAR   | ``%`` not followed by ``*``, ``?`` or ``%``                 | 3072   |
    """
    _check_length_and_characters(text)
    if scheme is Scheme.TOPIC:
        # §10.6 choice: RFH2 Publish says "no wildcards"; MQ v7 treats them as literals. A
        # level that is exactly `#` or `+` is rejected, embedded ones are literals.
        for level in text.split(LEVEL_SEPARATOR):
            if level in (MULTI_LEVEL, SINGLE_LEVEL):
                raise _topic_error(f"wildcard level {level!r} in a publication topic", text)
        literal = text
    else:
        # §10.6 choice: unescaped `*`/`?` in an RFH1 publication → 3072 (code UNCERTAIN).
        tokens = parse_char_pattern(text)
        if any(token.wildcard for token in tokens):
            raise _topic_error("unescaped '*' or '?' in a publication topic", text)
        literal = "".join(token.text for token in tokens)
    if literal.startswith(ADMIN_TOPIC_PREFIX):
        raise MQError(RC.ADMIN_TOPIC_STRING_ERROR, f"publication to admin topic {literal[:80]!r}")
    return TopicString(literal)


def validate_filter(text: str, scheme: Scheme) -> TopicFilter:
    """Check a subscription topic (RegSub, DeregSub, ReqUpdate) in the subscriber's scheme.

    | scheme | rule                                                        | reason |
    |--------|-------------------------------------------------------------|--------|
    | both   | empty, NUL, longer than 10240 bytes                         | 3072   |
    | TOPIC  | anything else; ``#``/``+`` are wildcards only as whole levels | ok   |
    | CHAR   | ``%`` not followed by ``*``, ``?`` or ``%``                 | 3072   |
    """
    return TopicFilter(text, scheme)


# --------------------------------------------------------------------------------------
# The exact matching rule (the oracle)
# --------------------------------------------------------------------------------------


def matches(flt: TopicFilter, topic: TopicString) -> bool:
    """True when the filter selects the topic. Namespaces are the caller's concern."""
    if flt.scheme is Scheme.TOPIC:
        return _match_levels(tuple(flt.levels), tuple(topic.levels))
    return _char_regex(flt.text).fullmatch(topic.text) is not None


def _match_levels(pattern: tuple[str, ...], topic: tuple[str, ...]) -> bool:
    """Reference §7.2's suggested matcher, on level lists split with empty levels kept,
    memoised on positions so that filters such as ``#/#/#/x`` stay polynomial."""

    @cache
    def match(p: int, t: int) -> bool:
        if p == len(pattern):
            return t == len(topic)
        if pattern[p] == MULTI_LEVEL:
            # `#` matches zero levels, or one more level and stays: at the start, in the
            # middle and at the end (reference §7.2; unlike MQTT).
            return match(p + 1, t) or (t < len(topic) and match(p, t + 1))
        if t == len(topic):
            return False
        # UNCERTAIN (reference §7.2): `+` matches an empty level too (`a/+` matches `a/`),
        # the suggested matcher's behaviour; MQ's own answer is unverified.
        if pattern[p] == SINGLE_LEVEL or pattern[p] == topic[t]:
            return match(p + 1, t + 1)
        return False

    return match(0, 0)


def covers(outer: str, inner: str) -> bool:
    """True when every topic the topic-scheme filter ``inner`` selects is selected by
    ``outer`` (a topic without wildcards is a filter selecting itself, so then this is
    ``matches``). Authority rules are filters, and a subscription is judged by what it could
    receive: a rule ``Sport/#`` covers the subscription ``Sport/+/Results``, not ``#``."""
    return _cover_levels(tuple(outer.split(LEVEL_SEPARATOR)), tuple(inner.split(LEVEL_SEPARATOR)))


def _cover_levels(rule: tuple[str, ...], sub: tuple[str, ...]) -> bool:
    @cache
    def cover(p: int, t: int) -> bool:
        if p == len(rule):
            return t == len(sub)
        if rule[p] == MULTI_LEVEL:  # absorbs any run of the inner filter's levels
            return cover(p + 1, t) or (t < len(sub) and cover(p, t + 1))
        if t == len(sub):
            return False
        if sub[t] == MULTI_LEVEL:
            # zero levels, and any one level more: only `+` takes an arbitrary level
            return cover(p, t + 1) and rule[p] == SINGLE_LEVEL and cover(p + 1, t)
        if sub[t] == SINGLE_LEVEL:
            return rule[p] == SINGLE_LEVEL and cover(p + 1, t + 1)
        return rule[p] in (SINGLE_LEVEL, sub[t]) and cover(p + 1, t + 1)

    return cover(0, 0)


@lru_cache(maxsize=4096)
def _char_regex(text: str) -> re.Pattern[str]:
    """Reference §7.3: `*` → `.*`, `?` → `.`, `%x` → literal x, anchored (fullmatch);
    DOTALL because any Unicode, newline included, may be in a topic."""
    parts = []
    for token in parse_char_pattern(text):
        if not token.wildcard:
            parts.append(re.escape(token.text))
        else:
            parts.append(".*" if token.text == ANY_CHARS else ".")
    return re.compile("".join(parts), re.DOTALL)


__all__ = [
    "DEFAULT_STREAM",
    "DEFAULT_STREAM_NAME",
    "DEFAULT_SUBPOINT",
    "MQ_TOPIC_STR_LENGTH",
    "CharToken",
    "Namespace",
    "NamespaceKind",
    "Scheme",
    "TopicFilter",
    "TopicString",
    "covers",
    "escape_char_literal",
    "matches",
    "parse_char_pattern",
    "validate_filter",
    "validate_publish_topic",
]
