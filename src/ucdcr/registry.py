"""Dataset registry: dataset id -> :class:`DatasetSpec`.

Each module in ``ucdcr.datasets`` declares one dataset with :func:`register` (a short, declarative module:
names, licence, structure rules, and which format reader turns its raw files into a
:class:`~ucdcr.records.SourceCorpus`). Its raw files (URL, size, sha256, licence, or manual steps) are in the
package manifest ``ucdcr/manifests/<id>.json`` (see :mod:`ucdcr.download`).

Registering an id twice raises. Dataset modules are imported lazily, on first lookup, so ``ucdcr datasets``
starts fast.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ucdcr.errors import UnknownDatasetError
from ucdcr.records import MentionKind, SourceCorpus

# The 12 uCDCR datasets, in the paper's order of ids (lower case).
DATASET_IDS: tuple[str, ...] = (
    "cd2cr",
    "cerec",
    "ecbplus",
    "ecbplus_metam",
    "fcct",
    "gvc",
    "hypercoref",
    "meantime",
    "newswcl50r",
    "nident",
    "np4e",
    "wec_eng",
)

ContextRule = Literal["first_token", "last_token", "paragraph"]


@dataclass(frozen=True)
class ReadOptions:
    """Options a reader may honour. ``extra`` carries dataset-specific options (e.g. ``{"all_sentences": True}``
    for ECB+, ``{"texts_dir": Path}`` for NewsWCL50r)."""

    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DatasetSpec:
    """The declaration of one dataset.

    read: raw dataset folder (``<raw-dir>/<raw_folder>``) + options -> SourceCorpus. Raises
        :class:`~ucdcr.errors.MissingRawData` naming the missing files when the raw files are not there.
    finalize: optional hook run on the enriched unified mention records (dicts with the 29 fields) before
        validation, for rules that need heads/NER (e.g. NP4E's cross-document chain merge and chain types).
        Returns the records to keep and the DroppedMentions it removed. A record may be given the extra key
        "_kind" ("event" or "entity") to choose its output file (default: the SourceMention's kind).
    topic_level: the dataset has cross-subtopic chains, so the baseline also evaluates per topic.
    context_rule: REFERENCE.md §2.3 window variant ("first_token" default, "last_token" NewsWCL50r,
        "paragraph" WEC-Eng).
    reparse: False where the original tokenization is kept (HyperCoref, WEC-Eng).
    """

    id: str
    paper_name: str
    reference_name: str  # the name in the authors' code and CSVs, e.g. "ECBplus"
    raw_folder: str  # folder under the raw dir, laid out like ../shared/raw
    mention_kinds: tuple[MentionKind, ...]
    licence: str
    read: Callable[[Path, ReadOptions], SourceCorpus]
    description: str = ""
    texts_redistributable: bool = True
    topic_level: bool = False
    context_rule: ContextRule = "first_token"
    reparse: bool = True
    finalize: Callable[[list[dict[str, Any]]], tuple[list[dict[str, Any]], list[Any]]] | None = None
    mention_id_prefix: str = ""


_REGISTRY: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec) -> DatasetSpec:
    """Add a dataset; a second registration of the same id is an error."""
    if spec.id in _REGISTRY:
        raise ValueError(f"dataset {spec.id!r} is registered twice")
    if spec.id not in DATASET_IDS:
        raise ValueError(f"dataset {spec.id!r} is not one of the uCDCR datasets {DATASET_IDS}")
    _REGISTRY[spec.id] = spec
    return spec


def normalize_id(name: str) -> str:
    """A dataset name as an id: lower case, "-" -> "_", "+" -> "plus" ("ECB+" -> "ecbplus", "WEC-Eng" -> "wec_eng")."""
    return name.lower().replace("-", "_").replace("+", "plus")


def get(dataset_id: str) -> DatasetSpec:
    """The spec of a dataset id (case-insensitive); unknown ids raise an error listing the valid ones."""
    key = normalize_id(dataset_id)
    if key not in DATASET_IDS:
        raise UnknownDatasetError(f"unknown dataset {dataset_id!r}; valid ids: {', '.join(DATASET_IDS)}")
    if key not in _REGISTRY:
        importlib.import_module(f"ucdcr.datasets.{key}")
    return _REGISTRY[key]


def all_specs() -> list[DatasetSpec]:
    """Every registered dataset, importing the dataset modules that exist."""
    specs = []
    for key in DATASET_IDS:
        try:
            specs.append(get(key))
        except ModuleNotFoundError as exc:
            if exc.name != f"ucdcr.datasets.{key}":
                raise
    return specs
