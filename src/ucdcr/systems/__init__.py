"""CDCR systems for ``ucdcr benchmark``, in three packages:

- :mod:`ucdcr.systems.framework`: what runs any system: the interface (:class:`System`, :class:`SplitData`), the
  registry of names, the runner, the results store, identities and caches;
- :mod:`ucdcr.systems.reference`: the built-in systems (``head-lemma``, ``lemma-pairs``, ``embedding``,
  ``pairwise``, ``cross-encoder``, ``ensemble``, ...), each a :class:`System`;
- :mod:`ucdcr.systems.parts`: what the built-in systems are made of (features, clustering, candidate pairs, the
  pair encoder, vectors, lemmas).

Imports run downwards: a built-in system imports parts and the framework, a part the framework, and the framework
neither (it names the built-in systems in its registry, :data:`ucdcr.systems.framework.names.BUILTIN`, without
importing them). A user's system subclasses :class:`System`::

    from ucdcr.systems import SplitData, System

    class SameHead(System):
        name = "same-head"

        def predict(self, test: SplitData):
            return dict(zip(test.column("mention_id"), test.column("mention_head")))

``System`` and ``SplitData`` are imported on first use, so that importing a module of this package (the CLI reads
the registry for its help) does not import the interface's libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ucdcr.systems.framework.base import SplitData, System

__all__ = ["SplitData", "System"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from ucdcr.systems.framework import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
