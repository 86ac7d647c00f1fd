"""Chain-level rules that several datasets' finalize hooks share, over the enriched records
(:class:`~ucdcr.records.MentionRecord`). Not a dataset (its name starts with ``_``).

- :func:`by_chain`: the records of each chain, in record order.
- :func:`majority`: the most frequent value, ties to the alphabetically first.
- :func:`chain_entity_type`: a chain's entity type, the majority head NER of its non-pronoun mentions with ``O``
  ignored, OTHER when none is left (NP4E, NIdent and CEREC type their chains so).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from ucdcr.records import MentionRecord

PRONOUN_POS = "PRON"
NO_NER = "O"
OTHER_TYPE = "OTHER"


def by_chain(records: Iterable[MentionRecord]) -> dict[str, list[MentionRecord]]:
    """Chain id -> its records, in the order given."""
    chains: dict[str, list[MentionRecord]] = defaultdict(list)
    for record in records:
        chains[record.coref_chain].append(record)
    return chains


def majority(values: Iterable[str]) -> str:
    """The most frequent of ``values`` (at least one), ties to the alphabetically first."""
    counts = Counter(values)
    return min(counts, key=lambda value: (-counts[value], value))


def non_pronouns(records: list[MentionRecord]) -> list[MentionRecord]:
    """The records whose head is not a pronoun."""
    return [r for r in records if r.mention_head_pos != PRONOUN_POS]


def chain_entity_type(records: list[MentionRecord]) -> str:
    """Majority NER over the chain's non-pronoun heads, "O" ignored; ties -> alphabetically first; none -> OTHER."""
    labels = [r.mention_ner for r in non_pronouns(records) if r.mention_ner != NO_NER]
    return majority(labels) if labels else OTHER_TYPE
