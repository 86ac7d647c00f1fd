"""The signature of a number: what it was computed on and how, as one short string, as sacreBLEU prints one.

::

    ucdcr:0.3.0|data:ecbplus@c59fa3e2|split:test|protocol:standard|topics:gold|singletons:kept|mentions:gold|
    scorer:v8.01|ci:95%,1000x,ecbplus=8 gold-topic units|seeds:3

(one line; broken here). The fields, in this order:

- ``ucdcr``: the version that computed it (several, comma-separated, in a table of runs of several versions);
- ``data``: each dataset and the first 8 hex digits of its fingerprint (:func:`ucdcr.systems.framework.store.
  dataset_fingerprint`: SHA-256 of its mention table's content, so another build, a release copy or a changed split
  is another fingerprint), comma-separated;
- ``split``: the split scored (``test``; ``val`` when tuning);
- ``protocol``: ``ucdcr/subtopic``, ``ucdcr/topic`` or ``standard`` (:class:`ucdcr.analysis.protocol.Protocol`);
  ``topics``: what a system clusters within (``gold`` or ``predicted``); ``singletons``: ``kept`` or ``removed``
  from key and response (standard), ``dropped`` (the ucdcr protocol's rule: flagged singletons and chains of one
  mention in every unit);
- ``mentions``: ``gold`` (a system clusters the gold mentions) or ``predicted`` (its own spans);
- ``scorer``: ``v8.01`` (the CoNLL-2012 reference scorer's semantics);
- ``ci``: the interval: its coverage, the resamples and per dataset the number of units resampled and what a unit
  is (``-`` without intervals); ``units`` in a stored run, which has no resamples of its own;
- ``seeds``: how many runs a number averages (``1-3`` in a table whose rows average 1 to 3 runs).

Two numbers may stand side by side (a row of a leaderboard, the two sides of a paired test) only when their
signatures agree on data, split, protocol, topics, singletons, mentions and scorer (:meth:`Signature.key`); the
version and the seeds are told, not compared, and the units follow from the data (two systems' units differ only
where a response chain joins two units, which a paired test merges).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ucdcr.analysis.protocol import Protocol
from ucdcr.scoring.bootstrap import LEVEL

SCORER = "v8.01"
FINGERPRINT_DIGITS = 8
"""The fingerprint digits a signature shows."""


@dataclass(frozen=True)
class Units:
    """What one dataset's interval resamples: how many units, and what a unit is (``gold-topic``,
    ``subtopic``, ``topic``, ``document``)."""

    dataset: str
    count: int
    kind: str

    def __str__(self) -> str:
        return f"{self.dataset}={self.count} {self.kind} unit{'s' if self.count != 1 else ''}"


@dataclass(frozen=True)
class Signature:
    """The signature of a result (module docstring). ``data``: (dataset, fingerprint) pairs; ``resamples``: None
    for a stored run (its intervals are drawn when a table is made), 0 for no interval; ``seeds``: the numbers of
    runs averaged, one per row; ``versions``: the ucdcr versions that computed the numbers."""

    data: tuple[tuple[str, str], ...]
    protocol: Protocol
    split: str = "test"
    mentions: str = "gold"
    units: tuple[Units, ...] = ()
    resamples: int | None = None
    seeds: tuple[int, ...] = (1,)
    versions: tuple[str, ...] = field(default_factory=tuple)
    scorer: str = SCORER

    @property
    def topics(self) -> str:
        return self.protocol.topics

    @property
    def singletons(self) -> str:
        if not self.protocol.standard:
            return "dropped"
        return "kept" if self.protocol.singletons else "removed"

    def key(self) -> tuple[object, ...]:
        """What must agree for two numbers to stand side by side (module docstring)."""
        label = "standard" if self.protocol.standard else self.protocol.label
        return (self.data, self.split, label, self.topics, self.singletons, self.mentions, self.scorer)

    def differences(self, other: Signature) -> list[str]:
        """The fields (of :meth:`key`) in which two signatures differ, as ``field: this vs other``."""
        names = ("data", "split", "protocol", "topics", "singletons", "mentions", "scorer")
        mine, theirs = _fields(self), _fields(other)
        return [f"{name}: {mine[name]} vs {theirs[name]}" for name in names if mine[name] != theirs[name]]

    def __str__(self) -> str:
        return "|".join(f"{name}:{value}" for name, value in _fields(self).items())


def _fields(signature: Signature) -> dict[str, str]:
    protocol = "standard" if signature.protocol.standard else signature.protocol.label
    fields = {
        "ucdcr": ",".join(signature.versions) or "?",
        "data": ",".join(f"{name}@{fingerprint[:FINGERPRINT_DIGITS]}" for name, fingerprint in signature.data),
        "split": signature.split,
        "protocol": protocol,
        "topics": signature.topics,
        "singletons": signature.singletons,
        "mentions": signature.mentions,
        "scorer": signature.scorer,
    }
    units = ",".join(str(units) for units in signature.units)
    if signature.resamples is None:
        fields["units"] = units or "-"
    elif signature.resamples <= 0 or not units:
        fields["ci"] = "-"
    else:
        fields["ci"] = f"{LEVEL:.0%},{signature.resamples}x,{units}"
    fields["seeds"] = _span(signature.seeds)
    return fields


def _span(values: Sequence[int]) -> str:
    low, high = min(values, default=1), max(values, default=1)
    return str(low) if low == high else f"{low}-{high}"


def unit_kind(protocol: Protocol) -> str:
    """What one unit of the protocol's intervals is."""
    return "gold-topic" if protocol.standard else protocol.level


def combined(signatures: Iterable[Signature], resamples: int | None = None) -> Signature:
    """One signature for the numbers of a table (one signature per system and dataset): their data joined (each
    dataset with one fingerprint), their seeds and versions joined, the first units of each dataset, ``resamples``
    set. A ValueError names the first difference of two numbers that may not stand side by side (module docstring):
    another fingerprint of one dataset, or another split, protocol, topics, singletons, mentions or scorer."""
    chosen = list(signatures)
    if not chosen:
        raise ValueError("no signature to combine")
    first = chosen[0]
    data: dict[str, str] = {}
    units: dict[str, Units] = {}
    for other in chosen:
        for name, fingerprint in other.data:
            if data.setdefault(name, fingerprint) != fingerprint:
                mine = replace(first, data=((name, data[name]),))
                raise ValueError("; ".join(mine.differences(replace(other, data=((name, fingerprint),)))))
        if other.key()[1:] != first.key()[1:]:
            raise ValueError("; ".join(replace(first, data=other.data).differences(other)))
        for unit in other.units:
            units.setdefault(unit.dataset, unit)
    seeds = tuple(sorted({count for signature in chosen for count in signature.seeds}))
    versions = tuple(sorted({version for signature in chosen for version in signature.versions}))
    ordered = tuple(data.items())
    kept_units = tuple(units[name] for name, _ in ordered if name in units)
    return replace(first, data=ordered, units=kept_units, seeds=seeds, versions=versions, resamples=resamples)


def signature_note(signature: Signature) -> str:
    """The line under a table."""
    return f"Signature: {signature}"
