"""Evaluate a system's clusters with an evaluation protocol (:mod:`ucdcr.analysis.protocol`: ``ucdcr``, the default,
or ``standard``; "the evaluated mentions" below are those the protocol scores).

Predictions give a cluster to mentions of the built data (the test split by default; any split, e.g. val to tune
a system), in one of these files (UTF-8, see :mod:`ucdcr.io.text`), recognised by their content:

- JSON object: ``{"<mention_id>": <cluster>, ...}``;
- JSON list: ``[{"mention_id": "<mention_id>", "cluster": <cluster>}, ...]``;
- CSV with a header naming the columns ``mention_id`` and ``cluster`` (other columns are ignored);
- CoNLL-2012 response (a file with ``#begin document`` lines, e.g. made from what ``ucdcr export conll`` writes):
  each token line starts with the document key, the sentence number and the token number, as that export writes
  them, and ends with the coreference column; any export level (document, subtopic, topic) works.

A file that is none of these is an error saying so. A mention id given twice (twice as a key of the JSON object,
in two list items or two CSV rows) is an error, even with the same cluster.

Cluster ids (JSON and CSV): a string or a number. Numbers are compared by value, so ``1``, ``1.0`` and ``1e0``
are one cluster; an integral number reads as its integer, so the number ``1`` and the string ``"1"`` are one
cluster too (a CSV cell is always text, and a file must mean the same as JSON or CSV). Other strings are compared
exactly (``"1.0"``, ``"01"`` and ``" 1"`` are three clusters, none of them ``1``). ``null``, ``NaN``,
``Infinity``, ``true``/``false``, objects and lists are errors, and so are an empty cell and the strings pandas
writes or reads as missing (``NaN``, ``NA``, ``N/A``, ``<NA>``, ``null``, ``None``, in any case). Only the grouping
matters: within each evaluation setting, mentions with the same cluster id are one predicted cluster. One file
may cover several datasets (mention ids are unique across our builds).

Mapping to the evaluated mentions (:func:`resolve`):

- JSON / CSV: every mention the protocol evaluates must have a prediction (a missing one is an error listing
  them). Predictions for mention ids that are not mentions of the evaluated split of the selected datasets
  (other datasets, other splits) are ignored with a note giving their number and a few of them; an id that is a
  mention of no dataset at all (any split of any dataset of the data dir: a typo in a system's output) is an error
  listing such ids; predictions for mentions the protocol leaves out (singletons) are ignored silently, as the
  protocol asks.
- CoNLL: a response mention is matched to the gold mentions with the same document key, sentence and first and
  last token (several gold mentions with one span all get its cluster); chain ids are global in the file (the
  same id in two documents is one cross-document cluster). A gold mention that the response does not mark is
  its own cluster (a singleton), and their number is reported in a note. Response mentions that match no gold
  mention of the evaluated split of the selected datasets (other mentions, other documents, spans that cross a
  sentence) are counted in a note and ignored, because the protocol evaluates the gold mentions. A span in two
  chains of the response is an error.

These CoNLL rules are those of ``mentions="gold"`` (:data:`MENTION_SOURCES`, ``ucdcr evaluate --mentions``), the
default, unchanged: the gold mentions are scored and the response only clusters them, so mention detection is
perfect by construction. ``mentions="predicted"`` scores the response of an end-to-end system, whose spans are its
own, as the v8.01 scorer does (Cattan et al. 2021's "realistic evaluation"; :func:`evaluate_predictions`):

- A response mention whose span (document key, sentence, first and last token) is a gold mention of the evaluated
  split is that mention (several gold mentions with one span: each of them, as above). A gold mention the response
  does not mark is absent from the response (it lowers recall; not filled in as a singleton). A *twinless* response
  mention (its span is no gold mention of the split) stays in its response chain and counts against precision, as
  in v8.01; its mention id for the scorer is its span, ``(document key, sentence, first token, last token)``, or
  ``(document key, first sentence, first token, last sentence, last token)`` for a span across sentences of one
  document. Scoring is :func:`ucdcr.scoring.score_clusters` on each setting's key (the gold, exactly as with
  ``gold``) and this response, through the protocol (:func:`ucdcr.analysis.protocol.run_protocol`'s
  ``responses``), and every setting also gets mention detection (v8.01's mention identification, exact span
  match: :data:`~ucdcr.analysis.protocol.MENTION_COLUMNS`), averaged like the other columns
  (:attr:`Evaluation.mention_detection`).
- What the protocol selects holds for key and response alike: a response mention on a gold mention is scored in
  that gold mention's settings only, so under the ucdcr protocol one on a gold mention the protocol leaves out (a
  flagged singleton, a dropped chain) is scored nowhere, as with ``gold``.
- Kinds: an end-to-end system writes its event and its entity mentions in one CoNLL file each (the form of Cattan
  et al. 2021's and Barhom et al. 2019's outputs), so a response mention's kind is its file's:
  ``read_predictions(path, "predicted", kind="event")``, several files joined by :func:`combine_predictions`
  (``ucdcr evaluate event:EVENTS.conll entity:ENTITIES.conll --mentions predicted``; the files' chains are kept
  apart). A per-type setting of kind K then scores the response mentions of kind K: those on a gold mention of
  kind K, the twinless ones, and those on a gold span of the other kind (spurious for K), so the event row is the
  event-only end-to-end score the literature reports; the joint settings score every response mention. A response
  that gives no kind (one file without one): a twinless mention has no type, so it is scored in the joint
  settings only, and a per-type setting scores the response mentions that are gold mentions of its type (a note
  says so).
- Where a twinless mention is scored: standard protocol, the meta-document of the dataset of its document; ucdcr
  protocol, the setting of its document's subtopic and, for a dataset also evaluated per topic, of its document's
  topic. The settings remain the gold's, so every system is averaged over the same settings: a twinless mention in
  a subtopic or topic whose gold mentions give no setting (fewer than 2) is not scored (noted).
- A dataset's documents of the split are known by their gold mentions: a twinless mention in a document with no
  gold mention of the split in the selected datasets (other splits, datasets or documents; a span across two
  documents) is ignored with a note (``ucdcr score`` on a key file would count one in a key document without
  mentions).
- JSON and CSV predictions name gold mention ids, so they are an error with ``predicted``; so is a span in two
  chains (also across sentences).
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import numbers
import os
import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from ucdcr.analysis.protocol import (
    LEVELS,
    MENTION_COLUMNS,
    TYPES,
    UCDCR,
    DatasetMean,
    Protocol,
    ProtocolResult,
    Setting,
    evaluation_rows,
    run_protocol,
)
from ucdcr.errors import FormatError, UcdcrError
from ucdcr.formats.conll2012 import read_conll
from ucdcr.io.load import KIND_COLUMN
from ucdcr.io.text import decode_text, describe_json, parse_json, read_bytes

_SHOWN = 20  # ids listed in an error message
_NOTE_SHOWN = 5  # ids listed in a note
MISSING_MARKERS = frozenset({"", "nan", "-nan", "na", "n/a", "<na>", "null", "none", "#n/a"})
"""Cluster strings that mean "no value" (lower-cased, stripped): what pandas writes or reads as missing."""
_CONLL_BEGIN = re.compile(r"^#\s*begin document", re.MULTILINE)
SPAN_COLUMNS = ("conll_doc_key", "sent_id", "tokens_number")
"""The mention fields a CoNLL response is matched on (loaded in addition to the protocol's fields)."""

SpanKey = tuple[str, int, int, int]
"""A mention's place: (document key, sentence, first token, last token)."""
CrossingKey = tuple[str, int, int, int, int]
"""A response span across sentences of one document: (document key, first sentence, first token, last sentence,
last token)."""
MentionSource = Literal["gold", "predicted"]
MENTION_SOURCES: tuple[MentionSource, ...] = ("gold", "predicted")
"""Which mentions are scored (module docstring): the gold ones (the default) or a CoNLL response's own."""


@dataclass
class Predictions:
    """A predictions file: clusters by mention id (JSON, CSV) or by response span (CoNLL)."""

    path: Path
    by_id: dict[str, str] = field(default_factory=dict)
    by_span: dict[SpanKey, str] | None = None
    spans_crossing_sentences: int = 0
    crossing: dict[CrossingKey, str] = field(default_factory=dict)
    """The spans across sentences that stay in one document, with their chain (``mentions="predicted"`` scores
    them; ``spans_crossing_sentences`` counts these and the spans across documents)."""
    mentions: MentionSource = "gold"
    """Which mentions are scored: the gold ones, or (a CoNLL response) the response's own (module docstring)."""
    kinds: dict[Hashable, str] | None = None
    """The kind (event, entity) of each response mention, by its span (``SpanKey`` or ``CrossingKey``): from the
    file each came from (:func:`read_predictions`' ``kind``, :func:`combine_predictions`); None when the response
    does not say."""

    @property
    def needs_spans(self) -> bool:
        """Whether matching needs the mentions' SPAN_COLUMNS (a CoNLL response)."""
        return self.by_span is not None


@dataclass
class Evaluation:
    """The protocol's results per dataset and the notes about what was ignored or filled in.

    mentions: the mentions scored (:data:`MENTION_SOURCES`). mention_detection (``predicted`` only): per dataset
    mean of ``results`` (same dataset, level, type and settings) the mean of its settings'
    :data:`~ucdcr.analysis.protocol.MENTION_COLUMNS`, then with several datasets the uCDCR rows (the mean over
    datasets, as :func:`ucdcr.analysis.protocol.ucdcr_means`).
    """

    results: list[ProtocolResult]
    notes: list[str] = field(default_factory=list)
    mentions: MentionSource = "gold"
    mention_detection: list[DatasetMean] = field(default_factory=list)


def read_predictions(path: str | Path, mentions: MentionSource = "gold", kind: str | None = None) -> Predictions:
    """Read a predictions file in any of the formats of the module docstring; ``mentions``: which mentions are
    scored (``predicted`` needs a CoNLL response); ``kind``: the kind of every mention of a CoNLL response (a
    system's event or entity output, module docstring)."""
    if mentions not in MENTION_SOURCES:
        raise UcdcrError(f"unknown mentions {mentions!r}; valid: {', '.join(MENTION_SOURCES)}")
    if kind is not None and kind not in MENTION_KINDS:
        raise UcdcrError(f"unknown kind {kind!r}; valid: {', '.join(MENTION_KINDS)}")
    path = Path(path)
    text = decode_text(read_bytes(path), path)
    if not text.strip():
        raise FormatError(path, "the file is empty; " + _FORMATS)
    if _CONLL_BEGIN.search(text):
        found = _read_conll(path, mentions)
        if not found.by_span and not found.spans_crossing_sentences:
            raise FormatError(path, "the file is empty: the CoNLL-2012 response marks no mention")
        if kind is not None:
            found.kinds = dict.fromkeys([*(found.by_span or {}), *found.crossing], kind)
        return found
    if kind is not None:
        raise UcdcrError(f"{path}: a kind is given to the mentions of a CoNLL response; this file is JSON or CSV")
    if mentions == "predicted":
        raise UcdcrError(
            f"{path}: --mentions predicted needs a CoNLL-2012 response (a system's own spans); this file gives "
            "clusters of gold mention ids, so its mentions are the gold ones: use --mentions gold"
        )
    if text.lstrip().startswith(("{", "[")):
        by_id, what = _read_json(path, text), "the JSON holds no prediction"
    else:
        by_id, what = _read_csv(path, text), "the CSV has a header and no row"
    if not by_id:
        raise FormatError(path, f"the file is empty: {what}")
    return Predictions(path, by_id=by_id)


MENTION_KINDS = ("event", "entity")
"""The kinds a response's mentions may be given (:func:`read_predictions`)."""


def read_prediction_files(files: Sequence[str | Path], mentions: MentionSource = "gold") -> Predictions:
    """One system's predictions from one file, or from CoNLL responses given as ``KIND:PATH`` (``event:`` or
    ``entity:`` before the path: the kind of every mention of that file), joined (:func:`combine_predictions`)."""
    if not files:
        raise UcdcrError("no predictions file given")
    parts = []
    for given in files:
        kind, separator, rest = str(given).partition(":")
        if separator and kind in MENTION_KINDS and not isinstance(given, Path):
            parts.append(read_predictions(rest, mentions, kind))
        else:
            parts.append(read_predictions(given, mentions))
    return combine_predictions(parts)


def combine_predictions(parts: Sequence[Predictions]) -> Predictions:
    """Several CoNLL responses of one system as one response (an end-to-end system's event and entity files): each
    file's chains kept apart (its chain ids prefixed with its position), each mention with its file's kind. One
    span in two files is an error."""
    if len(parts) == 1:
        return parts[0]
    if any(part.by_span is None for part in parts):
        raise UcdcrError("several prediction files are CoNLL responses of one system; a JSON or CSV file is one file")
    first = parts[0]
    by_span: dict[SpanKey, str] = {}
    crossing: dict[CrossingKey, str] = {}
    kinds: dict[Hashable, str] | None = {} if all(part.kinds is not None for part in parts) else None
    origin: dict[Hashable, Path] = {}
    for index, part in enumerate(parts):
        for mapping, target in ((part.by_span or {}, by_span), (part.crossing, crossing)):
            for span, chain in mapping.items():
                if span in origin:
                    raise FormatError(
                        part.path, f"the span {span} is also a mention of {origin[span]}: one span, one mention"
                    )
                origin[span] = part.path
                target[span] = f"{index}:{chain}"  # type: ignore[index]
        if kinds is not None and part.kinds is not None:
            kinds.update(part.kinds)
    crossed = sum(part.spans_crossing_sentences for part in parts)
    return Predictions(first.path, {}, by_span, crossed, crossing, first.mentions, kinds)


_FORMATS = (
    "expected a JSON object {mention_id: cluster}, a JSON list of {mention_id, cluster} objects, a CSV whose "
    "header names the columns mention_id and cluster, or a CoNLL-2012 response (#begin document ...)"
)


class _Pairs(list):
    """A JSON object as its (key, value) pairs in file order, so that repeated keys are seen."""


def _read_json(path: Path, text: str) -> dict[str, str]:
    data = parse_json(text, path, object_pairs_hook=_Pairs)
    if isinstance(data, _Pairs):
        return _to_mapping(path, [(mention_id, cluster, "") for mention_id, cluster in data])
    if not isinstance(data, list):
        raise FormatError(path, f"the JSON is {_describe(data)}; " + _FORMATS)
    triples = []
    for index, item in enumerate(data):
        keys = [key for key, _ in item] if isinstance(item, _Pairs) else []
        if not isinstance(item, _Pairs) or not {"mention_id", "cluster"} <= set(keys):
            raise FormatError(path, f"item {index} is not an object with the keys 'mention_id' and 'cluster'")
        repeated = sorted(key for key, count in Counter(keys).items() if count > 1)
        if repeated:
            raise FormatError(path, f"item {index} has the key {repeated[0]!r} twice")
        fields = dict(item)
        triples.append((fields["mention_id"], fields["cluster"], f"item {index}"))
    return _to_mapping(path, triples)


def _read_csv(path: Path, text: str) -> dict[str, str]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = [(reader.line_num, row) for row in reader if row]
    except csv.Error as exc:
        raise FormatError(path, f"malformed CSV: {exc}", reader.line_num) from None
    header = [cell.strip() for cell in rows[0][1]]
    if not {"mention_id", "cluster"} <= set(header):
        first = text.lstrip().splitlines()[0][:60]
        raise FormatError(
            path,
            f"neither JSON nor a CSV with the columns mention_id and cluster (first line: {first!r}); " + _FORMATS,
            rows[0][0],
        )
    id_column, cluster_column = header.index("mention_id"), header.index("cluster")
    triples = []
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise FormatError(path, f"expected {len(header)} fields (as the header), found {len(row)}", line)
        triples.append((row[id_column], row[cluster_column], f"line {line}"))
    return _to_mapping(path, triples)


def _to_mapping(path: Path, triples: Sequence[tuple[Any, Any, str]]) -> dict[str, str]:
    """mention_id -> cluster label from (mention id, cluster, where) triples; checks ids, clusters, repeats.

    where: "item 3" or "line 4" in a list or CSV; "" for a key of the JSON object (the id itself says where).
    """
    mapping: dict[str, str] = {}
    first_seen: dict[str, str] = {}
    for mention_id, cluster, where in triples:
        if not isinstance(mention_id, str) or not mention_id.strip():
            place = where or "a key of the object"
            raise FormatError(path, f"{place}: the mention id must be a non-empty string, got {_describe(mention_id)}")
        if mention_id in first_seen:
            again = f"(first at {first_seen[mention_id]})" if where else "(two keys of the object)"
            raise FormatError(path, f"{where + ': ' if where else ''}mention id {mention_id!r} is given twice {again}")
        first_seen[mention_id] = where
        place = f"{where} (mention {mention_id!r})" if where else f"mention {mention_id!r}"
        mapping[mention_id] = cluster_label(cluster, path, place)
    return mapping


def cluster_label(value: Any, path: Path, where: str) -> str:
    """The cluster id as compared (rule in the module docstring); a missing or non-scalar value is an error. NumPy
    numbers (what scikit-learn returns) are numbers like Python's."""
    if isinstance(value, bool | np.bool_) or value is None or isinstance(value, list | dict):
        raise FormatError(path, f"{where}: the cluster must be a string or a number, got {_describe(value)}")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise FormatError(path, f"{where}: the cluster is {number}, not a cluster id")
        return str(int(number)) if number.is_integer() else repr(number)
    if not isinstance(value, str):
        raise FormatError(path, f"{where}: the cluster must be a string or a number, got {_describe(value)}")
    if value.strip().lower() in MISSING_MARKERS:
        raise FormatError(path, f"{where}: the cluster {value!r} is a missing value, not a cluster id")
    return str(value)


def _describe(value: Any) -> str:
    return f"an object with {len(value)} field(s)" if isinstance(value, _Pairs) else describe_json(value)


def _read_conll(path: Path, mentions: MentionSource = "gold") -> Predictions:
    """The response mentions of a CoNLL-2012 file by (document key, sentence, first token, last token)."""
    conll = read_conll(path, leading_fields=3)
    by_span: dict[SpanKey, str] = {}
    crossing: dict[CrossingKey, str] = {}
    crossing_count = 0
    for document in conll.documents.values():
        for chain, spans in document.chains.items():
            for start, end in spans:
                first, last = _token_place(path, document, start), _token_place(path, document, end)
                if first[:2] != last[:2]:
                    crossing_count += 1
                    if first[0] == last[0]:
                        across = (first[0], first[1], first[2], last[1], last[2])
                        if mentions == "predicted" and crossing.get(across, chain) != chain:
                            raise FormatError(
                                path,
                                f"document {first[0]!r}, sentence {first[1]} token {first[2]} to sentence {last[1]} "
                                f"token {last[2]}: one span is in two chains ({crossing[across]} and {chain}); a "
                                "mention can have one cluster only",
                            )
                        crossing.setdefault(across, chain)
                    continue
                key = (first[0], first[1], first[2], last[2])
                if by_span.get(key, chain) != chain:
                    raise FormatError(
                        path,
                        f"document {key[0]!r}, sentence {key[1]}, tokens {key[2]}-{key[3]}: one span is in "
                        f"two chains ({by_span[key]} and {chain}); a mention can have one cluster only",
                    )
                by_span[key] = chain
    return Predictions(
        path, by_span=by_span, spans_crossing_sentences=crossing_count, crossing=crossing, mentions=mentions
    )


def _token_place(path: Path, document: Any, token: int) -> tuple[str, int, int]:
    """(document key, sentence, token number) from a token line's first three columns."""
    fields, line = document.token_fields[token]
    try:
        return fields[0], int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        raise FormatError(
            path,
            "a token line must start with the document key, sentence number and token number (as "
            f"`ucdcr export conll` writes them), got {' '.join(fields)[:60]!r}",
            line,
        ) from None


def resolve(
    predictions: Predictions, tables: Mapping[str, pa.Table], split: str = "test", protocol: Protocol = UCDCR
) -> tuple[dict[str, str], list[str]]:
    """Predictions as mention_id -> cluster for the evaluated mentions of ``tables``, and the notes (module docstring).

    tables: dataset -> mention table of ``split`` (with SPAN_COLUMNS for a CoNLL response).
    """
    if predictions.by_span is not None:
        return _resolve_spans(predictions, tables, split, protocol)
    known = {mention_id for table in tables.values() for mention_id in table["mention_id"].to_pylist()}
    ignored = [mention_id for mention_id in predictions.by_id if mention_id not in known]
    notes = []
    unknown = _in_no_dataset(ignored, tables)  # issue 20: a typo in a system's output is an error, not a note
    if unknown:
        raise FormatError(
            predictions.path,
            f"{len(unknown.ids)} prediction(s) name no mention of any dataset in {', '.join(sorted(unknown.places))}: "
            f"{_listing(unknown.ids, _SHOWN)} (a typo in the system's output?)",
        )
    if ignored:
        notes.append(
            f"{len(ignored)} prediction(s) are not for {split} mentions of the selected datasets ({', '.join(tables)}) "
            f"and were ignored (other datasets or splits), e.g. {_listing(ignored, _NOTE_SHOWN)}"
        )
    return {mention_id: predictions.by_id[mention_id] for mention_id in predictions.by_id if mention_id in known}, notes


DATASET_FOLDER_METADATA = b"ucdcr.dataset_folder"
"""Schema metadata of a mention table given to :func:`resolve`: the folder it was read from. Where present, a
prediction id that is a mention of no dataset beside it (every split of every dataset of its data dir) is an error."""


@dataclass
class _Unknown:
    ids: list[str]
    places: set[str]

    def __bool__(self) -> bool:
        return bool(self.ids)


def _in_no_dataset(ids: Sequence[str], tables: Mapping[str, pa.Table]) -> _Unknown:
    """The ``ids`` that are no mention of any split of any dataset in the data dirs the ``tables`` come from (known
    from their :data:`DATASET_FOLDER_METADATA`; none known: nothing is checked)."""
    from ucdcr.io.load import load_columns
    from ucdcr.sources.discover import discover_datasets

    folders = {
        Path(os.fsdecode(metadata[DATASET_FOLDER_METADATA]))
        for table in tables.values()
        if (metadata := table.schema.metadata) and DATASET_FOLDER_METADATA in metadata
    }
    if not ids or not folders:
        return _Unknown([], set())
    everywhere = set(folders)
    for folder in folders:
        with contextlib.suppress(UcdcrError):  # not a data dir (a dataset given by its path): that dataset alone
            everywhere.update(discover_datasets(folder.parent).values())
    known: set[str] = set()
    for folder in everywhere:
        known.update(load_columns(folder, ["mention_id"])["mention_id"].to_pylist())
    return _Unknown([mention_id for mention_id in ids if mention_id not in known], {str(f.parent) for f in folders})


def _resolve_spans(
    predictions: Predictions, tables: Mapping[str, pa.Table], split: str, protocol: Protocol
) -> tuple[dict[str, str], list[str]]:
    assert predictions.by_span is not None
    gold: dict[SpanKey, list[str]] = {}
    evaluated: list[str] = []
    for table in tables.values():
        ids = table["mention_id"].to_pylist()
        for mention_id, doc_key, sent, tokens in zip(
            ids, *(table[name].to_pylist() for name in SPAN_COLUMNS), strict=True
        ):
            gold.setdefault((doc_key, sent, min(tokens), max(tokens)), []).append(mention_id)
        evaluated += [ids[row] for row in evaluation_rows(table, split, protocol)]
    labels: dict[str, str] = {}
    unmatched = predictions.spans_crossing_sentences
    for key, chain in predictions.by_span.items():
        if key not in gold:
            unmatched += 1
        for mention_id in gold.get(key, ()):
            labels[mention_id] = chain
    notes = []
    missing = [mention_id for mention_id in evaluated if mention_id not in labels]
    for mention_id in missing:
        labels[mention_id] = f"(singleton) {mention_id}"  # "(" cannot start a CoNLL chain id: no clash
    if missing:
        notes.append(
            f"{len(missing)} of the {len(evaluated)} evaluated gold mentions are not marked in the response: each "
            f"counts as its own cluster (a singleton), e.g. {_listing(missing, _NOTE_SHOWN)}"
        )
    if unmatched:
        notes.append(
            f"{unmatched} response mention(s) match no gold mention of the {split} split of the selected datasets "
            f"({', '.join(tables)}) by document, sentence and tokens, and were ignored (the protocol evaluates "
            "the gold mentions)"
        )
    return labels, notes


def _listing(ids: Sequence[str], shown: int = _SHOWN) -> str:
    listed = ", ".join(ids[:shown])
    return listed + (f", … ({len(ids) - shown} more)" if len(ids) > shown else "")


def covered_datasets(predictions: Predictions, folders: Mapping[str, Path]) -> tuple[dict[str, Path], str | None]:
    """The datasets of ``folders`` that the predictions name a mention of (JSON, CSV: a mention id; CoNLL: a
    document key), and a note saying which were chosen when that is not all of them; none is an error."""
    from ucdcr.io.load import load_columns

    column = "conll_doc_key" if predictions.by_span is not None else "mention_id"
    named = {key[0] for key in predictions.by_span} if predictions.by_span is not None else set(predictions.by_id)
    chosen = {
        name: folder
        for name, folder in folders.items()
        if named.intersection(load_columns(folder, [column])[column].to_pylist())
    }
    if not chosen:
        what = "document key" if column == "conll_doc_key" else "mention id"
        raise FormatError(
            predictions.path, f"no {what} of the file belongs to a dataset of {', '.join(folders) or 'the data dir'}"
        )
    if len(chosen) == len(folders):
        return chosen, None
    return chosen, (
        f"evaluating {', '.join(chosen)}: the datasets the predictions cover ({len(chosen)} of {len(folders)} built; "
        "--datasets chooses others)"
    )


def check_coverage(
    predictions: Mapping[str, str],
    tables: Mapping[str, pa.Table],
    split: str = "test",
    source: str | Path = "",
    protocol: Protocol = UCDCR,
) -> None:
    """Raise if an evaluated mention of ``tables`` has no prediction, or evaluated mention ids repeat.

    source: the predictions file, named at the start of the error.
    """
    prefix = f"{source}: " if source else ""
    missing: list[str] = []
    for dataset, table in tables.items():
        ids = table["mention_id"].to_pylist()
        evaluated = [ids[row] for row in evaluation_rows(table, split, protocol)]
        repeated = [mention_id for mention_id, count in Counter(evaluated).items() if count > 1]
        if repeated:
            raise UcdcrError(
                f"{dataset}: mention ids are not unique, so predictions keyed by id are ambiguous: {_listing(repeated)}"
            )
        missing += [mention_id for mention_id in evaluated if mention_id not in predictions]
    if missing:
        raise UcdcrError(
            f"{prefix}{len(missing)} evaluated mentions have no prediction: {_listing(missing)} "
            f"(predict every {split} mention of the selected datasets, or select datasets with --datasets)"
        )


def evaluate(
    predictions: Mapping[str, str],
    tables: Mapping[str, pa.Table],
    topic_levels: Mapping[str, bool],
    split: str = "test",
    source: str | Path = "",
    protocol: Protocol = UCDCR,
) -> list[ProtocolResult]:
    """Score mention_id -> cluster predictions on each dataset's ``split`` mentions with the protocol.

    tables: dataset -> mention table (the split, the protocol's EVAL_FIELDS and ``type``);
    topic_levels: dataset -> whether it is also evaluated per topic. Predictions for other mentions are ignored.
    source: the predictions file, named in errors.
    """
    check_coverage(predictions, tables, split, source, protocol)
    results = []
    for dataset, table in tables.items():
        labels = [predictions.get(mention_id) for mention_id in table["mention_id"].to_pylist()]
        results.append(run_protocol(dataset, table, labels, topic_levels[dataset], split, protocol))
    return results


def evaluate_folders(
    predictions: Predictions, folders: Mapping[str, Path], split: str = "test", protocol: Protocol = UCDCR
) -> Evaluation:
    """Predictions (:func:`read_predictions`) scored with ``protocol`` on the ``split`` mentions of each dataset
    folder (name -> folder), with notes on what was ignored or filled in (:func:`evaluate_predictions`)."""
    from ucdcr.analysis.protocol import load_for_protocol

    tables, topic_levels = {}, {}
    extra = SPAN_COLUMNS if predictions.needs_spans else ()
    for name, folder in folders.items():
        table, topic_levels[name] = load_for_protocol(folder, split, extra)
        # where the table comes from: resolve() tells a typo (no mention of any dataset there) from another split's id
        metadata = {**(table.schema.metadata or {}), DATASET_FOLDER_METADATA: os.fsencode(folder)}
        tables[name] = table.replace_schema_metadata(metadata)
    return evaluate_predictions(predictions, tables, topic_levels, split, protocol)


def evaluate_predictions(
    predictions: Predictions,
    tables: Mapping[str, pa.Table],
    topic_levels: Mapping[str, bool],
    split: str = "test",
    protocol: Protocol = UCDCR,
) -> Evaluation:
    """:func:`resolve` then :func:`evaluate`: the results and the notes on what was ignored or filled in.

    With ``predictions.mentions == "predicted"`` (a CoNLL response): the response's own mentions are scored
    instead (module docstring), with mention detection.
    """
    if predictions.mentions == "predicted":
        return _evaluate_predicted(predictions, tables, topic_levels, split, protocol)
    labels, notes = resolve(predictions, tables, split, protocol)
    return Evaluation(evaluate(labels, tables, topic_levels, split, predictions.path, protocol), notes)


TwinlessKey = SpanKey | CrossingKey
"""A twinless response mention's id for the scorer: its span."""


def _evaluate_predicted(
    predictions: Predictions,
    tables: Mapping[str, pa.Table],
    topic_levels: Mapping[str, bool],
    split: str,
    protocol: Protocol,
) -> Evaluation:
    """The response's own mentions scored with the protocol (module docstring, ``mentions="predicted"``)."""
    if predictions.by_span is None:
        raise UcdcrError(f"{predictions.path}: --mentions predicted needs a CoNLL-2012 response")
    gold_rows: dict[str, dict[SpanKey, list[int]]] = {}
    units_of: dict[str, dict[str, dict[str, str]]] = {}  # dataset -> document -> level -> unit
    for dataset, table in tables.items():
        spans, documents = gold_rows.setdefault(dataset, {}), units_of.setdefault(dataset, {})
        columns = (*SPAN_COLUMNS, "topic_id", "subtopic_id", "split")
        for row, (doc_key, sent, tokens, topic, subtopic, mention_split) in enumerate(
            zip(*(table[name].to_pylist() for name in columns), strict=True)
        ):
            if mention_split == split:
                spans.setdefault((doc_key, sent, min(tokens), max(tokens)), []).append(row)
                documents.setdefault(doc_key, {"topic": topic, "subtopic": subtopic})
    gold_spans = {key for spans in gold_rows.values() for key in spans}
    twinless: dict[TwinlessKey, str] = {
        key: chain for key, chain in predictions.by_span.items() if key not in gold_spans
    }
    for across, chain in predictions.crossing.items():
        twinless[across] = chain
    placed: set[TwinlessKey] = set()  # in a document of the split of a selected dataset
    scored: set[TwinlessKey] = set()  # in some setting
    results, unmarked, evaluated = [], [], 0
    kinds = predictions.kinds
    for dataset, table in tables.items():
        labels: list[str | None] = [None] * table.num_rows
        label_kinds: list[str | None] = [None] * table.num_rows  # the kind the response gives the mention
        gold_kinds = table[KIND_COLUMN].to_pylist()
        by_unit: dict[tuple[str, str], list[tuple[TwinlessKey, str]]] = {}
        typed: dict[tuple[str, str, str], list[tuple[TwinlessKey, str]]] = {}  # (level, unit, kind) -> extra mentions
        topic_of: dict[Hashable, str] = {}  # the standard protocol's interval units: gold topics
        documents = units_of[dataset]
        for span, label in predictions.by_span.items():
            for row in gold_rows[dataset].get(span, ()):
                labels[row] = label
                label_kinds[row] = kinds.get(span) if kinds is not None else None
                kind = label_kinds[row]
                if kind is not None and kind != gold_kinds[row]:  # a mention of one kind on a gold span of another
                    _place(span, label, kind, documents, typed, topic_of)
        rows = evaluation_rows(table, split, protocol)
        evaluated += len(rows)
        ids = table["mention_id"].to_pylist()
        unmarked += [ids[row] for row in rows if labels[row] is None]
        for key, chain in twinless.items():
            if key[0] in documents:
                placed.add(key)
                units = documents[key[0]]
                topic_of[key] = units["topic"]
                for level in ("meta", *LEVELS):
                    by_unit.setdefault((level, "" if level == "meta" else units[level]), []).append((key, chain))
                if kinds is not None and key in kinds:
                    _place(key, chain, kinds[key], documents, typed, topic_of)

        def responses(
            setting: Setting,
            members: Sequence[int],
            labels: list[str | None] = labels,
            label_kinds: list[str | None] = label_kinds,
            by_unit: dict[tuple[str, str], list[tuple[TwinlessKey, str]]] = by_unit,
            typed: dict[tuple[str, str, str], list[tuple[TwinlessKey, str]]] = typed,
        ) -> list[list[Hashable]]:
            """The response clusters of a setting: its rows the response marks, by chain, and the twinless
            mentions of its unit (joint settings); in a per-type setting of a response that gives kinds, the
            response mentions of that kind alone (also those on a gold span of the other kind)."""
            grouped: dict[str, list[Hashable]] = {}
            for row in members:
                label = labels[row]
                if label is not None and (kinds is None or not setting.type or label_kinds[row] == setting.type):
                    grouped.setdefault(label, []).append(row)
            unit = ("meta", "") if protocol.standard else (setting.level, setting.unit)
            extra = by_unit.get(unit, ()) if not setting.type else typed.get((*unit, setting.type), ())
            if setting.type and kinds is None:
                extra = ()
            for key, chain in extra:
                grouped.setdefault(chain, []).append(key)
                scored.add(key)
            return list(grouped.values())

        results.append(
            run_protocol(dataset, table, labels, topic_levels[dataset], split, protocol, responses, topic_of)
        )
    notes = _predicted_notes(predictions, tables, split, results, unmarked, evaluated, twinless, placed, scored)
    return Evaluation(results, notes, "predicted", mention_detection_means(results))


def _place(
    key: TwinlessKey,
    chain: str,
    kind: str,
    documents: Mapping[str, Mapping[str, str]],
    typed: dict[tuple[str, str, str], list[tuple[TwinlessKey, str]]],
    topic_of: dict[Hashable, str],
) -> None:
    """A response mention of ``kind`` that no gold mention of that kind has (twinless, or on a gold span of the
    other kind) joins the per-type settings of ``kind`` of its document's units."""
    units = documents.get(key[0])
    if units is None:
        return
    topic_of[key] = units["topic"]
    for level in ("meta", *LEVELS):
        typed.setdefault((level, "" if level == "meta" else units[level], kind), []).append((key, chain))


def _predicted_notes(
    predictions: Predictions,
    tables: Mapping[str, pa.Table],
    split: str,
    results: Sequence[ProtocolResult],
    unmarked: Sequence[str],
    evaluated: int,
    twinless: Mapping[TwinlessKey, str],
    placed: set[TwinlessKey],
    scored: set[TwinlessKey],
) -> list[str]:
    notes = []
    if unmarked:
        notes.append(
            f"{len(unmarked)} of the {evaluated} evaluated gold mentions are not marked in the response: with "
            f"--mentions predicted they are missing from the response (they lower recall), e.g. "
            f"{_listing(list(unmarked), _NOTE_SHOWN)}"
        )
    if scored:
        note = (
            f"{len(scored)} twinless response mention(s) (their span is no gold mention of the {split} split) are "
            "scored in their response chains and count against precision (--mentions predicted)"
        )
        if predictions.kinds is not None:
            note += "; each also in the settings of the kind its file gives it"
        elif any(item.setting.type for result in results for item in result.settings):
            note += (
                "; the response gives no kinds, so a twinless mention is scored in the joint settings only, not in "
                "the per-type (event, entity) ones (give each file's kind: event:FILE entity:FILE)"
            )
        notes.append(note)
    unscored = len(placed - scored)
    if unscored:
        notes.append(
            f"{unscored} twinless response mention(s) are in subtopics or topics whose gold mentions give no setting "
            "(fewer than 2 evaluated mentions) and were not scored"
        )
    elsewhere = len(twinless) - len(placed) + predictions.spans_crossing_sentences - len(predictions.crossing)
    if elsewhere:
        notes.append(
            f"{elsewhere} response mention(s) are in no document with gold mentions of the {split} split of the "
            f"selected datasets ({', '.join(tables)}) (other documents, splits or datasets; spans across two "
            "documents) and were ignored"
        )
    return notes


def mention_detection_means(results: Sequence[ProtocolResult]) -> list[DatasetMean]:
    """Mention detection beside each dataset mean of ``results`` (its settings' mean of MENTION_COLUMNS, with the
    same dataset, level, type and number of settings), then with several datasets the uCDCR rows (the mean over
    the datasets that have the row, per level and type). Results scored with gold mentions have none: []."""
    means = []
    for result in results:
        for mean in result.means:
            kind = "" if mean.duplicated_from_joint else mean.type
            chosen = [s.scores for s in result.settings if s.setting.level == mean.level and s.setting.type == kind]
            if not chosen or not all(column in chosen[0] for column in MENTION_COLUMNS):
                return []
            scores = {column: fmean(row[column] for row in chosen) for column in MENTION_COLUMNS}
            means.append(
                DatasetMean(
                    mean.dataset, mean.level, mean.type, len(chosen), scores, mean.duplicated_from_joint, mean.units
                )
            )
    summary = []
    if len(results) > 1:
        for level in LEVELS:
            for kind in TYPES:
                chosen_means = [m for m in means if m.level == level and m.type == kind]
                if chosen_means:
                    scores = {column: fmean(m.scores[column] for m in chosen_means) for column in MENTION_COLUMNS}
                    parts = tuple(
                        m.units for m in chosen_means if m.units is not None and not isinstance(m.units, tuple)
                    )
                    units = parts if len(parts) == len(chosen_means) else None
                    summary.append(DatasetMean("uCDCR", level, kind, len(chosen_means), scores, units=units))
    return means + summary
