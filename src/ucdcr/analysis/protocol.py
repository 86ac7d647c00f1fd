"""The evaluation protocols: how a clustering of a dataset's mentions is scored.

Two protocols (:class:`Protocol`; every number names the one it was computed with):

- ``ucdcr`` (the default): the uCDCR paper's protocol (Tables 6, 7, 13), steps 1-4 below.
- ``standard``: the protocol of the published ECB+ results (Barhom et al. 2019, Cattan et al. 2021, Held et al.
  2021, Ahmed et al. 2023): every gold mention of the split is scored, singletons included in key and response;
  the system clusters within topics (gold topics, or document clusters it predicts itself: ``topics="predicted"``);
  the whole split is scored as ONE meta-document with the v8.01 metrics, per type (events, entities) and both
  types together. Variant ``singletons=False`` (Cattan et al. 2021's "singletons removed"): chains with one mention
  are removed from the key and the response before scoring (:func:`ucdcr.scoring.drop_singletons`). A standard
  result has one setting per type, at level ``topic`` with the unit ``"meta-document"``.

What a system is shown never depends on the protocol: every mention of the split (the protocol selects only what
is scored, from key and response alike).

The ucdcr protocol:

1. Mentions: the test split (event and entity files); drop every mention flagged is_singleton; then keep a chain
   only if it has more than one remaining mention in some subtopic or in some topic (so fragments of a
   cross-subtopic chain can remain as gold singletons at subtopic level, as in the reference numbers).
2. Settings: one per subtopic_id with events and entities together (type ""), plus one per (subtopic_id, type)
   when both types remain; for datasets with cross-subtopic chains also one per topic_id (and per (topic_id, type)).
   Settings with fewer than 2 mentions are skipped.
3. Each setting is one pseudo-document scored with the metrics of the CoNLL F1 (MUC, B3 and CEAFe,
   :data:`ucdcr.scoring.CONLL`), printed as the CoNLL-2012 scorer v8.01 prints them: R, P and F1 truncated to 2
   decimals (F1 from the exact R and P); CoNLL = mean of the three truncated F1s, to 3 decimals. The columns are
   named as in the authors' result CSVs (:data:`SCORE_COLUMNS`: ``R_MUC`` ... ``F1_CEAF_E``, ``F1_CONLL``).
4. A dataset's value at a level and type is the unweighted mean over its settings of each column (so its CoNLL is
   the mean of the settings' CoNLL values, each already rounded to 3 decimals, not the mean of the three mean F1
   values: they can differ in the 4th decimal); a single-type dataset's joint mean is repeated under its type. The
   uCDCR row is the unweighted mean of the dataset means.

A system's clustering is a cluster label per mention (:func:`run_protocol`); the same-head-lemma baseline is one
(:mod:`ucdcr.analysis.baseline`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from statistics import fmean
from typing import Literal

import numpy as np
import pyarrow as pa

from ucdcr.analysis.chains import chain_ids
from ucdcr.io.load import KIND_COLUMN, load_columns, load_mentions
from ucdcr.io.one_build import consistent
from ucdcr.scoring import CONLL, score_clusters, score_documents, truncate_percent
from ucdcr.scoring.bootstrap import (
    RESAMPLES,
    Comparison,
    Interval,
    Method,
    UnitData,
    UnitValues,
    intervals,
    paired,
    split_units,
    unit_counts,
)

Level = Literal["subtopic", "topic"]
LEVELS: tuple[Level, ...] = ("subtopic", "topic")
TYPES = ("", "event", "entity")  # "" = joint (events and entities together)
PROTOCOL_METRICS = CONLL.parts
"""The metrics each setting is scored with: those of the CoNLL F1."""
PARTS = ("R", "P", "F1")
SCORE_COLUMNS: tuple[str, ...] = (
    *(metric.column(part) for metric in PROTOCOL_METRICS for part in PARTS),
    CONLL.column,
)
"""A setting's scores, named as in the authors' CSVs: R_MUC, P_MUC, F1_MUC, ..., F1_CEAF_E, F1_CONLL."""
MENTION_COLUMNS: tuple[str, ...] = ("R_MD", "P_MD", "F1_MD")
"""Mention detection (v8.01's mention identification, exact spans), added to a setting's scores when it is scored
with a response as given (``responses`` of :func:`run_protocol`: predicted mentions, see
:mod:`ucdcr.analysis.evaluate`)."""
MENTION_DETECTION = "mentions"
"""The unit counts' name of mention detection (its columns: :data:`MENTION_COLUMNS`)."""
META_DOCUMENT = "meta-document"
"""The unit of the standard protocol's settings: the whole split as one document."""


class ProtocolName(StrEnum):
    """The protocols (module docstring)."""

    UCDCR = "ucdcr"
    STANDARD = "standard"


TopicSource = Literal["gold", "predicted"]
TOPIC_SOURCES: tuple[TopicSource, ...] = ("gold", "predicted")


@dataclass(frozen=True)
class Protocol:
    """How a benchmark or an evaluation is scored (module docstring).

    name: ``ucdcr`` or ``standard``; level (ucdcr only): the unit a system clusters and the settings scored,
    ``subtopic`` or ``topic``; topics (standard only): cluster within ``gold`` topics or ``predicted`` document
    clusters; singletons (standard only): keep singletons in key and response (False: removed from both).
    """

    name: ProtocolName = ProtocolName.UCDCR
    level: Level = "subtopic"
    topics: TopicSource = "gold"
    singletons: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", ProtocolName(self.name))
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; valid levels: {', '.join(LEVELS)}")
        if self.topics not in TOPIC_SOURCES:
            raise ValueError(f"unknown topics {self.topics!r}; valid: {', '.join(TOPIC_SOURCES)}")
        if self.name is ProtocolName.UCDCR and (self.topics != "gold" or not self.singletons):
            raise ValueError("predicted topics and removed singletons are options of the standard protocol")
        if self.name is ProtocolName.STANDARD and self.level != "topic":
            object.__setattr__(self, "level", "topic")  # the standard protocol clusters within topics

    @property
    def standard(self) -> bool:
        return self.name is ProtocolName.STANDARD

    @property
    def unit_column(self) -> str:
        """The mention field naming the unit a system clusters within (predicted topics: :data:`PREDICTED_TOPIC`)."""
        if self.topics == "predicted":
            return PREDICTED_TOPIC
        return "topic_id" if self.level == "topic" else "subtopic_id"

    @property
    def label(self) -> str:
        """A short name for tables and files, e.g. ``ucdcr/subtopic`` or ``standard/predicted-topics/no-singletons``."""
        if not self.standard:
            return f"{self.name}/{self.level}"
        parts = [str(self.name), f"{self.topics}-topics"]
        if not self.singletons:
            parts.append("no-singletons")
        return "/".join(parts)

    @classmethod
    def from_label(cls, label: str) -> Protocol:
        """The protocol of a :attr:`label` (stored results name their protocol by it)."""
        name, _, rest = label.partition("/")
        options = rest.split("/") if rest else []
        if name == ProtocolName.UCDCR:
            return cls(ProtocolName.UCDCR, options[0] if options else "subtopic")  # type: ignore[arg-type]
        topics: TopicSource = "predicted" if "predicted-topics" in options else "gold"
        return cls(ProtocolName.STANDARD, "topic", topics, "no-singletons" not in options)

    def describe(self) -> str:
        """One line saying what is clustered and what is scored."""
        if not self.standard:
            return (
                f"uCDCR protocol: clustering within each {self.level}; non-singleton mentions of kept chains scored "
                f"per {self.level} (and type), unweighted mean over the settings"
            )
        singletons = "singletons kept" if self.singletons else "singletons removed from key and response"
        return (
            f"standard protocol: clustering within {self.topics} topics; every gold mention scored, {singletons}; "
            "the split as one meta-document (v8.01)"
        )


def protocol_order(label: str) -> tuple[int, str]:
    """Sort key of protocol labels: the ucdcr protocol first (subtopic before topic), then the standard ones."""
    return (0 if label.startswith(ProtocolName.UCDCR) else 1, label.replace("subtopic", "0"))


PREDICTED_TOPIC = "predicted_topic"
"""The column a benchmark adds with the document clusters a system clusters within (``topics="predicted"``)."""
UCDCR = Protocol()
STANDARD = Protocol(ProtocolName.STANDARD, "topic")

EVAL_FIELDS = ("coref_chain", "mention_id", "mention_head_lemma", "topic_id", "subtopic_id", "is_singleton", "split")
"""The mention fields loaded for the protocol (with ``type``): those it reads plus the baseline's head lemma."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One evaluation unit: a subtopic or topic, joint ("") or one type."""

    level: Level
    unit: str
    type: str


@dataclass(frozen=True)
class SettingResult:
    """The scores of one setting: SCORE_COLUMNS -> value (percentages as v8.01 prints them)."""

    setting: Setting
    mentions: int
    scores: dict[str, float]


@dataclass
class DatasetMean:
    """The mean of a dataset's settings at one level and type; ``settings`` = how many were averaged.

    ``units``: what its confidence interval is resampled from (:mod:`ucdcr.scoring.bootstrap`): under the ucdcr
    protocol each unit's F1 scores (subtopics or topics, the level's units), under the standard protocol each gold
    topic's counts (topics that a chain joins are one unit)."""

    dataset: str
    level: Level
    type: str
    settings: int
    scores: dict[str, float]
    duplicated_from_joint: bool = False
    units: UnitData | tuple[UnitData, ...] | None = field(default=None, compare=False)
    """(A mean over datasets: one per dataset.)"""

    def intervals(self, resamples: int = RESAMPLES) -> dict[str, Interval]:
        """The 95% bootstrap interval of each score column its units hold (every column of :data:`SCORE_COLUMNS`;
        the F1 columns alone for a run stored before ucdcr kept the others); none without units."""
        return column_intervals(self.units, resamples) if self.units is not None else {}


F1_COLUMNS: tuple[str, ...] = (*(metric.column("F1") for metric in PROTOCOL_METRICS), CONLL.column)
"""Each metric's F1 and the CoNLL F1."""
_COLUMN_OF = {
    **{metric.name: metric.column("F1") for metric in PROTOCOL_METRICS},
    CONLL.name: CONLL.column,
    **{f"{metric.name}/{part}": metric.column(part) for metric in PROTOCOL_METRICS for part in ("R", "P")},
    **dict(zip((f"{MENTION_DETECTION}/R", f"{MENTION_DETECTION}/P", MENTION_DETECTION), MENTION_COLUMNS, strict=True)),
}
"""The columns of :mod:`ucdcr.scoring.bootstrap`'s unit counts -> the protocol's score columns."""


def column_comparisons(
    first: UnitData | Sequence[UnitData],
    second: UnitData | Sequence[UnitData],
    resamples: int = RESAMPLES,
    method: Method = "randomization",
) -> dict[str, Comparison]:
    """Paired comparisons (first - second) keyed by the protocol's F1 columns (:func:`ucdcr.scoring.bootstrap.paired`);
    {} when the two were scored on different units."""
    try:
        found = paired(first, second, resamples, method)
    except ValueError:
        return {}
    return {_COLUMN_OF.get(column, column): comparison for column, comparison in found.items()}


def column_intervals(units: UnitData | Sequence[UnitData], resamples: int = RESAMPLES) -> dict[str, Interval]:
    """Intervals keyed by the protocol's F1 columns (several unit data: of their unweighted mean)."""
    return {_COLUMN_OF.get(column, column): found for column, found in intervals(units, resamples).items()}


@dataclass
class ProtocolResult:
    """Everything the protocol gives for one dataset."""

    dataset: str
    topic_level: bool
    evaluated_mentions: int
    settings: list[SettingResult] = field(default_factory=list)
    means: list[DatasetMean] = field(default_factory=list)


def evaluation_rows(table: pa.Table, split: str = "test", protocol: Protocol = UCDCR) -> list[int]:
    """Rows of the mentions the protocol scores (ucdcr: step 1 of the module docstring; standard: every mention of
    the split). ``ucdcr evaluate`` may evaluate another split than test."""
    splits = table["split"].to_pylist()
    if protocol.standard:
        return [i for i, value in enumerate(splits) if value == split]
    chains = chain_ids(table)
    singleton = table["is_singleton"].to_pylist()
    topics = table["topic_id"].to_pylist()
    subtopics = table["subtopic_id"].to_pylist()
    remaining = [i for i in range(table.num_rows) if splits[i] == split and not singleton[i]]
    per_unit = Counter((chains[i], "s", subtopics[i]) for i in remaining)
    per_unit.update((chains[i], "t", topics[i]) for i in remaining)
    kept_chains = {chain for (chain, _, _), count in per_unit.items() if count > 1}
    return [i for i in remaining if chains[i] in kept_chains]


def unit_scoped(labels: Sequence[Hashable], units: Sequence[Hashable]) -> list[tuple[Hashable, Hashable]]:
    """Cluster labels made unique per unit: what a system that clusters within units means by its labels, once
    several units are scored as one meta-document (the standard protocol)."""
    return list(zip(units, labels, strict=True))


def load_for_protocol(folder: Path, split: str = "test", extra_fields: Sequence[str] = ()) -> tuple[pa.Table, bool]:
    """A dataset's test (or ``split``) mentions for the protocol (EVAL_FIELDS, ``extra_fields`` and ``type``), and
    whether the ucdcr protocol also evaluates it per topic (it has chains that cross subtopics anywhere in it).
    Both come from one build, also while the dataset is rebuilt (:func:`ucdcr.io.one_build.consistent`)."""
    fields = [*EVAL_FIELDS, *(name for name in extra_fields if name not in EVAL_FIELDS)]

    def read() -> tuple[pa.Table, bool]:
        columns = load_columns(folder, ["coref_chain", "subtopic_id"])
        topic_level = has_cross_subtopic_chains(chain_ids(columns), columns["subtopic_id"].to_pylist())
        return load_mentions(folder, splits=(split,), columns=fields), topic_level

    return consistent([folder], read)


def has_cross_subtopic_chains(chains: Sequence[str], subtopics: Sequence[str]) -> bool:
    """True if some chain has mentions in two subtopics: such datasets are also evaluated per topic."""
    first_subtopic: dict[str, str] = {}
    for chain, subtopic in zip(chains, subtopics, strict=True):
        if first_subtopic.setdefault(chain, subtopic) != subtopic:
            return True
    return False


def settings_of(table: pa.Table, rows: Sequence[int], topic_level: bool) -> list[tuple[Setting, list[int]]]:
    """The settings with at least 2 mentions, each with its rows, sorted by level, unit and type."""
    kinds = table[KIND_COLUMN].to_pylist()
    units = {"subtopic": table["subtopic_id"].to_pylist(), "topic": table["topic_id"].to_pylist()}
    both_types = len({kinds[i] for i in rows}) > 1
    groups: dict[Setting, list[int]] = {}
    for level in LEVELS if topic_level else ("subtopic",):
        for i in rows:
            groups.setdefault(Setting(level, units[level][i], ""), []).append(i)
            if both_types:
                groups.setdefault(Setting(level, units[level][i], kinds[i]), []).append(i)
    order = {level: n for n, level in enumerate(LEVELS)}
    ranked = sorted(groups.items(), key=lambda item: (order[item[0].level], TYPES.index(item[0].type), item[0].unit))
    return [(setting, members) for setting, members in ranked if len(members) >= 2]


def _clusters(rows: Sequence[int], labels: Sequence[Hashable]) -> list[list[int]]:
    grouped: dict[Hashable, list[int]] = {}
    for row in rows:
        grouped.setdefault(labels[row], []).append(row)
    return list(grouped.values())


def score_setting(
    rows: Sequence[int],
    gold: Sequence[Hashable],
    predicted: Sequence[Hashable],
    remove_singletons: bool = False,
    response: Iterable[Iterable[Hashable]] | None = None,
    key: Sequence[Sequence[int]] | None = None,
) -> dict[str, float]:
    """MUC, B3, CEAFe and CoNLL of one setting, truncated like v8.01's printout (step 3), by SCORE_COLUMNS;
    ``remove_singletons``: one-mention chains of key and response removed first. ``response``: the response
    clusters as given (row numbers and mentions of no row) instead of ``predicted`` of ``rows``; the scores then
    add mention detection (MENTION_COLUMNS). ``key``: the gold clusters of ``rows``, when made already."""
    names = [metric.name for metric in PROTOCOL_METRICS]
    given = _clusters(rows, predicted) if response is None else response
    key = _clusters(rows, gold) if key is None else key
    scores = score_clusters(key, given, names, remove_singletons=remove_singletons)
    result: dict[str, float] = {}
    for metric in PROTOCOL_METRICS:
        score = scores[metric.name]
        for part, value in zip(PARTS, (score.recall, score.precision, score.f1), strict=True):
            result[metric.column(part)] = truncate_percent(value)
    f1s = [result[metric.column("F1")] for metric in PROTOCOL_METRICS]
    result[CONLL.column] = float(format(sum(f1s) / len(f1s), ".3f"))
    if response is not None:
        found = scores.mentions
        for column, value in zip(MENTION_COLUMNS, (found.recall, found.precision, found.f1), strict=True):
            result[column] = truncate_percent(value)
    return result


Responses = Callable[[Setting, Sequence[int]], Sequence[Sequence[Hashable]]]
"""A setting's response clusters as given (predicted mentions): from the setting and its rows, clusters of row
numbers and of mentions that are no row (a system's twinless mentions)."""


def run_protocol(
    dataset: str,
    table: pa.Table,
    predicted: Sequence[Hashable],
    topic_level: bool,
    split: str = "test",
    protocol: Protocol = UCDCR,
    responses: Responses | None = None,
    response_topics: Mapping[Hashable, str] | None = None,
) -> ProtocolResult:
    """Score a clustering of ``table``'s rows (``predicted[i]`` = cluster label of row i) with the protocol.

    ``table`` needs EVAL_FIELDS and ``type``; only its evaluated rows of ``split`` are read from ``predicted``.
    topic_level (ucdcr protocol): whether topic-level settings are scored too. responses (predicted mentions):
    each setting's response clusters as given, scored instead of ``predicted`` (:func:`score_setting`);
    response_topics (standard protocol): the gold topic of each of their mentions that is no row, for the units of
    the intervals (:func:`topic_counts`).
    """
    plan = plan_protocol(dataset, table, topic_level, split, protocol)
    return score_plan(plan, predicted, responses, response_topics)


@dataclass(frozen=True)
class ProtocolPlan:
    """What the protocol takes from a split's gold alone (:func:`plan_protocol`): made once, it scores any number
    of clusterings of the split (:func:`score_plan`), as a system's tuning on val does."""

    dataset: str
    protocol: Protocol
    topic_level: bool
    rows: list[int]
    """The rows scored (:func:`evaluation_rows`)."""
    gold: list[str]
    """Each row's gold chain (standard protocol: per kind)."""
    settings: list[tuple[Setting, list[int], list[list[int]]]]
    """Each setting scored, with its rows and their gold clusters."""
    kinds: list[str]
    topics: list[str] | None
    """Standard protocol: each row's gold topic, the units of its intervals (:func:`topic_counts`); else None."""


def plan_protocol(
    dataset: str, table: pa.Table, topic_level: bool, split: str = "test", protocol: Protocol = UCDCR
) -> ProtocolPlan:
    """The settings, rows and gold clusters of ``table``'s ``split`` under the protocol (arguments as
    :func:`run_protocol`). Standard protocol: the split as one meta-document, both types together and each type
    alone."""
    rows = evaluation_rows(table, split, protocol)
    all_kinds = table[KIND_COLUMN].to_pylist()
    if not protocol.standard:
        gold = chain_ids(table)
        settings = settings_of(table, rows, topic_level)
        kinds = sorted({all_kinds[i] for i in rows})
        topics = None
    else:
        gold = chain_ids(table, by_kind=True)  # an event and an entity never share a gold chain
        kinds = sorted({all_kinds[i] for i in rows}, key=TYPES.index)
        settings = [
            (Setting("topic", META_DOCUMENT, kind), [i for i in rows if not kind or all_kinds[i] == kind])
            for kind in (("", *kinds) if len(kinds) > 1 else ("",))
        ]
        topic_level, topics = True, table["topic_id"].to_pylist()
    planned = [(setting, members, _clusters(members, gold)) for setting, members in settings]
    return ProtocolPlan(dataset, protocol, topic_level, rows, gold, planned, kinds, topics)


def score_plan(
    plan: ProtocolPlan,
    predicted: Sequence[Hashable],
    responses: Responses | None = None,
    response_topics: Mapping[Hashable, str] | None = None,
    by_topic: bool = True,
) -> ProtocolResult:
    """Score a clustering of the planned split's rows (arguments as :func:`run_protocol`). ``by_topic=False``: the
    standard protocol's means get no per-topic counts (their intervals' units), for a caller that reads the scores
    alone (a system's tuning)."""
    remove_singletons = plan.protocol.standard and not plan.protocol.singletons
    result = ProtocolResult(plan.dataset, plan.topic_level, len(plan.rows))
    topics = plan.topics if by_topic else None
    units: dict[str, UnitData] = {}
    for setting, members, key in plan.settings:
        response = responses(setting, members) if responses is not None else None
        scores = score_setting(members, plan.gold, predicted, remove_singletons, response, key)
        result.settings.append(SettingResult(setting, len(members), scores))
        if topics is not None:
            units[setting.type] = topic_counts(
                members, plan.gold, predicted, topics, remove_singletons, response, response_topics, key
            )
    by_topic_units = units if topics is not None else None
    result.means = dataset_means(plan.dataset, result.settings, set(plan.kinds), by_topic_units)
    return result


def topic_counts(
    rows: Sequence[int],
    gold: Sequence[Hashable],
    predicted: Sequence[Hashable],
    topics: Sequence[str],
    remove_singletons: bool = False,
    response: Sequence[Sequence[Hashable]] | None = None,
    response_topics: Mapping[Hashable, str] | None = None,
    key: Sequence[Sequence[int]] | None = None,
) -> UnitData:
    """The meta-document's counts per gold topic (topics a key or response chain joins are one unit): the scores
    of the standard protocol summed over them (:mod:`ucdcr.scoring.bootstrap`). ``response``: the response
    clusters as given (:func:`score_setting`), with ``response_topics`` the topic of each mention that is no row;
    ``key``: the gold clusters of ``rows``, when made already."""
    given = _clusters(rows, predicted) if response is None else response
    key = _clusters(rows, gold) if key is None else key
    parts = split_units(key, given, {**(response_topics or {}), **{row: topics[row] for row in rows}})
    documents = {"+".join(names): (key, response) for names, key, response in parts}
    names = [metric.name for metric in PROTOCOL_METRICS]
    scored = score_documents(documents, names, remove_singletons=remove_singletons, per_document=True)
    by_unit = {name: dict(scored.by_document[name].metrics) for name in documents}
    if response is not None:  # a response as given (predicted mentions): mention detection too
        for name in documents:
            by_unit[name][MENTION_DETECTION] = scored.by_document[name].mentions
    return unit_counts(by_unit, {"+".join(names): names for names, _, _ in parts})


def dataset_means(
    dataset: str, settings: Sequence[SettingResult], kinds: set[str], units: Mapping[str, UnitData] | None = None
) -> list[DatasetMean]:
    """Step 4: unweighted means per level and type; single-type datasets repeat the joint mean under their type.

    Each mean's units for its interval: ``units[type]`` when given (the standard protocol's topic counts), else
    the settings' F1 scores per unit of the level (:func:`setting_values`)."""
    means = []
    for level in LEVELS:
        for kind in TYPES if len(kinds) > 1 else ("",):
            chosen = [s.scores for s in settings if s.setting.level == level and s.setting.type == kind]
            if chosen:
                unit_data = units[kind] if units is not None else setting_values(settings, level, kind)
                means.append(DatasetMean(dataset, level, kind, len(chosen), _mean_scores(chosen), units=unit_data))
        if len(kinds) == 1 and means and means[-1].level == level:
            joint = means[-1]
            means.append(
                DatasetMean(dataset, level, next(iter(kinds)), joint.settings, joint.scores, True, joint.units)
            )
    return means


def setting_values(settings: Sequence[SettingResult], level: Level, kind: str) -> UnitValues:
    """The scores of the settings of one type (:data:`SCORE_COLUMNS`, and mention detection where the settings
    have it), one row per unit of the level (every unit with a setting of any type; NaN where the unit has none of
    this type): the ucdcr protocol's mean is their mean over the units."""
    units = sorted({s.setting.unit for s in settings if s.setting.level == level})
    position = {unit: index for index, unit in enumerate(units)}
    chosen = [s for s in settings if s.setting.level == level and s.setting.type == kind]
    columns = SCORE_COLUMNS + (MENTION_COLUMNS if chosen and MENTION_COLUMNS[0] in chosen[0].scores else ())
    values = np.full((len(units), len(columns)), np.nan)
    for s in chosen:
        values[position[s.setting.unit]] = [s.scores[column] for column in columns]
    return UnitValues(tuple(units), columns, values)


def _mean_scores(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    return {column: fmean(row[column] for row in rows) for column in SCORE_COLUMNS}


def ucdcr_means(means: Sequence[DatasetMean]) -> list[DatasetMean]:
    """The uCDCR rows: per level and type, the unweighted mean over datasets; ``settings`` = number of datasets."""
    result = []
    for level in LEVELS:
        for kind in TYPES:
            chosen = [m for m in means if m.level == level and m.type == kind]
            if chosen:
                parts = tuple(m.units for m in chosen if m.units is not None and not isinstance(m.units, tuple))
                scores = _mean_scores([m.scores for m in chosen])
                units = parts if len(parts) == len(chosen) else None
                result.append(DatasetMean("uCDCR", level, kind, len(chosen), scores, units=units))
    return result
