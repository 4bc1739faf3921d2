"""A publication as a content filter sees it (``mqkafka.engine.ports.MessageView``).

Built only when a subscription has a Filter, and lazy: the ``usr`` folder is parsed the first
time a filter asks for a property, once per publication however many filters look.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

from mqkafka.mq.commands import PublicationContent
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import parse_folder, typed_value
from mqkafka.mq.mqmd import MQMD


class PublicationView:
    def __init__(self, content: PublicationContent, md: MQMD) -> None:
        self._content = content
        self._md = md

    @cached_property
    def properties(self) -> Mapping[str, object]:
        """The ``usr`` folder typed by ``dt``; an RFH1 publication's user pairs, as text.

        A property whose value cannot be read is absent (NULL to a selector) rather than an
        error: one bad property must not stop the publication reaching other subscribers.
        """
        found: dict[str, object] = {}
        for text in self._content.folders:
            if not text.lstrip().startswith("<usr"):
                continue
            try:
                folder = parse_folder(text)
            except MQError:
                continue
            for element, path in folder.leaves():
                try:
                    found[path] = typed_value(element)
                except MQError:
                    continue
        for name, value in self._content.name_values:
            if not name.startswith("MQ"):
                found.setdefault(name, value)
        return found

    @cached_property
    def mqmd_fields(self) -> Mapping[str, object]:
        return self._md.as_dict()

    @property
    def body(self) -> bytes:
        return self._content.body

    @property
    def body_format(self) -> str:
        return self._content.format.rstrip(" ")

    @cached_property
    def msd(self) -> str | None:
        for text in self._content.folders:
            if text.lstrip().startswith("<mcd"):
                try:
                    folder = parse_folder(text)
                except MQError:
                    return None
                for name, value in folder.pairs():
                    if name == "Msd":
                        return value
        return None


__all__ = ["PublicationView"]
