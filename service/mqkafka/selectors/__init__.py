"""Content filters: SQL92 message selectors over ``usr`` properties, MQMD fields and bodies.

A RegSub's Filter is compiled once (``compile_selector``; errors → MQRCCF_FILTER_ERROR 3150)
and evaluated per publication (``Selector.matches``). ``SelectorFilterPort`` is the
``engine.ports.FilterPort`` the engine is given; the selectors it compiles share one parse of
each publication's JSON/XML body (or wrap the publication with ``cached_view`` yourself).

Modules, in the order text flows through them: ``lexer`` → ``parser`` (→ ``nodes``) →
``compiler`` (using ``semantics``, ``identifiers``, ``body``) → ``selector``.
"""

from mqkafka.selectors.body import BodyCache, CachedMessageView, cached_view
from mqkafka.selectors.selector import Selector, SelectorFilterPort, compile_selector
from mqkafka.selectors.views import DictMessageView

__all__ = [
    "BodyCache",
    "CachedMessageView",
    "DictMessageView",
    "Selector",
    "SelectorFilterPort",
    "cached_view",
    "compile_selector",
]
