"""Ports the engine asks questions through; adapters (selectors, ACL files) implement them.

Kept in their own module so that the selector package and the engine depend on this small
contract rather than on each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class MessageView(Protocol):
    """What a content filter may look at in a publication."""

    @property
    def properties(self) -> Mapping[str, object]:
        """The RFH2 ``usr`` folder, typed by each property's ``dt`` (str, int, float, bool,
        bytes; a property that is present but empty is ``None``)."""

    @property
    def mqmd_fields(self) -> Mapping[str, object]:
        """MQMD fields by their MQ names (``Priority``, ``CorrelId`` as bytes, ``Format``...)."""

    @property
    def body(self) -> bytes:
        """The user data after the last header."""

    @property
    def body_format(self) -> str:
        """Format of the body (``MQSTR``, blank, ...), trailing blanks removed."""

    @property
    def msd(self) -> str | None:
        """The ``mcd`` folder's ``Msd`` (``xml``, ``xmlnsc``, ``json``, ``jms_text``...) if any."""


class CompiledFilter(Protocol):
    """A subscription's Filter, compiled once at registration, evaluated per publication."""

    @property
    def text(self) -> str: ...

    def matches(self, message: MessageView) -> bool:
        """True only when the filter evaluates to TRUE (UNKNOWN and FALSE both exclude)."""
        ...


class FilterPort(Protocol):
    def compile(self, text: str) -> CompiledFilter:
        """Compile a Filter; raise ``MQError(RC.CF_FILTER_ERROR, detail)`` when it is invalid."""
        ...
