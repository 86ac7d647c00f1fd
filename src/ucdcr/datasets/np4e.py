"""NP4E_cd: NP4E (Hasler et al. 2006) with heuristic cross-document chains (paper appendix 7.1.10).

Raw layout (``<raw-dir>/NP4E/``): ``mmax2/<event>/`` MMAX2 projects (see :mod:`ucdcr.formats.mmax2`) for the five
events bukavu, china, israel, peru, tajikistan, and ``ucdcr-meta/train_val_test_split.json`` (subtopic numbers
per split: train 0-2, val 3, test 4).

Structure: one topic ``0`` ("0_bomb_explosion_kidnap"); subtopic k = the k-th of the five events of the release
(:data:`EVENTS`, ``0_bukavu`` … ``4_tajikistan``), so a missing event folder never renumbers the others: an event
the split file lists without a folder (or with no ``.mmax`` project) stops the build with its name (or, with the
reader option ``partial=true``, is noted in the build report); a folder that is not one of the five is an error.
One document per ``<id>newsML.mmax`` project, doc id = its digits. Every markable of the ``coref`` level is an
entity mention; its within-document chain is its ``coref_set``. A discontinuous markable (a span of several
fragments with a gap) is passed on as annotated; the build drops it with its reason instead of widening it.
Token text: a "$" glued before pure punctuation ("$--", "$-", "$...", 136 tokens) is an encoding artefact of the
corpus and is removed (the reference deletes "$-" from its strings likewise); every other token is kept as is.

Cross-document chains are not annotated. :func:`merge_within_subtopic` (the :attr:`DatasetSpec.finalize` hook,
run on the enriched records because it needs heads) merges within-document chains of different documents of
one subtopic by the paper's rule, then gives every chain its entity type (majority NER of its non-pronoun
heads, :func:`~ucdcr.datasets._chains.chain_entity_type`) and description (its most frequent non-pronoun mention
string). NIdent reuses both functions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ucdcr.datasets._chains import OTHER_TYPE, by_chain, chain_entity_type, majority, non_pronouns
from ucdcr.errors import FormatError
from ucdcr.formats import mmax2
from ucdcr.formats.corpus_checks import require_listed_ids
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.records import (
    DroppedMention,
    MentionRecord,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
    Split,
    mention_type_of,
)
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, register

MMAX_FOLDER = "mmax2"
TOPIC_ID, TOPIC = "0", "0_bomb_explosion_kidnap"
SUBTOPIC_NAMES = {  # the subtopic names of the uCDCR release (paper appendix 7.1.10)
    "bukavu": "Bukavu_bombing",
    "china": "China-Taiwan_hijack",
    "israel": "Israel_suicide_bomb",
    "peru": "Peru_hostages",
    "tajikistan": "Tajikistan_hostages",
}
EVENTS = tuple(SUBTOPIC_NAMES)  # the event folders of the release; subtopic number = position
EVENT_OF_NUMBER = {str(number): event for number, event in enumerate(EVENTS)}
DOWNLOAD_HINT = "Run `ucdcr download np4e` (np4e_mmax2.zip extracts to mmax2/)."


def read_np4e(raw_folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw NP4E MMAX2 tree -> SourceCorpus with within-document chains (merged later by the finalize hook)."""
    mmax_root = raw_folder / MMAX_FOLDER
    split_of = read_split_map(raw_folder / SPLIT_FILE)
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[raw_folder / SPLIT_FILE])
    events = event_projects(mmax_root)
    for number, (event, projects) in events.items():
        subtopic_id = f"{number}_{event}"
        if number not in split_of:
            raise FormatError(raw_folder / SPLIT_FILE, f"subtopic {number} ({event}) is in no split")
        for project in projects:
            _add_document(corpus, project, event, subtopic_id, split_of[number], raw_folder)
    require_listed_ids(
        corpus,
        options,
        split_of,
        events,
        what=f"subtopics (event folders with .mmax projects in {mmax_root})",
        names=EVENT_OF_NUMBER,
        listed_in=raw_folder / SPLIT_FILE,
        hint=DOWNLOAD_HINT,
    )
    corpus.counts["annotated"] = len(corpus.mentions)
    return corpus


def event_projects(mmax_root: Path) -> dict[str, tuple[str, list[Path]]]:
    """{subtopic number: (event, its .mmax projects)} for the event folders present that hold projects.

    A folder that is not one of :data:`EVENTS` is an error (hidden folders and ``__MACOSX`` are ignored).
    """
    found: dict[str, tuple[str, list[Path]]] = {}
    for folder in sorted(p for p in mmax_root.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))):
        if folder.name not in EVENTS:
            raise FormatError(folder, f"unknown event folder {folder.name!r}; NP4E's are {', '.join(EVENTS)}")
        projects = mmax2.project_files(folder)
        if projects:
            found[str(EVENTS.index(folder.name))] = (folder.name, projects)
    return found


def _add_document(
    corpus: SourceCorpus, project: Path, event: str, subtopic_id: str, split: Split, raw_folder: Path
) -> None:
    document = mmax2.read_project(project, levels=("coref",))
    doc_id = "".join(ch for ch in document.name if ch.isdigit()) or document.name
    source = SourceDocument(
        topic_id=TOPIC_ID,
        topic=TOPIC,
        subtopic_id=subtopic_id,
        subtopic=f"{subtopic_id.split('_')[0]}_{SUBTOPIC_NAMES[event]}",
        doc_id=doc_id,
        doc=doc_id,
        split=split,
        tokens=[SourceToken(w.word_id, clean_token(w.text), document.sentence_of[w.word_id]) for w in document.words],
        source_file=str(project.relative_to(raw_folder)),
    )
    corpus.documents.append(source)
    corpus.inputs.extend(document.files)
    for markable in document.levels["coref"]:
        corpus.mentions.append(_mention(markable, source, project))


def clean_token(text: str) -> str:
    """Drop the "$" artefact before pure punctuation ("$--" -> "--"); other tokens unchanged."""
    rest = text[1:]
    if text.startswith("$") and rest and not any(ch.isalnum() for ch in rest):
        return rest
    return text


def _mention(markable: mmax2.Markable, document: SourceDocument, project: Path) -> SourceMention:
    coref_set = markable.attributes.get("coref_set")
    if not coref_set:
        raise FormatError(project, f"coref markable {markable.markable_id} has no coref_set", markable.line)
    return SourceMention(
        doc_key=document.doc_key,
        token_ids=markable.word_ids,
        chain_id=within_document_chain(document.subtopic_id, document.doc_id, coref_set),
        kind="entity",
        full_type=OTHER_TYPE,  # replaced by the chain's majority NER in merge_within_subtopic
        description="",
        source_id=markable.markable_id,
    )


def within_document_chain(subtopic_id: str, doc_id: str, coref_set: str) -> str:
    """The provisional chain id of a within-document MMAX2 coref set (unique in the dataset)."""
    return f"{subtopic_id}_{doc_id}_{coref_set}"


# --- cross-document merge (paper appendix 7.1.10) ---------------------------------------------------------------


def chain_strings(records: Iterable[MentionRecord]) -> set[str]:
    """S(chain) = mention strings and head texts of the chain's non-pronoun mentions."""
    return {text for record in non_pronouns(list(records)) for text in (record.tokens_str, record.mention_head)}


def chains_match(strings_a: set[str], strings_b: set[str]) -> bool:
    """The paper's merge rule: at least two shared strings, or exactly one that is a proper name (capitalised)."""
    shared = strings_a & strings_b
    if len(shared) >= 2:
        return True
    return len(shared) == 1 and next(iter(shared))[:1].isupper()


class _UnionFind:
    def __init__(self, keys: Iterable[str]) -> None:
        self.parent = {key: key for key in keys}

    def find(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def union(self, a: str, b: str) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self.parent[max(root_a, root_b)] = min(root_a, root_b)


def merge_groups(units: dict[str, list[MentionRecord]]) -> list[list[str]]:
    """Transitive closure of :func:`chains_match` over chains of DIFFERENT documents; groups of unit keys, sorted."""
    strings = {key: chain_strings(records) for key, records in units.items()}
    document = {key: records[0].conll_doc_key for key, records in units.items()}
    keys = sorted(units)
    union_find = _UnionFind(keys)
    for i, key_a in enumerate(keys):
        for key_b in keys[i + 1 :]:
            if document[key_a] != document[key_b] and chains_match(strings[key_a], strings[key_b]):
                union_find.union(key_a, key_b)
    groups: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        groups[union_find.find(key)].append(key)
    return sorted(groups.values())


def chain_description(records: list[MentionRecord]) -> str:
    """The most frequent non-pronoun mention string (all mentions if none); ties -> alphabetically first."""
    return majority(r.tokens_str for r in non_pronouns(records) or records)


def assign_chain(records: list[MentionRecord], chain_id_stem: str) -> list[MentionRecord]:
    """The records of one chain with its chain id ``{TYPE[:3]}_{stem}``, entity type and description."""
    full_type = chain_entity_type(records)
    description = chain_description(records)
    chain = f"{mention_type_of(full_type)}_{chain_id_stem}"
    return [replace(r.with_type(full_type), coref_chain=chain, description=description) for r in records]


def merge_within_subtopic(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
    """The NP4E finalize hook: merge within-document chains across the documents of each subtopic.

    Input records carry the provisional within-document chain id in ``coref_chain``. Two chains of different
    documents of one subtopic are linked by :func:`chains_match`; chains are the connected components
    (deterministic transitive closure, unlike the reference's two-hop expansion from a seed chain,
    docs/datasets/np4e.md#differences-from-the-authors-code). The merged chain id is
    ``{TYPE[:3]}_{smallest provisional id of the group}``, so rebuilding gives the same ids. Nothing is dropped:
    pronoun-only chains stay as they are (the reference drops them). The records come back in the order given.
    """
    by_subtopic: dict[str, list[MentionRecord]] = defaultdict(list)
    for record in records:
        by_subtopic[record.subtopic_id].append(record)
    merged: dict[int, MentionRecord] = {}
    for subtopic_records in by_subtopic.values():
        units = by_chain(subtopic_records)
        for group in merge_groups(units):
            members = [r for key in group for r in units[key]]
            merged.update(zip(map(id, members), assign_chain(members, group[0]), strict=True))
    return [merged.get(id(r), r) for r in records], []


SPEC = register(
    DatasetSpec(
        id="np4e",
        paper_name="NP4E_cd",
        authors_folder="NP4E",
        raw_folder="NP4E",
        mention_kinds=("entity",),
        reader=read_np4e,
        finalize=merge_within_subtopic,
        mention_id_prefix="NP4E_",
        gold_fields=GOLD_FIELDS,  # the chain's type and description on every mention, nothing else
        expected_counts=(
            ExpectedCount("mentions_annotated", 6574, "paper Table 8 'Original' (the coref markables)"),
            ExpectedCount(
                "mentions_written",
                6574,
                "paper Table 8 'Original': every markable is kept (the paper's 6559 lost 15 to re-mapping and to "
                "pronoun-only cross-document groups the authors' code drops)",
            ),
            ExpectedCount("documents", 94, "paper Table 2"),
            ExpectedCount("train.documents", 55, "paper Table 12"),
            ExpectedCount("val.documents", 19, "paper Table 12"),
            ExpectedCount("test.documents", 20, "paper Table 12"),
            ExpectedCount("singletons", 0, "paper Table 2 (every markable is in a coref set; merging only grows)"),
            ExpectedCount("test.mentions", 1440, "paper Table 4 (no re-mapping losses in the test split)"),
        ),
    )
)
