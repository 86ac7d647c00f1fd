"""spaCy: a built dataset's documents as ``Doc`` objects with the coreference chains as span groups, and as a
``DocBin`` file.

One ``Doc`` per document (in document-key order), built on a blank English vocabulary from the token table
(``all_documents.parquet``):

- words and spaces: the output tokens and ``whitespace_after``; a sentence's last token is followed by a space
  (the table keeps no text between sentences);
- sentences: ``is_sent_start`` at the first token of every sentence;
- what the build's re-parse stored, on the tokens it is known for (the mention heads): ``pos_`` and ``lemma_``
  from ``mention_head_pos`` / ``mention_head_lemma``, and the head's ``mention_ner`` (other than ``O``) as a
  one-token entity in ``doc.ents``;
- chains: ``doc.spans[<coref_chain>]``, one span group per chain holding its mentions in this document, each span
  with ``id_`` = the mention id, ``kb_id_`` = the chain id and ``label_`` = ``event`` or ``entity`` (the file the
  mention is in); a chain spread over several documents has a group of the same name in each (cross-document
  chain ids are shared);
- ``doc.user_data``: ``conll_doc_key``, ``split`` and ``sent_ids`` (the unified ``sent_id`` of each sentence).

:func:`mentions_from_docs` reads the mentions back (document key, mention id, chain, kind, ``sent_id`` and
``tokens_number``), so a ``DocBin`` round trip can be checked. A mention whose tokens are not contiguous cannot
be a spaCy span: it is left out and listed with its reason (:attr:`SpacyExport.left_out`). A dataset whose texts
may not be redistributed has no token table: refused with a clear error.

:func:`export_spacy` writes the ``DocBin`` (with user data) atomically to one file: a new file, or one an earlier
``export_spacy`` wrote; never in a data dir, raw dir or dataset folder (:mod:`ucdcr.export.target`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ucdcr.errors import UcdcrError
from ucdcr.io.load import KIND_COLUMN, load_mentions, read_table
from ucdcr.io.one_build import consistent
from ucdcr.records import SPLITS
from ucdcr.schema import DOC_KEY_COLUMN

if TYPE_CHECKING:
    from spacy.tokens import Doc

MENTION_FIELDS = (
    "mention_id",
    "coref_chain",
    "conll_doc_key",
    "sent_id",
    "tokens_number",
    "mention_head_id",
    "mention_head_pos",
    "mention_head_lemma",
    "mention_ner",
)
NO_ENTITY = "O"


@dataclass
class SpacyDocs:
    """The documents of :func:`to_spacy_docs` and the mentions that could not be spans, with the reason."""

    docs: list[Doc]
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (mention_id, reason)

    @property
    def mentions(self) -> int:
        return sum(len(group) for doc in self.docs for group in doc.spans.values())


@dataclass
class SpacyExport:
    """What :func:`export_spacy` wrote."""

    path: Path
    documents: int
    mentions: int
    chains: int
    left_out: list[tuple[str, str]]


def to_spacy_docs(dataset: str | Path, split: str | None = None, data_dir: str | Path | None = None) -> SpacyDocs:
    """A built dataset's documents (of one split, or all) as spaCy ``Doc`` objects (rules in the module docstring)."""
    import spacy

    from ucdcr.sources.discover import dataset_dir

    if split is not None and split not in SPLITS:
        raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
    folder = dataset_dir(dataset, data_dir)
    tokens, mentions = consistent(  # both from one build, also while the dataset is rebuilt
        [folder],
        lambda: (
            read_table(folder, split=split, kind="documents"),
            load_mentions(folder, splits=[split] if split else SPLITS, columns=MENTION_FIELDS),
        ),
    )
    vocab = spacy.blank("en").vocab
    by_doc = _mentions_by_document(mentions)
    result = SpacyDocs([])
    for doc_key, rows in _token_rows(tokens).items():
        result.docs.append(_document(vocab, doc_key, rows, by_doc.pop(doc_key, []), result.left_out))
    for doc_key, rows in by_doc.items():
        result.left_out += [(row["mention_id"], f"document {doc_key!r} is not in the token table") for row in rows]
    return result


def _token_rows(tokens: pa.Table) -> dict[str, list[dict[str, Any]]]:
    ordered = tokens.sort_by([(DOC_KEY_COLUMN, "ascending"), ("token_id_global", "ascending")])
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in ordered.select(
        [DOC_KEY_COLUMN, "sent_id", "token_id", "token", "whitespace_after", "split"]
    ).to_pylist():
        rows[row[DOC_KEY_COLUMN]].append(row)
    return dict(rows)


def _mentions_by_document(mentions: pa.Table) -> dict[str, list[dict[str, Any]]]:
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in mentions.select([*MENTION_FIELDS, KIND_COLUMN]).to_pylist():
        by_doc[row["conll_doc_key"]].append(row)
    return by_doc


def _document(
    vocab: Any,
    doc_key: str,
    rows: list[dict[str, Any]],
    mentions: list[dict[str, Any]],
    left_out: list[tuple[str, str]],
) -> Doc:
    from spacy.tokens import Doc, Span, SpanGroup

    sent_starts = [index == 0 or row["sent_id"] != rows[index - 1]["sent_id"] for index, row in enumerate(rows)]
    spaces = [
        bool(row["whitespace_after"]) or (index + 1 < len(rows) and sent_starts[index + 1])
        for index, row in enumerate(rows)
    ]
    doc = Doc(vocab, words=[row["token"] for row in rows], spaces=spaces, sent_starts=sent_starts)
    position = {(row["sent_id"], row["token_id"]): index for index, row in enumerate(rows)}
    doc.user_data.update(
        conll_doc_key=doc_key,
        split=rows[0]["split"],
        sent_ids=[row["sent_id"] for row, start in zip(rows, sent_starts, strict=True) if start],
    )
    chains: dict[str, list[Span]] = defaultdict(list)
    heads: dict[int, dict[str, Any]] = {}
    for mention in sorted(mentions, key=lambda m: (m["sent_id"], min(m["tokens_number"] or [0]), m["mention_id"])):
        indices = [position.get((mention["sent_id"], number)) for number in mention["tokens_number"]]
        reason = _not_a_span(indices)
        if reason:
            left_out.append((mention["mention_id"], reason))
            continue
        placed = [index for index in indices if index is not None]
        first, last = min(placed), max(placed)
        span = Span(doc, first, last + 1, label=mention[KIND_COLUMN], kb_id=mention["coref_chain"])
        span.id_ = mention["mention_id"]
        chains[mention["coref_chain"]].append(span)
        head = position.get((mention["sent_id"], mention["mention_head_id"]))
        if head is not None:
            heads[head] = mention
    for chain, spans in chains.items():
        doc.spans[chain] = SpanGroup(doc, name=chain, spans=spans)
    _annotate_heads(doc, heads)
    return doc


def _not_a_span(indices: list[int | None]) -> str:
    """Why these token indices cannot be one span ('' when they can)."""
    if not indices:
        return "no tokens"
    if any(index is None for index in indices):
        return "tokens not in the token table"
    ordered = sorted(index for index in indices if index is not None)
    if ordered != list(range(ordered[0], ordered[-1] + 1)):
        return "tokens not contiguous: a spaCy span cannot hold them"
    return ""


def _annotate_heads(doc: Doc, heads: dict[int, dict[str, Any]]) -> None:
    """POS, lemma and NER of the mention heads, as the build's re-parse stored them."""
    from spacy.tokens import Span

    entities = []
    for index, mention in sorted(heads.items()):
        token = doc[index]
        if mention["mention_head_pos"]:
            token.pos_ = mention["mention_head_pos"]
        if mention["mention_head_lemma"]:
            token.lemma_ = mention["mention_head_lemma"]
        if mention["mention_ner"] and mention["mention_ner"] != NO_ENTITY:
            entities.append(Span(doc, index, index + 1, label=mention["mention_ner"]))
    doc.set_ents(entities, default="unmodified")


def mentions_from_docs(docs: Iterable[Doc]) -> list[dict[str, Any]]:
    """The mentions held by the span groups of ``docs`` (as :func:`to_spacy_docs` writes them), in unified terms:
    ``conll_doc_key``, ``mention_id``, ``coref_chain``, ``type``, ``sent_id`` and ``tokens_number``."""
    mentions = []
    for doc in docs:
        sent_ids = doc.user_data.get("sent_ids")
        sentences = list(doc.sents)
        sentence_of = {token.i: number for number, sentence in enumerate(sentences) for token in sentence}
        for name, group in doc.spans.items():
            for span in group:
                number = sentence_of[span.start]
                mentions.append(
                    {
                        "conll_doc_key": doc.user_data.get("conll_doc_key"),
                        "mention_id": span.id_,
                        "coref_chain": name,
                        KIND_COLUMN: span.label_,
                        "sent_id": sent_ids[number] if sent_ids else number,
                        "tokens_number": [token.i - sentences[number].start for token in span],
                    }
                )
    return mentions


def export_spacy(
    dataset: str | Path, out: str | Path, split: str | None = None, data_dir: str | Path | None = None
) -> SpacyExport:
    """Write a built dataset's documents (one split, or all) as a spaCy ``DocBin`` file ``out`` (``.spacy``),
    atomically; read it with ``DocBin().from_disk(out).get_docs(nlp.vocab)``."""
    from ucdcr.export.target import check_file
    from ucdcr.io.atomic import write_bytes
    from ucdcr.sources.discover import dataset_dir

    folder = dataset_dir(dataset, data_dir)
    check_file(out, folder, data_dir)  # before spaCy is imported: a refused --out fails at once
    from spacy.tokens import DocBin

    converted = to_spacy_docs(folder, split=split, data_dir=data_dir)
    doc_bin = DocBin(store_user_data=True, docs=converted.docs)
    write_bytes(out, doc_bin.to_bytes())
    chains = {name for doc in converted.docs for name in doc.spans}
    return SpacyExport(Path(out), len(converted.docs), converted.mentions, len(chains), converted.left_out)
