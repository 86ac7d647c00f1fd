"""FCC-T (Bugert et al. 2020, 2021): token-level Football Coreference Corpus, event mentions only.

Raw folder ``<raw-dir>/FCC/`` = the ``datasets`` folder the tudatalib recipe (``mbugert/fcc``) writes:
``2020-10-05_FCC_cleaned/<split>/{documents,tokens}.csv`` and
``2020-10-05_FCC-T/<split>/with_stacked_actions/cross_subtopic_mentions_action.csv``
(format: :mod:`ucdcr.formats.fcc_csv`).

Structure (paper §7.1.5, docs/datasets/fcct.md#structure): one topic ``0`` (football matches); subtopic = the document's
seminal event, id ``shortuuid(seminal event)``; a document without a seminal event gets a subtopic of its own
(``singleton_subtopic_<doc-id>``, as Bugert et al.); ``conll_doc_key = 0/<subtopic id>/<doc-id>``. Original splits
(``dev`` -> ``val``). Chains: ``EVE`` + ``shortuuid(event)``, corpus-wide, so cross-subtopic (and cross-split)
chains stay one chain; ``other_event`` is one chain, as in uCDCR's code (its README's per-collection renaming
happens after the chain id is taken). Stacked actions (one span, several events) are kept as one mention per
event (Table 8 counts 3,563 annotated mentions with them). Participants/time/location are not output.

Tokens: an empty token cell is not a token (counted as ``empty_token_cells``; a mention over it keeps its other
tokens, so its characters are unchanged; a mention with only empty cells is dropped with its reason). The token
indices of every sentence must run 0..n-1 without a gap or a repeat (a gap would silently shorten a mention). A
document of ``documents.csv`` without tokens stops the build (or, with the reader option ``partial=true``, is left
out with its mentions, noted and listed in the build report).
"""

from __future__ import annotations

from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.corpus_checks import report_missing
from ucdcr.formats.fcc_csv import (
    FccAction,
    FccDocument,
    read_actions,
    read_documents,
    read_tokens,
)
from ucdcr.formats.shortuuid import name_shortuuid
from ucdcr.records import (
    DroppedMention,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
    Split,
)
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, register

DATASET_ID = "fcct"
RAW_FOLDER = "FCC"
SENTENCE_LEVEL_DIR = "2020-10-05_FCC_cleaned"
TOKEN_LEVEL_DIR = "2020-10-05_FCC-T"
ACTIONS_FILE = "with_stacked_actions/cross_subtopic_mentions_action.csv"
SPLIT_FOLDERS: dict[Split, str] = {"train": "train", "val": "dev", "test": "test"}
TOPIC_ID, TOPIC_NAME = "0", "0_football_matches"
EVENT_TYPE = "EVENT"


def split_files(raw_dir: Path, split: Split) -> tuple[Path, Path, Path]:
    """documents.csv, tokens.csv and the action mention table of one split."""
    folder = SPLIT_FOLDERS[split]
    sentence_level = raw_dir / SENTENCE_LEVEL_DIR / folder
    return (
        sentence_level / "documents.csv",
        sentence_level / "tokens.csv",
        raw_dir / TOKEN_LEVEL_DIR / folder / ACTIONS_FILE,
    )


def subtopic_of(document: FccDocument) -> str:
    """The subtopic name: the seminal event, or a subtopic of the document's own."""
    return document.seminal_event or f"singleton_subtopic_{document.doc_id}"


Lengths = dict[str, dict[int, int]]  # doc-id -> sentence-idx -> number of tokens


def _documents(
    split: Split, documents: list[FccDocument], tokens_path: Path
) -> tuple[dict[str, SourceDocument], Lengths, int]:
    """The split's documents with their tokens, per document the length of every sentence, and the number of
    empty token cells."""
    built: dict[str, SourceDocument] = {}
    indices: dict[tuple[str, int], list[int]] = {}
    for document in documents:
        subtopic = subtopic_of(document)
        built[document.doc_id] = SourceDocument(
            TOPIC_ID,
            TOPIC_NAME,
            name_shortuuid(subtopic),
            subtopic,
            document.doc_id,
            document.doc_id,
            split,
            [],
            source_file=str(tokens_path),
        )
    empty_cells = 0
    for token in read_tokens(tokens_path):
        if token.doc_id not in built:
            raise FormatError(tokens_path, f"token of unknown document {token.doc_id!r} (not in documents.csv)")
        indices.setdefault((token.doc_id, token.sentence), []).append(token.index)
        if token.text.strip():
            token_id = f"{token.sentence}.{token.index}"
            built[token.doc_id].tokens.append(SourceToken(token_id, token.text, token.sentence))
        else:
            empty_cells += 1
    lengths: Lengths = {doc_id: {} for doc_id in built}
    for (doc_id, sentence), seen in indices.items():
        if sorted(seen) != list(range(len(seen))):
            raise FormatError(
                tokens_path,
                f"document {doc_id}, sentence {sentence}: token-idx values {_runs(seen)} do "
                f"not run 0..{len(seen) - 1} once each (a token is missing or repeated)",
            )
        lengths[doc_id][sentence] = len(seen)
    return built, lengths, empty_cells


def _runs(values: list[int]) -> str:
    shown = sorted(values)
    return f"{shown[:12]}{' ...' if len(shown) > 12 else ''}"


def _check_span(action: FccAction, lengths: Lengths, path: Path) -> None:
    if action.doc_id not in lengths:
        raise FormatError(path, f"mention of unknown document {action.doc_id!r}", action.line)
    length = lengths[action.doc_id].get(action.sentence)
    if length is None:
        raise FormatError(path, f"sentence {action.sentence} does not exist in document {action.doc_id}", action.line)
    if action.token_to > length:
        raise FormatError(
            path,
            f"span {action.token_from}..{action.token_to - 1} is outside sentence {action.sentence} "
            f"({length} tokens) of document {action.doc_id}",
            action.line,
        )


def _mention(action: FccAction, doc: SourceDocument, known: set[str]) -> SourceMention | DroppedMention:
    wanted = [f"{action.sentence}.{index}" for index in range(action.token_from, action.token_to)]
    token_ids = tuple(token_id for token_id in wanted if token_id in known)
    source_id = f"{action.doc_id}/{action.mention_id}"
    if not token_ids:
        span = f"sentence {action.sentence} tokens {action.token_from}..{action.token_to - 1}"
        return DroppedMention(doc.doc_key, source_id, span, "", "the span holds only empty token cells", "read")
    return SourceMention(
        doc.doc_key,
        token_ids,
        "EVE" + name_shortuuid(action.event),
        "event",
        EVENT_TYPE,
        action.event,
        source_id,
    )


def read_fcct(raw_dir: Path, options: ReadOptions) -> SourceCorpus:
    """The three splits of FCC-T -> SourceCorpus."""
    corpus = SourceCorpus(documents=[], mentions=[], counts={"annotated": 0})
    empty_cells = 0
    for split in SPLIT_FOLDERS:
        documents_path, tokens_path, actions_path = split_files(raw_dir, split)
        docs, lengths, empty = _documents(split, read_documents(documents_path), tokens_path)
        empty_cells += empty
        absent = _without_tokens(corpus, options, docs, tokens_path)
        corpus.documents.extend(docs.values())
        corpus.inputs.extend([documents_path, tokens_path, actions_path])
        known = {doc_id: {token.token_id for token in doc.tokens} for doc_id, doc in docs.items()}
        for action in read_actions(actions_path):
            corpus.counts["annotated"] += 1
            if action.doc_id in absent:
                corpus.dropped.append(
                    DroppedMention(
                        f"{TOPIC_ID}/{absent[action.doc_id]}/{action.doc_id}",
                        f"{action.doc_id}/{action.mention_id}",
                        f"sentence {action.sentence}",
                        "",
                        f"document has no tokens in {tokens_path.name}",
                        "read",
                    )
                )
                continue
            _check_span(action, lengths, actions_path)
            result = _mention(action, docs[action.doc_id], known[action.doc_id])
            if isinstance(result, DroppedMention):
                corpus.dropped.append(result)
            else:
                corpus.mentions.append(result)
    if empty_cells:
        corpus.counts["empty_token_cells"] = empty_cells
    corpus.notes.append("participant/time/location mentions of FCC-T are not output (no coreference annotated)")
    return corpus


def _without_tokens(
    corpus: SourceCorpus, options: ReadOptions, docs: dict[str, SourceDocument], tokens_path: Path
) -> dict[str, str]:
    """Remove the documents without tokens from ``docs`` (an error unless partial=true); {doc id: subtopic id}."""
    absent = {doc_id: doc.subtopic_id for doc_id, doc in docs.items() if not doc.tokens}
    if absent:
        report_missing(
            corpus,
            options,
            tokens_path,
            f"documents of documents.csv without tokens here: {', '.join(sorted(absent))}",
            "The file may be truncated: rebuild it with the FCC recipe.",
            kind="format",
        )
        for doc_id in absent:
            del docs[doc_id]
    return absent


SPEC = register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="FCC-T",
        authors_folder="FCC",
        raw_folder=RAW_FOLDER,
        mention_kinds=("event",),
        reader=read_fcct,
        texts_redistributable=False,
        mention_id_prefix="FCC-T_",
        gold_fields=GOLD_FIELDS,  # the event chains; nothing else is annotated
        expected_counts=(
            ExpectedCount(
                "mentions_annotated", 3563, "paper Table 8 'Original' (stacked actions counted once per event)"
            ),
            ExpectedCount("documents", 451, "Bugert et al. 2021"),
        ),
    )
)
