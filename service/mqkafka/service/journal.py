"""Undo for a batch whose transaction aborted.

The dispatcher applies each command's state effects at once (later commands of the same
batch must see them) but they only become true when the batch's transaction commits. The
journal remembers what each effect replaced, so an abort restores the state exactly.
"""

from __future__ import annotations

from collections.abc import Iterable

from mqkafka.engine.effects import (
    DeleteRetained,
    DeregisterPublisher,
    Effect,
    RegisterPublisher,
    RemoveSubscription,
    Retain,
    StateEffect,
    StoreSubscription,
)
from mqkafka.engine.state import EngineState


class Journal:
    def __init__(self) -> None:
        self._undo: list[list[StateEffect]] = []

    def apply(self, state: EngineState, effects: Iterable[Effect]) -> None:
        for effect in effects:
            inverse = _inverse(state, effect)
            if inverse is None:
                continue
            self._undo.append(inverse)
            state.apply([effect])

    def rollback(self, state: EngineState) -> None:
        while self._undo:
            state.apply(self._undo.pop())

    def clear(self) -> None:
        self._undo.clear()

    def __len__(self) -> int:
        return len(self._undo)


def _inverse(state: EngineState, effect: Effect) -> list[StateEffect] | None:
    """The effects that put back what ``effect`` is about to change; None for message effects."""
    if isinstance(effect, StoreSubscription | RemoveSubscription):
        key = effect.subscription.key if isinstance(effect, StoreSubscription) else effect.key
        old = state.subscription(key)
        return [RemoveSubscription(key)] if old is None else [StoreSubscription(old)]
    if isinstance(effect, Retain | DeleteRetained):
        if isinstance(effect, Retain):
            namespace, topic = effect.publication.namespace, effect.publication.topic.text
        else:
            namespace, topic = effect.namespace, effect.topic
        retained = state.retained.get(namespace, topic)
        return [DeleteRetained(namespace, topic)] if retained is None else [Retain(retained)]
    if isinstance(effect, RegisterPublisher | DeregisterPublisher):
        pkey = effect.publisher.key if isinstance(effect, RegisterPublisher) else effect.key
        registered = state.publisher(pkey)
        if registered is None:
            return [DeregisterPublisher(pkey)]
        return [RegisterPublisher(registered)]
    return None
