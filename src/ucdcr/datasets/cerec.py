"""CEREC_exp: entity coreference in Enron e-mail threads (Dakle & Moldovan 2020; paper appendix 7.1.2).

Raw files (``<raw-dir>/CEREC/``), format :mod:`ucdcr.formats.cerec_conll`: the final release
``data/COLING/cerec.zip`` holds the experiment files uCDCR uses, named in the package manifest (``members``):
train ``seed.conll`` (43 threads), val ``cerec.validation.20.conll`` (20), test ``cerec.validation.14.conll`` (14).
Each is looked for, in order, as an extracted file ``data/COLING/<name>``, as a member of ``cerec.zip``, and as
a stand-in named by the manifest (``stands_in_for``: ``_superseded/data/COLING/dev.zip`` holds the Dec-2020
``dev.20.conll`` / ``dev.14.conll`` for val / test). A split with neither is reported in
``SourceCorpus.unavailable_splits`` (here: train, whose ``seed.conll`` has no public stand-in).

Structure: one topic ``0`` ("0_emails"); a subtopic per thread (id and name = the thread file name without
``.txt``); a document per message of the thread (message id column), doc id ``<message id>_<speaker>`` with the
message's first non-SYSTEM speaker (``-`` -> ``unknown``). Tokens of the speaker ``SYSTEM`` (headers the corpus
generated) are excluded from the documents; sentences are the blank-line sentences, renumbered per document.

Chains: ``<thread>_<original id>`` while reading; the finalize hook appends the chain's entity type,
``<thread>_<original id>_<TYPE[:3]>``, type = majority NER of the chain's non-pronoun heads (O ignored, else
OTHER), description = the chain's most frequent non-pronoun head. A mention on SYSTEM tokens (wholly, or partly:
it would be shortened), or across two messages, is dropped with its reason.

Source id (hashed into the mention id): ``<thread>:<line of the opening bracket>:<number>``, the number telling
apart the mentions of one span annotated in several chains (plural "we" in chains 11 and 12) by the order of their
labels in the column (:attr:`~ucdcr.formats.cerec_conll.CerecMention.number`), never by the chain.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from ucdcr.datasets._chains import OTHER_TYPE, by_chain, chain_entity_type, majority, non_pronouns
from ucdcr.errors import FormatError
from ucdcr.formats.cerec_conll import CerecMention, CerecThread, CerecToken, read_cerec_conll
from ucdcr.formats.inputs import open_zip, read_text
from ucdcr.manifest import Manifest
from ucdcr.records import (
    SPLITS,
    DroppedMention,
    MentionRecord,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
    Split,
    mention_type_of,
)
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, get, missing_raw_data, register

DATASET_ID = "cerec"
FINAL_DIR = "data/COLING"
TOPIC_ID, TOPIC = "0", "0_emails"
SYSTEM_SPEAKER = "SYSTEM"
UNKNOWN_SPEAKER = "unknown"


@dataclass(frozen=True)
class SplitSource:
    """Where one split's file was found: file (or zip) path, member inside the zip, whether it is a stand-in."""

    split: Split
    final_name: str
    path: Path
    member: str | None
    stand_in: bool
    raw: Path

    @property
    def label(self) -> str:
        """``<path relative to the raw folder>[:<zip member>]``, for notes and errors."""
        relative = self.path.relative_to(self.raw).as_posix() if self.path.is_relative_to(self.raw) else str(self.path)
        return f"{relative}:{self.member}" if self.member else relative

    def read_text(self) -> str:
        if self.member is None:
            return read_text(self.path)
        with open_zip(self.path) as archive:
            return archive.read_text(self.member)


def split_file_names(manifest: Manifest) -> dict[str, str]:
    """split -> final file name, from the manifest entry that lists the release's ``members``."""
    for entry in manifest.files:
        if entry.members:
            return dict(entry.members)
    raise FormatError("ucdcr/manifests/cerec.json", "no entry with the split 'members' of the final release")


def _zip_member(archive: Path, basename: str) -> str | None:
    with open_zip(archive) as bundle:
        names = [n for n in bundle.names() if n.rsplit("/", 1)[-1] == basename and "__MACOSX" not in n]
    return min(names) if names else None


def locate_split(raw: Path, split: Split, final_name: str, manifest: Manifest) -> SplitSource | None:
    """The final file, else its member in the final zip, else a manifest stand-in; None if none is present."""
    extracted = raw / FINAL_DIR / final_name
    if extracted.exists():
        return SplitSource(split, final_name, extracted, None, stand_in=False, raw=raw)
    for entry in manifest.files:
        archive = raw / entry.path
        if entry.members and archive.exists():
            member = _zip_member(archive, final_name)
            if member:
                return SplitSource(split, final_name, archive, member, stand_in=False, raw=raw)
    for entry in manifest.files:
        stand_in_name = entry.stands_in_for.get(final_name)
        archive = raw / entry.path
        if stand_in_name and archive.exists():
            member = _zip_member(archive, stand_in_name)
            if member:
                return SplitSource(split, final_name, archive, member, stand_in=True, raw=raw)
    return None


def read_cerec(raw_folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw CEREC files (final or stand-in) -> SourceCorpus; missing splits listed as unavailable."""
    manifest = get(DATASET_ID).manifest
    names = split_file_names(manifest)
    corpus = SourceCorpus(documents=[], mentions=[])
    sources = []
    for split in SPLITS:
        source = locate_split(raw_folder, split, names[split], manifest)
        if source is None:
            corpus.unavailable_splits[split] = (
                f"{names[split]} (member of {FINAL_DIR}/cerec.zip) is not in {raw_folder} and has no stand-in; "
                f"run `ucdcr download cerec` to get cerec.zip"
            )
        else:
            sources.append(source)
    if not sources:
        raise missing_raw_data(DATASET_ID, raw_folder, [f"no CEREC split file found ({', '.join(names.values())})"])
    for source in sources:
        if source.path not in corpus.inputs:
            corpus.inputs.append(source.path)
        if source.stand_in:
            corpus.notes.append(f"{source.split}: {source.final_name} read from the stand-in {source.label}")
        for thread in read_cerec_conll(source.read_text(), source.label):
            _add_thread(corpus, thread, source)
    corpus.counts["annotated"] = len(corpus.mentions) + len(corpus.dropped)
    return corpus


def _add_thread(corpus: SourceCorpus, thread: CerecThread, source: SplitSource) -> None:
    messages: dict[str, list[CerecToken]] = defaultdict(list)
    for token in thread.tokens:
        if token.speaker != SYSTEM_SPEAKER:
            messages[token.message_id].append(token)
    corpus.counts["system_tokens"] = corpus.counts.get("system_tokens", 0) + sum(
        1 for t in thread.tokens if t.speaker == SYSTEM_SPEAKER
    )
    document_of: dict[str, SourceDocument] = {}
    for message_id, tokens in messages.items():
        document = _document(thread, message_id, tokens, source)
        corpus.documents.append(document)
        document_of[message_id] = document
    for mention in thread.mentions:
        _add_mention(corpus, thread, mention, document_of, source)


def _document(thread: CerecThread, message_id: str, tokens: list[CerecToken], source: SplitSource) -> SourceDocument:
    speaker = next((t.speaker for t in tokens if t.speaker != "-"), UNKNOWN_SPEAKER)
    sentence_numbers: dict[int, int] = {}
    for token in tokens:
        sentence_numbers.setdefault(token.sentence, len(sentence_numbers))
    doc_id = f"{message_id}_{speaker}"
    return SourceDocument(
        topic_id=TOPIC_ID,
        topic=TOPIC,
        subtopic_id=thread.stem,
        subtopic=thread.stem,
        doc_id=doc_id,
        doc=doc_id,
        split=source.split,
        tokens=[SourceToken(str(t.index), t.text, sentence_numbers[t.sentence]) for t in tokens],
        source_file=source.label,
    )


def _add_mention(
    corpus: SourceCorpus,
    thread: CerecThread,
    mention: CerecMention,
    document_of: dict[str, SourceDocument],
    source: SplitSource,
) -> None:
    span = thread.tokens[mention.first : mention.last + 1]
    kept = [t for t in span if t.speaker != SYSTEM_SPEAKER]
    source_id = f"{thread.stem}:{mention.line}:{mention.number}"  # not the chain: mention ids must not depend on it
    messages = {t.message_id for t in kept}
    reason = ""
    if not kept:
        reason = "mention lies on SYSTEM-speaker tokens only (excluded from the documents)"
    elif len(kept) < len(span):
        reason = "mention covers SYSTEM-speaker tokens, which are excluded from the documents (it would be shortened)"
    elif len(messages) > 1:
        reason = f"mention spans messages {sorted(messages)}"
    if reason:
        doc_key = f"{TOPIC_ID}/{thread.stem}/?"
        corpus.dropped.append(
            DroppedMention(
                doc_key, source_id, f"{mention.first}..{mention.last}", " ".join(t.text for t in span), reason, "read"
            )
        )
        return
    document = document_of[kept[0].message_id]
    corpus.mentions.append(
        SourceMention(
            doc_key=document.doc_key,
            token_ids=tuple(str(t.index) for t in kept),
            chain_id=f"{thread.stem}_{mention.chain}",
            kind="entity",
            full_type=OTHER_TYPE,  # replaced by the chain's majority NER in finalize_chains
            description="",
            source_id=source_id,
        )
    )


def finalize_chains(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
    """Append the chain type to the chain id and set type and description (paper appendix 7.1.2)."""
    typed: dict[int, MentionRecord] = {}
    for chain_id, chain in by_chain(records).items():
        full_type = chain_entity_type(chain)
        description = majority(r.mention_head for r in non_pronouns(chain) or chain)
        chain_of_type = f"{chain_id}_{mention_type_of(full_type)}"
        for record in chain:
            typed[id(record)] = replace(record.with_type(full_type), coref_chain=chain_of_type, description=description)
    return [typed[id(r)] for r in records], []


SPEC = register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="CEREC_exp",
        authors_folder="CEREC",
        raw_folder="CEREC",
        mention_kinds=("entity",),
        reader=read_cerec,
        finalize=finalize_chains,
        mention_id_prefix="CEREC_",
        gold_fields=GOLD_FIELDS,  # the chain's type and description on every mention, nothing else
        expected_counts=(
            ExpectedCount("val.subtopics", 20, "paper Table 12 (threads)"),
            ExpectedCount("test.subtopics", 14, "paper Table 12 (threads)"),
            ExpectedCount(
                "val.mentions",
                2113,
                "counted: 2113 opening brackets in the val file (paper Table 12: 2094; the authors' code lost 19 in "
                "re-mapping)",
            ),
            ExpectedCount("val.chains", 422, "paper Table 12"),
            ExpectedCount("val.documents", 135, "paper Table 12"),
            ExpectedCount(
                "test.mentions", 1291, "counted: 1291 opening brackets in the test file (paper Table 12: 1267)"
            ),
            ExpectedCount("test.chains", 306, "measured on our build (paper Table 12: 303)"),
            ExpectedCount(
                "test.documents",
                85,
                "counted: 85 messages (paper Table 12: 87; the authors' code splits one message at a speaker change "
                "and one more through a substring test on message ids)",
            ),
        ),
    )
)
