"""CDCR systems for ``ucdcr benchmark``: the interface (:class:`System`, :class:`SplitData`, :mod:`.base`), the
registry (:mod:`.registry`), the runner (:mod:`.runner`) and the reference systems ``head-lemma``,
``lemma-pairs``, ``embedding`` and ``pairwise``. A user's system subclasses :class:`System`::

    from ucdcr.systems import SplitData, System

    class SameHead(System):
        name = "same-head"

        def predict(self, test: SplitData):
            return dict(zip(test.column("mention_id"), test.column("mention_head")))
"""

from ucdcr.systems.base import SplitData, System

__all__ = ["SplitData", "System"]
