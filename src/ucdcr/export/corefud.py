"""CorefUD: a built dataset's split as CoNLL-U with CorefUD's coreference annotation, written by ``udapi``.

One file per split, ``<out>/<dataset>_<split>.conllu``, and a mapping file ``<file>.entities.json``. The file is one
udapi document serialised by udapi itself (``Document.store_conllu``), so it follows the CorefUD 1.x conventions
udapi implements:

- ``# global.Entity = eid-etype-head-other`` in the header; every uCDCR document starts with
  ``# newdoc id = <conll_doc_key>``; every sentence is one tree with ``# sent_id = <key>-<sent_id>`` (the
  document key with ``_`` for ``/``, which udapi reads as a zone separator) and ``# text``;
- token lines: FORM = the output token (whitespace in it as ``_``, as the CoNLL export writes it),
  ``SpaceAfter=No`` where no whitespace follows; UPOS and LEMMA of the mention heads as the build's re-parse
  stored them (``_`` elsewhere); the trees are flat (every token a child of
  the root with DEPREL ``dep``): uCDCR keeps no dependency parse;
- the MISC ``Entity`` attribute marks every mention: ``(e<N>-<etype>-<head>`` where it opens, ``e<N>)`` where it
  closes, ``(e<N>-<etype>-<head>)`` on a one-token mention; ``etype`` is ``event`` or ``entity`` (the file the
  mention is in), ``head`` the position of the mention head in the mention (1-based);
- entity ids ``e<N>`` are numbered by first appearance in document-key order and shared across documents, so a
  cross-document chain is one entity over several ``newdoc`` documents. The mapping file gives the ``coref_chain``
  of every ``e<N>``.

Mentions the bracket notation cannot express (one span twice, two crossing mentions of one chain) are left out by
the CoNLL export's rule (:func:`ucdcr.export.conll.representable`) and listed with the reason in
:attr:`CorefudExport.left_out` and the mapping file. Needs ``udapi`` (the ``corefud`` extra).

``<out>`` is a new or empty folder or one an export wrote; the files it writes are new or an export's (the marker
``.ucdcr-export.json`` lists them); never a data dir, raw dir or dataset folder (:mod:`ucdcr.export.target`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa

from ucdcr.errors import UcdcrError
from ucdcr.export import target
from ucdcr.export.conll import Span, representable, token_field
from ucdcr.io.atomic import atomic_path, write_errors, write_json
from ucdcr.io.load import KIND_COLUMN, load_mentions, read_table
from ucdcr.io.one_build import consistent
from ucdcr.records import SPLITS
from ucdcr.schema import DOC_KEY_COLUMN

MENTION_FIELDS = (
    "mention_id",
    "coref_chain",
    "conll_doc_key",
    "sent_id",
    "tokens_number",
    "mention_head_id",
    "mention_head_pos",
    "mention_head_lemma",
)


def require_udapi() -> ModuleType:
    """The ``udapi`` module, or a UcdcrError naming the ``corefud`` extra."""
    try:
        import udapi  # an import statement, which deptry sees (extras.require imports by name)
    except ImportError:
        from ucdcr.extras import needs

        raise UcdcrError(f"CorefUD export {needs('corefud')}") from None
    return udapi


@dataclass
class CorefudSplit:
    """One written split."""

    path: Path
    mapping_path: Path
    documents: int = 0
    sentences: int = 0
    mentions: int = 0
    entities: int = 0
    left_out: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class CorefudExport:
    """What :func:`export_corefud` wrote: per split, its summary, or None when the split has no documents."""

    dataset: str
    splits: dict[str, CorefudSplit | None] = field(default_factory=dict)


def export_corefud(
    dataset: str | Path, out: str | Path, split: str | None = None, data_dir: str | Path | None = None
) -> CorefudExport:
    """Write a built dataset (every split, or ``split``) as CorefUD CoNLL-U files into ``out``."""
    udapi = require_udapi()
    from ucdcr.sources.discover import dataset_dir

    if split is not None and split not in SPLITS:
        raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
    folder = dataset_dir(dataset, data_dir)
    result = CorefudExport(folder.name.lower())
    chosen = [split] if split else list(SPLITS)
    names = [name for one in chosen for name in _file_names(result.dataset, one)]
    listed = target.check_folder(out, folder, data_dir)
    target.check_files(Path(out), names, listed)
    target.mark(Path(out), names, listed)

    def write() -> dict[str, CorefudSplit | None]:
        """Every split from one build (repeated after a rebuild meanwhile; each file is replaced atomically)."""
        written: dict[str, CorefudSplit | None] = {}
        for one_split in chosen:
            tokens = read_table(folder, split=one_split, kind="documents")
            if tokens.num_rows == 0:
                written[one_split] = None
                continue
            mentions = load_mentions(folder, splits=[one_split], columns=MENTION_FIELDS)
            path = Path(out) / _file_names(result.dataset, one_split)[0]
            written[one_split] = write_split(udapi, tokens, mentions, path)
        return written

    result.splits = consistent([folder], write)
    return result


def _file_names(dataset: str, split: str) -> tuple[str, str]:
    """The CoNLL-U file of a split and its mapping file."""
    name = f"{dataset}_{split}.conllu"
    return name, f"{name}.entities.json"


def write_split(udapi: ModuleType, tokens: pa.Table, mentions: pa.Table, path: Path) -> CorefudSplit:
    """One split's tokens and mentions as one CoNLL-U file (rules in the module docstring)."""
    summary = CorefudSplit(path, path.with_name(path.name + ".entities.json"))
    document = udapi.Document()
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in mentions.select([*MENTION_FIELDS, KIND_COLUMN]).to_pylist():
        by_doc[row["conll_doc_key"]].append(row)
    entities: dict[str, Any] = {}
    ordered = tokens.sort_by([(DOC_KEY_COLUMN, "ascending"), ("token_id_global", "ascending")])
    rows_by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in ordered.select([DOC_KEY_COLUMN, "sent_id", "token_id", "token", "whitespace_after"]).to_pylist():
        rows_by_doc[row[DOC_KEY_COLUMN]].append(row)
    for doc_key, rows in rows_by_doc.items():
        nodes = _add_document(document, doc_key, rows)
        summary.documents += 1
        summary.sentences += len({row["sent_id"] for row in rows})
        summary.mentions += _add_mentions(document, nodes, by_doc.pop(doc_key, []), entities, summary.left_out)
    for doc_key, rows in by_doc.items():
        summary.left_out += [(row["mention_id"], f"document {doc_key!r} is not in the token table") for row in rows]
    summary.entities = len(entities)
    with atomic_path(path) as temporary, write_errors(path):
        document.store_conllu(str(temporary))
    mapping = {
        "entities": {entity.eid: chain for chain, entity in entities.items()},
        "left_out": [{"mention_id": mention_id, "reason": reason} for mention_id, reason in summary.left_out],
    }
    write_json(summary.mapping_path, mapping)
    return summary


def _add_document(document: Any, doc_key: str, rows: list[dict[str, Any]]) -> dict[tuple[int, int], Any]:
    """One tree per sentence; the nodes by (sent_id, token_id)."""
    nodes: dict[tuple[int, int], Any] = {}
    sentences: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        sentences[row["sent_id"]].append(row)
    for number, (sent_id, sentence) in enumerate(sentences.items()):
        bundle = document.create_bundle()
        bundle.bundle_id = f"{doc_key.replace('/', '_')}-{sent_id}"  # udapi reads "/" in a sent_id as a zone
        root = bundle.create_tree()
        if number == 0:
            root.newdoc = doc_key
        text = ""
        for row in sentence:
            form = token_field(row["token"])
            node = root.create_child(form=form, deprel="dep")
            if not row["whitespace_after"]:
                node.misc["SpaceAfter"] = "No"
            text += form + (" " if row["whitespace_after"] else "")
            nodes[(sent_id, row["token_id"])] = node
        root.text = text.rstrip()
    return nodes


def _add_mentions(
    document: Any,
    nodes: dict[tuple[int, int], Any],
    mentions: list[dict[str, Any]],
    entities: dict[str, Any],
    left_out: list[tuple[str, str]],
) -> int:
    """The document's mentions as udapi coref mentions of shared entities; the number written."""
    order = {key: index for index, key in enumerate(nodes)}
    by_id = {mention["mention_id"]: mention for mention in mentions}
    spans, chain_numbers = [], {chain: number for number, chain in enumerate(entities)}
    for mention in mentions:
        keys = [(mention["sent_id"], number) for number in mention["tokens_number"]]
        if not keys or any(key not in nodes for key in keys):
            left_out.append((mention["mention_id"], "tokens not in the token table"))
            continue
        number = chain_numbers.setdefault(mention["coref_chain"], len(chain_numbers))
        positions = sorted(order[key] for key in keys)
        spans.append(Span(positions[0], positions[-1], number, mention["mention_id"]))
    written = 0
    node_list = list(nodes.values())
    for span in representable(spans, left_out):
        mention = by_id[span.mention_id]
        chain = mention["coref_chain"]
        if chain not in entities:
            entities[chain] = document.create_coref_entity(eid=f"e{len(entities) + 1}", etype=mention[KIND_COLUMN])
        words = node_list[span.start : span.end + 1]
        head = nodes.get((mention["sent_id"], mention["mention_head_id"]))
        if head is None or head not in words:
            head = words[0]
        if mention["mention_head_pos"]:
            head.upos = mention["mention_head_pos"]
        if mention["mention_head_lemma"]:
            head.lemma = mention["mention_head_lemma"]
        entities[chain].create_mention(head=head, words=words)
        written += 1
    return written
