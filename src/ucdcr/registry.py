"""Dataset registry: the one declaration of each dataset (:class:`DatasetSpec`), its typed reader options, and
how datasets are found.

Each dataset is declared ONCE: its module (``ucdcr/datasets/<id>.py``) registers a :class:`DatasetSpec` with
:func:`register` (paper name, the authors' folder name, mention kinds, which corpus it re-annotates, structure
rules, its reader options, the counts a complete build gives and where they come from, and the format reader
that turns its raw files into a :class:`~ucdcr.records.SourceCorpus`); its manifest (``ucdcr/manifests/<id>.json``,
parsed once into a :class:`~ucdcr.manifest.Manifest`) holds its raw files and their licence, homepage and manual
steps. Every other place derives from these two: the loader's authors' folder names and event/entity rules
(:mod:`ucdcr.io.load`), the uCDCR sums of Table 2, ``ucdcr datasets``, the central raw-file check, the integration
tests' counts.

Discovery: the dataset ids are the module names of the package ``ucdcr.datasets`` (names starting with ``_`` are
not datasets) and the names of the entry points of the group :data:`ENTRY_POINT_GROUP` (a third-party package
declares ``[project.entry-points."ucdcr.datasets"] mydataset = "mypackage.mydataset"``); a module is imported on
the first lookup of its id, so listing ids imports nothing. A module imported any other way may simply call
:func:`register`. Registering an id twice is an error. Datasets are listed in the paper's order: alphabetical by
paper name, ignoring case.

The ids are held by a :class:`ucdcr.registries.Registry`, the registry class the systems use too (and why it is
not ``catalogue``, spaCy's registry library).

Gold fields: each dataset declares which mention fields are gold-derived (:attr:`DatasetSpec.gold_fields`), i.e.
derived from the chains or from annotation beyond the spans, so hidden from a system at test time; the rest of a
record is the span, its document and what the pipeline computes from the text. :data:`GOLD_FIELDS` is the set every
dataset has; :func:`gold_fields_of` gives a dataset's declaration (the default set for a folder that is no
registered dataset).

Reader options are typed: :class:`ReadOptions` holds those of every dataset (``partial``); a dataset with options
of its own declares a frozen dataclass deriving from it (:attr:`DatasetSpec.options`). :meth:`DatasetSpec.read_options`
builds them from ``KEY=VALUE`` strings or Python values: an unknown option is an error listing the valid ones, a
value that does not fit names the option and the expected type.

Raw files: before a reader runs, :meth:`DatasetSpec.check_raw_files` (:func:`require_raw_files`) checks, existence
only, every required entry and one_of group of the manifest, all at once (:meth:`~ucdcr.manifest.Manifest.missing`),
and raises :class:`~ucdcr.errors.MissingRawData` naming each missing one with the manual steps. What only the
reader can tell (a folder without the files it should hold) it reports the same way (:func:`missing_raw_data`).
Fetching and verifying the files is :mod:`ucdcr.sources.download`'s, above this module.
"""

from __future__ import annotations

import enum
import importlib
import importlib.metadata
import importlib.util
import pkgutil
import re
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from ucdcr.errors import MissingRawData, UcdcrError, UnknownDatasetError
from ucdcr.manifest import Manifest
from ucdcr.records import (
    ROW_FIELDS,
    SPLITS,
    DroppedMention,
    MentionKey,
    MentionKind,
    MentionRecord,
    SourceCorpus,
)
from ucdcr.registries import Registry

DATASETS_PACKAGE = "ucdcr.datasets"
ENTRY_POINT_GROUP = "ucdcr.datasets"
AUTHORS_PREP_SUFFIX = "-prep"
"""What the authors append to a dataset's folder name for their preprocessed copy (``NP4E-prep``)."""


class ContextRule(enum.Enum):
    """How the ±100-token context window of a mention is cut (implemented by :mod:`ucdcr.pipeline.context`).

    AROUND_FIRST_TOKEN: the sentences from 100 tokens before to 100 tokens after the mention's first token; the
        mention sentence's end in the window is exclusive (the main rule).
    TO_LAST_TOKEN: as above, but the right edge counts from the mention's LAST token and the mention sentence's
        end is inclusive (NewsWCL50r).
    AROUND_FIRST_TOKEN_BY_PARAGRAPH: as the main rule, but the window starts at the document start whenever the
        mention's first token is among the first 100 tokens of its paragraph (WEC-Eng, whose "sentences" are
        paragraphs).
    """

    AROUND_FIRST_TOKEN = "around first token"
    TO_LAST_TOKEN = "to last token"
    AROUND_FIRST_TOKEN_BY_PARAGRAPH = "around first token, by paragraph"


# --- reader options ------------------------------------------------------------------------------------------

_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off", ""})


@dataclass(frozen=True)
class ReadOptions:
    """The reader options of every dataset. A dataset with options of its own derives a frozen dataclass from
    this one and declares it as :attr:`DatasetSpec.options`; each field is one option (bool, int, str, Path,
    ``Path | None`` or ``tuple[str, ...]``), with its default.

    partial: build what is there when the raw files lack a part the dataset declares; the notes (hence the build
        report) name what is missing (:mod:`ucdcr.formats.corpus_checks`).
    """

    partial: bool = False

    def given(self) -> dict[str, Any]:
        """The options that differ from their defaults (what the build report lists)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != f.default}


def option_names(options: type[ReadOptions]) -> list[str]:
    """The names of a reader-options class, sorted."""
    return sorted(f.name for f in fields(options))


def build_options(options: type[ReadOptions], values: Mapping[str, object], dataset: str) -> ReadOptions:
    """``options`` built from ``values`` (strings as on the command line, or Python values), every one checked."""
    unknown = sorted(set(values) - set(option_names(options)))
    if unknown:
        raise UcdcrError(
            f"unknown reader option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for {dataset}; "
            f"valid: {', '.join(option_names(options))}"
        )
    hints = typing.get_type_hints(options)
    return options(**{name: _option_value(name, value, hints[name]) for name, value in values.items()})


def _option_value(name: str, value: object, kind: Any) -> Any:
    """``value`` as the type ``kind`` of option ``name`` (see :class:`ReadOptions` for the supported types)."""
    if type(None) in typing.get_args(kind):  # ``X | None``
        if value is None:
            return None
        kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
    convert = _CONVERTERS.get(typing.get_origin(kind) or kind)
    converted = convert(value) if convert else None
    if converted is None:
        raise UcdcrError(f"reader option {name}={value!r}: expected {_EXPECTED.get(kind, kind)}")
    return converted


def _to_bool(value: object) -> bool | None:
    text = str(value).strip().lower()
    return value if isinstance(value, bool) else (text in _TRUE) if text in _TRUE | _FALSE else None


def _to_int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return int(value) if isinstance(value, str) and value.strip().lstrip("-").isdigit() else None


def _to_path(value: object) -> Path | None:
    return Path(value) if isinstance(value, str | Path) and str(value) else None


def _to_names(value: object) -> tuple[str, ...] | None:
    """A list, or one comma-separated string (never read letter by letter)."""
    items = value.split(",") if isinstance(value, str) else value
    return tuple(str(item).strip() for item in items if str(item).strip()) if isinstance(items, list | tuple) else None


_CONVERTERS: dict[Any, Callable[[object], Any]] = {
    bool: _to_bool,
    int: _to_int,
    Path: _to_path,
    tuple: _to_names,
    str: lambda value: value if isinstance(value, str) else None,
}
_EXPECTED: dict[Any, str] = {
    bool: "true or false",
    int: "an integer",
    Path: "a path",
    tuple[str, ...]: "a list or a comma-separated string",
    str: "a string",
}


# --- counts a complete build gives ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectedCount:
    """A count that a complete build of the dataset from its published raw files gives, and where the number
    comes from (a paper table, a reference file, or "measured on our build" with what was counted).

    key: a count of the build report: a key of ``BuildReport.counts`` (``mentions_written``,
        ``reader_sentence_boundaries_joined``), ``<split>.<count>`` of ``BuildReport.splits`` (``test.mentions``),
        or a count of the splits without a split (``chains``, ``event_mentions``: the sum over the splits).
    """

    key: str
    value: int
    source: str


def report_count(counts: Mapping[str, int], splits: Mapping[str, Mapping[str, int]], key: str) -> int | None:
    """The value of an :class:`ExpectedCount` key in a build report's counts and split counts (None: not there)."""
    split, _, name = key.rpartition(".")
    if split:
        return splits.get(split, {}).get(name)
    if key in counts:
        return counts[key]
    values = [per_split[key] for per_split in splits.values() if key in per_split]
    return sum(values) if values else None


# --- gold-derived mention fields ------------------------------------------------------------------------------

GOLD_FIELDS: tuple[str, ...] = (
    "coref_chain",
    "is_singleton",
    "description",
    "coref_type",
    "mention_type",
    "mention_full_type",
)
"""The mention fields that are gold-derived in every dataset: the chain and what follows from it (``is_singleton``,
the chain's ``description``, the relation ``coref_type``) and the annotated types (``mention_type``,
``mention_full_type``: annotation beyond the span; NP4E, NIdent, CD2CR, CEREC, MEANTIME and HyperCoref even take them
from the chain)."""


# --- the declaration -----------------------------------------------------------------------------------------

Reader = Callable[[Path, Any], SourceCorpus]
Finalize = Callable[[list[MentionRecord]], tuple[list[MentionRecord], list[DroppedMention]]]
ChainTypes = Callable[[Iterable[MentionKey]], Mapping[str, tuple[str, MentionKind]]]


@dataclass(frozen=True)
class DatasetSpec:
    """The declaration of one dataset.

    id: lower case, ``_`` for separators (:func:`normalize_id`); also the module and manifest name.
    paper_name: the name in the paper's tables (``NP4E_cd``); datasets are listed alphabetically by it.
    authors_folder: the authors' name of the dataset folder in their code and release (``ECBplus``, ``WECEng``).
    raw_folder: the folder under the raw dir holding the raw files (laid out like the manifest says).
    mention_kinds: the output files it has (event and/or entity mentions).
    reader: raw dataset folder (``<raw-dir>/<raw_folder>``) + options -> SourceCorpus (:meth:`read` runs it after
        the central check of the manifest's required files).
    options: the class of its reader options (:class:`ReadOptions` or a frozen dataclass deriving from it).
    reannotates: the id of the corpus whose documents it re-annotates (NIdent: NP4E), or None. The uCDCR sums of
        documents, topics and tokens (Table 2) leave it out.
    authors_event_chains: the rule the authors' parsers used to put a mention in the event file, as a pattern of
        its chain id, where the file cannot be told otherwise (their parquet without JSON files); datasets with
        one mention kind need none.
    texts_redistributable: False where no token table (all_documents.parquet) may be written.
    context_rule: how context windows are cut (:class:`ContextRule`).
    reparse: False where the original tokenization is kept (HyperCoref, WEC-Eng).
    finalize: optional hook over the enriched records (:class:`~ucdcr.records.MentionRecord`, before validation)
        for rules that need heads or NER (e.g. NP4E's cross-document chain merge and chain types): takes the
        records, returns the records to keep and the :class:`~ucdcr.records.DroppedMention` it removed. It holds
        every record of the dataset at once: for small datasets.
    chain_types: optional rule that types each chain from the compact keys of its mentions
        (:class:`~ucdcr.records.MentionKey`: id, chain, kind, head POS, NER) and returns chain -> (full type, kind);
        the build applies it record by record while writing, so its memory is bounded by the keys, not the records
        (HyperCoref, whose full corpus has millions of mentions).
    mention_id_prefix: prefix of every mention id (``NP4E_``).
    gold_fields: the mention fields derived from the gold chains or from annotation beyond the spans, which a system
        must not see at test time (:data:`GOLD_FIELDS`, plus what the dataset's source annotates beyond the span,
        e.g. WEC-Eng's heads). Every dataset module states it, the default or a tuple with the reason; registering
        checks that it holds :data:`GOLD_FIELDS` and names only mention fields.
    expected_counts: what a complete build with the default options gives (:class:`ExpectedCount`); the build
        reports any difference and the integration tests check them.
    manifest_file: the manifest, when not the packaged ``ucdcr/manifests/<id>.json`` (a dataset declared outside
        ucdcr).
    """

    id: str
    paper_name: str
    authors_folder: str
    raw_folder: str
    mention_kinds: tuple[MentionKind, ...]
    reader: Reader
    options: type[ReadOptions] = ReadOptions
    reannotates: str | None = None
    authors_event_chains: re.Pattern[str] | None = None
    texts_redistributable: bool = True
    context_rule: ContextRule = ContextRule.AROUND_FIRST_TOKEN
    reparse: bool = True
    finalize: Finalize | None = None
    chain_types: ChainTypes | None = None
    mention_id_prefix: str = ""
    gold_fields: tuple[str, ...] = GOLD_FIELDS
    expected_counts: tuple[ExpectedCount, ...] = ()
    manifest_file: Path | None = field(default=None, compare=False)

    @cached_property
    def manifest(self) -> Manifest:
        """The raw-file manifest, parsed once (:class:`~ucdcr.manifest.Manifest`)."""
        if self.manifest_file is not None:
            return Manifest.read(Path(self.manifest_file))
        return Manifest.packaged(self.id)

    @property
    def licence(self) -> str:
        """The licence of the raw files, as the manifest states it."""
        return self.manifest.licence

    @property
    def citation(self) -> tuple[str, ...]:
        """The references to cite for the original corpus, as the manifest lists them."""
        return self.manifest.citation

    def read_options(self, values: ReadOptions | Mapping[str, object] | None = None) -> ReadOptions:
        """The dataset's reader options from ``values`` (see :func:`build_options`); given options are checked to
        be of the dataset's class."""
        if values is None:
            return self.options()
        if isinstance(values, ReadOptions):
            if not isinstance(values, self.options):
                raise UcdcrError(
                    f"{self.id}: reader options must be {self.options.__name__}, got {type(values).__name__}"
                )
            return values
        return build_options(self.options, values, self.id)

    def check_raw_files(self, folder: Path, options: ReadOptions | Mapping[str, object] | None = None) -> None:
        """MissingRawData naming every required raw file of the manifest that is not in ``folder``, with the manual
        steps (:func:`require_raw_files`)."""
        require_raw_files(self, Path(folder), self.read_options(options))

    def read(self, folder: Path, options: ReadOptions | Mapping[str, object] | None = None) -> SourceCorpus:
        """Check the raw files (:meth:`check_raw_files`), then run the reader on ``folder``; the whole corpus in
        memory (a streaming reader's documents drained, :meth:`~ucdcr.records.SourceCorpus.materialized`)."""
        checked = self.read_options(options)
        self.check_raw_files(folder, checked)
        return self.reader(Path(folder), checked).materialized()

    def expected(self, key: str) -> int:
        """The declared value of an expected count."""
        for count in self.expected_counts:
            if count.key == key:
                return count.value
        raise KeyError(f"{self.id} declares no expected count {key!r}")

    def count_differences(self, counts: Mapping[str, int], splits: Mapping[str, Mapping[str, int]]) -> list[str]:
        """Each expected count that a build report's counts and split counts do not reproduce, as a sentence."""
        differences = []
        for count in self.expected_counts:
            actual = report_count(counts, splits, count.key)
            if actual != count.value:
                differences.append(f"{count.key} is {actual}, declared {count.value} ({count.source})")
        return differences


# --- registration and discovery ------------------------------------------------------------------------------

_REGISTRY: Registry[DatasetSpec] = Registry("dataset", ENTRY_POINT_GROUP)


def register(spec: DatasetSpec) -> DatasetSpec:
    """Add a dataset; an id that is not normalized or is registered twice is an error."""
    if spec.id != normalize_id(spec.id):
        raise ValueError(f"dataset id {spec.id!r} is not normalized; use {normalize_id(spec.id)!r}")
    unknown = [
        split for split in {c.key.rpartition(".")[0] for c in spec.expected_counts} if split not in ("", *SPLITS)
    ]
    if unknown:
        raise ValueError(f"dataset {spec.id!r}: expected counts of unknown splits {unknown}")
    _check_gold_fields(spec)
    return _REGISTRY.register(spec.id, spec)


def _check_gold_fields(spec: DatasetSpec) -> None:
    """Gold fields name mention fields only and hold :data:`GOLD_FIELDS` (a ValueError says which do not)."""
    unknown = [name for name in spec.gold_fields if name not in ROW_FIELDS]
    if unknown:
        raise ValueError(f"dataset {spec.id!r}: gold fields {unknown} are not mention fields")
    missing = [name for name in GOLD_FIELDS if name not in spec.gold_fields]
    if missing:
        raise ValueError(f"dataset {spec.id!r}: gold fields lack {missing} (gold-derived in every dataset)")


def normalize_id(name: str) -> str:
    """A dataset name as an id: lower case, "-" -> "_", "+" -> "plus" ("ECB+" -> "ecbplus", "WEC-Eng" -> "wec_eng")."""
    return name.lower().replace("-", "_").replace("+", "plus")


def _declaring_modules() -> dict[str, str]:
    """Dataset id -> the module that declares it, found without importing any: the modules of ucdcr.datasets and
    the entry points of the group ucdcr.datasets."""
    package = importlib.util.find_spec(DATASETS_PACKAGE)
    locations = list(package.submodule_search_locations or []) if package else []
    found = {
        info.name: f"{DATASETS_PACKAGE}.{info.name}"
        for info in pkgutil.iter_modules(locations)
        if not info.name.startswith("_")
    }
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(normalize_id(entry_point.name), entry_point.value.partition(":")[0])
    return found


def known_ids() -> list[str]:
    """Every dataset id (declared by a module or entry point, or registered), sorted; imports no dataset module."""
    return sorted(set(_declaring_modules()) | set(_REGISTRY))


def get(dataset_id: str) -> DatasetSpec:
    """The spec of a dataset id (case-insensitive, see :func:`normalize_id`); an unknown id is an error listing the
    valid ones. The declaring module is imported on the first lookup."""
    key = normalize_id(dataset_id)
    if key not in _REGISTRY:
        module = _declaring_modules().get(key)
        if module is None:
            raise UnknownDatasetError(f"unknown dataset {dataset_id!r}; valid ids: {', '.join(known_ids())}")
        importlib.import_module(module)
        if key not in _REGISTRY:
            raise UcdcrError(f"module {module} declares no dataset {key!r} (it must call ucdcr.registry.register)")
    return _REGISTRY[key]


def all_specs() -> list[DatasetSpec]:
    """Every dataset, in the paper's order (alphabetical by paper name, ignoring case)."""
    return sorted((get(key) for key in known_ids()), key=lambda spec: spec.paper_name.casefold())


def dataset_ids() -> list[str]:
    """Every dataset id, in the paper's order."""
    return [spec.id for spec in all_specs()]


def by_authors_folder(name: str) -> DatasetSpec | None:
    """The dataset whose authors' folder is ``name`` (``ECBplus``, ``NP4E``; a ``-prep`` suffix, their preprocessed
    copy, is ignored), or None."""
    name = name.removesuffix(AUTHORS_PREP_SUFFIX)
    return next((spec for spec in all_specs() if spec.authors_folder == name), None)


def dataset_of_name(name: str) -> DatasetSpec | None:
    """The dataset a folder or dataset name means: the authors' folder name (:func:`by_authors_folder`, which wins)
    or our id in any spelling :func:`normalize_id` reads (``ECB+``, ``wec-eng``); None for any other name."""
    key = normalize_id(name.removesuffix(AUTHORS_PREP_SUFFIX))
    if name == key and key in known_ids():  # our own spelling: no need to import every dataset module
        return get(key)
    return by_authors_folder(name) or (get(key) if key in known_ids() else None)


def gold_fields_of(name: str) -> tuple[str, ...]:
    """The gold fields a dataset declares (:attr:`DatasetSpec.gold_fields`), by any name :func:`dataset_of_name`
    reads; :data:`GOLD_FIELDS` for a name that is no registered dataset (a folder of some other dataset in the
    unified format)."""
    spec = dataset_of_name(name)
    return spec.gold_fields if spec else GOLD_FIELDS


# --- raw files ----------------------------------------------------------------------------------------------


def missing_raw_files(
    dataset: DatasetSpec | str, folder: Path, options: ReadOptions | None = None, only: list[str] | None = None
) -> list[str]:
    """The required manifest entries (``only``: of these paths) that are not in ``folder``, each one_of group as
    ``a | b``; ``["the whole folder"]`` when the folder is not there (:meth:`~ucdcr.manifest.Manifest.missing`)."""
    spec = get(dataset) if isinstance(dataset, str) else dataset
    return spec.manifest.missing(Path(folder), (options or spec.options()).given(), only)


def require_raw_files(
    dataset: DatasetSpec | str, folder: Path, options: ReadOptions | None = None, only: list[str] | None = None
) -> None:
    """Raise MissingRawData with the manual steps naming every missing required entry (:func:`missing_raw_files`)."""
    spec = get(dataset) if isinstance(dataset, str) else dataset
    missing = missing_raw_files(spec, folder, options, only)
    if missing:
        raise missing_raw_data(spec.id, folder, missing)


def missing_raw_data(dataset_id: str, folder: Path, missing: list[str]) -> MissingRawData:
    """The error for raw files missing in ``folder`` (what they are, as phrases), with the manifest's manual steps."""
    return MissingRawData(get(dataset_id).manifest.missing_message(dataset_id, folder, missing))
