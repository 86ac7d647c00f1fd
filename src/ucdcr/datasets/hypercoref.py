"""HyperCoref_exp (Bugert & Gurevych 2021): the BBC part of HyperCoref, sampled like the paper's experiments.

Raw folder ``<raw-dir>/HyperCoref/<outlet>/6_CreateSplitsStage_create_splits/{train,dev,test}/*.parquet`` (the
pipeline's own output; format: :mod:`ucdcr.formats.hypercoref_parquet`); outlet ``bbc.com`` unless the reader option
``outlets`` (:class:`HypercorefOptions`, ``ucdcr build hypercoref --outlets a,b``) lists others (e.g.
``abcnews.go.com``).

Sampling (paper §7.1.7, per outlet and split, on the hyperlinks = mentions):
1. test: drop the mentions of subtopics with a single mention; train/val: drop a mention whose chain has one
   mention AND whose subtopic has one mention;
2. train: keep at most 25,000 mentions, val: 2,400 (BBC) / 1,700 (ABC); test is not sampled. Whole chains are taken,
   largest first, until the limit is reached (the chain that crosses it is kept). Ties between equal-sized chains go
   to the alphabetically first target URL (uCDCR's order among them is pandas' unstable sort; the uCDCR code also
   uses 4,200 for BBC val, against its paper and README).
Documents without a kept mention are left out. Sampled-out mentions are counted in the build report
(``reader_sampled_out_*``), not listed: Table 8 counts "annotated" after sampling.

Structure: topic / subtopic from the URL (:func:`~ucdcr.formats.hypercoref_parquet.url_structure`); document id
``shortuuid(url with / -> _)`` as uCDCR, document name = that string; ``conll_doc_key = Topic/outlet_sub/id``.
Chain = the normalised target URL (also the description). The original CoreNLP tokenization is kept
(``reparse=False``); heads come from the pipeline's deterministic rule (DESIGN.md §4.1), not uCDCR's rule C
(REFERENCE.md §2.1), so no mention is lost to head failures.

Completeness: a document with a kept hyperlink must have tokens in ``tokens.parquet`` (else an error, or with the
reader option ``partial=true`` its mentions are dropped with the reason and the note names it); a sentence
without a sentence string in ``sentences.parquet`` gets its spacing guessed (counted as
``sentences_without_string``).

Event vs entity (finalize hook, REFERENCE.md §1.4): a mention is event-like when its head POS is not one of ADJ,
ADV, ADP, NOUN, NUM, PRON, PROPN; a chain with any event-like mention is an event chain (type EVENT), the others
are entity chains typed by their majority head NER (``O`` -> OTHER; ties: alphabetical).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from ucdcr.datasets._chains import NO_NER, OTHER_TYPE, by_chain, majority
from ucdcr.download import missing_raw_data
from ucdcr.formats.corpus_checks import report_missing
from ucdcr.formats.hypercoref_parquet import (
    Hyperlink,
    read_hyperlinks,
    read_sentences,
    read_tokens,
    space_after_flags,
    url_structure,
)
from ucdcr.formats.shortuuid import name_shortuuid
from ucdcr.records import (
    DroppedMention,
    MentionKind,
    MentionRecord,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
    Split,
)
from ucdcr.registry import DatasetSpec, ExpectedCount, ReadOptions, register

DATASET_ID = "hypercoref"
RAW_FOLDER = "HyperCoref"
DEFAULT_OUTLETS = ("bbc.com",)
STAGE_FOLDERS = ("6_CreateSplitsStage_create_splits", "7_CreateSplitsStage_create_splits")
SPLIT_FOLDERS: dict[Split, str] = {"train": "train", "val": "dev", "test": "test"}
PARQUET_FILES = ("hyperlinks.parquet", "tokens.parquet", "sentences.parquet")
TRAIN_LIMIT = 25_000
VAL_LIMITS = {"bbc": 2_400, "abcnews": 1_700}
ENTITY_HEAD_POS = frozenset({"ADJ", "ADV", "ADP", "NOUN", "NUM", "PRON", "PROPN"})
EVENT_TYPE = "EVENT"
ENTITY_VOTE = "ENTITY"  # how an "O" head votes in an entity chain's type


@dataclass(frozen=True)
class HypercorefOptions(ReadOptions):
    """HyperCoref's reader options. outlets: the outlet folders to read (``bbc.com``, ``abcnews.go.com``)."""

    outlets: tuple[str, ...] = DEFAULT_OUTLETS


def stage_folder(raw_dir: Path, outlet: str) -> Path:
    """The outlet's CreateSplitsStage folder (``6_…`` or ``7_…``); MissingRawData naming the files when absent."""
    for name in STAGE_FOLDERS:
        folder = raw_dir / outlet / name
        if all((folder / split / file).exists() for split in SPLIT_FOLDERS.values() for file in PARQUET_FILES):
            return folder
    expected = ", ".join(f"{outlet}/{STAGE_FOLDERS[0]}/{{train,dev,test}}/{file}" for file in PARQUET_FILES)
    raise missing_raw_data(DATASET_ID, raw_dir, [expected])


def sample_limit(split: Split, outlet: str) -> int | None:
    """The paper's mention limit for a split of an outlet (None: keep all)."""
    if split == "train":
        return TRAIN_LIMIT
    if split == "val":
        return VAL_LIMITS.get("abcnews" if outlet.startswith("abcnews") else outlet.split(".")[0], TRAIN_LIMIT)
    return None


def filter_lonely(links: list[Hyperlink], split: Split) -> list[Hyperlink]:
    """Rule 1: drop mentions alone in their subtopic (test), or alone in both chain and subtopic (train/val)."""
    per_subtopic = Counter(url_structure(link.url)[1] for link in links)
    per_chain = Counter(link.target for link in links)
    if split == "test":
        return [link for link in links if per_subtopic[url_structure(link.url)[1]] > 1]
    return [link for link in links if per_chain[link.target] > 1 or per_subtopic[url_structure(link.url)[1]] > 1]


def downsample(links: list[Hyperlink], limit: int | None) -> list[Hyperlink]:
    """Rule 2: whole chains, largest first (ties: target URL), until at least ``limit`` mentions are kept."""
    if limit is None:
        return links
    sizes = Counter(link.target for link in links)
    kept_chains: set[str] = set()
    total = 0
    for target, size in sorted(sizes.items(), key=lambda item: (-item[1], item[0])):
        if total >= limit:
            break
        kept_chains.add(target)
        total += size
    return [link for link in links if link.target in kept_chains]


Sentences = dict[tuple[str, int], str]  # (url, sentence-idx) -> sentence string


def _document(
    url: str, split: Split, tokens: list[tuple[int, int, str]], sentences: Sentences, source: str
) -> SourceDocument:
    topic, subtopic = url_structure(url)
    name = url.replace("/", "_")
    doc = SourceDocument(topic, topic, subtopic, subtopic, name_shortuuid(name), name, split, [], source_file=source)
    by_sentence: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for sentence, index, text in tokens:
        by_sentence[sentence].append((index, text))
    for sentence, items in sorted(by_sentence.items()):
        flags = space_after_flags([text for _, text in items], sentences.get((url, sentence), ""))
        flags[-1] = True  # sentences of a document are separated by whitespace (as uCDCR)
        doc.tokens.extend(
            SourceToken(f"{sentence}.{index}", text, sentence, flag) for (index, text), flag in zip(items, flags)
        )
    return doc


def _mention(link: Hyperlink, doc: SourceDocument, outlet: str) -> SourceMention:
    return SourceMention(
        doc_key=doc.doc_key,
        token_ids=tuple(f"{link.sentence}.{i}" for i in range(link.token_from, link.token_to)),
        chain_id=link.target,
        kind="event",
        full_type=EVENT_TYPE,
        description=link.target,
        source_id=f"{outlet}_{link.row}",
    )


def read_outlet_split(raw_dir: Path, outlet: str, split: Split, corpus: SourceCorpus, options: ReadOptions) -> None:
    """Sample one split of one outlet and add its documents and mentions to ``corpus``."""
    folder = stage_folder(raw_dir, outlet) / SPLIT_FOLDERS[split]
    links = read_hyperlinks(folder / "hyperlinks.parquet")
    filtered = filter_lonely(links, split)
    kept = downsample(filtered, sample_limit(split, outlet))
    corpus.counts[f"hyperlinks_{split}"] = corpus.counts.get(f"hyperlinks_{split}", 0) + len(links)
    corpus.counts[f"sampled_out_{split}"] = corpus.counts.get(f"sampled_out_{split}", 0) + len(links) - len(kept)
    corpus.counts["annotated"] = corpus.counts.get("annotated", 0) + len(kept)
    urls = {link.url for link in kept}
    tokens = read_tokens(folder / "tokens.parquet", urls)
    sentences = read_sentences(folder / "sentences.parquet", urls)
    corpus.inputs.extend(folder / file for file in PARQUET_FILES)
    source = str(folder / "tokens.parquet")
    without_tokens = sorted(urls - set(tokens))
    if without_tokens:
        report_missing(
            corpus,
            options,
            folder / "tokens.parquet",
            f"{len(without_tokens)} linked document(s) have no tokens here: {', '.join(without_tokens[:10])}",
            "Rebuild the split with the HyperCoref pipeline.",
            kind="format",
        )
    docs = {url: _document(url, split, tokens[url], sentences, source) for url in sorted(urls) if url in tokens}
    missing_strings = {(url, s) for url in docs for s, _, _ in tokens[url]} - set(sentences)
    if missing_strings:
        corpus.counts["sentences_without_string"] = corpus.counts.get("sentences_without_string", 0) + len(
            missing_strings
        )
    corpus.documents.extend(docs.values())
    for link in kept:
        if link.url in docs:
            corpus.mentions.append(_mention(link, docs[link.url], outlet))
        else:
            topic, subtopic = url_structure(link.url)
            corpus.dropped.append(
                DroppedMention(
                    f"{topic}/{subtopic}/?",
                    f"{outlet}_{link.row}",
                    f"sentence {link.sentence} tokens {link.token_from}..{link.token_to - 1}",
                    "",
                    "its document has no tokens in tokens.parquet",
                    "read",
                )
            )


def read_hypercoref(raw_dir: Path, options: HypercorefOptions) -> SourceCorpus:
    """The sampled HyperCoref_exp corpus of the chosen outlets."""
    outlets = options.outlets or DEFAULT_OUTLETS
    for outlet in outlets:
        stage_folder(raw_dir, outlet)  # fail early, before reading anything
    corpus = SourceCorpus(documents=[], mentions=[])
    for outlet in outlets:
        for split in SPLIT_FOLDERS:
            read_outlet_split(raw_dir, outlet, split, corpus, options)
    corpus.notes.append(
        f"outlets {', '.join(outlets)}; mentions sampled as in the paper (§7.1.7); original tokenization kept"
    )
    return corpus


def _entity_type(records: list[MentionRecord]) -> str:
    """Majority of head NER (``O`` counted as ENTITY), ties to the alphabetically first, then ENTITY -> OTHER."""
    winner = majority(r.mention_ner if r.mention_ner != NO_NER else ENTITY_VOTE for r in records)
    return OTHER_TYPE if winner == ENTITY_VOTE else winner


def split_by_head_pos(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
    """Finalize hook: event chains (any mention with a non-nominal head) vs entity chains typed by head NER.

    Sets ``mention_full_type`` (and so ``mention_type``) per chain and the kind, the output file, per record.
    """
    typed: dict[int, MentionRecord] = {}
    for members in by_chain(records).values():
        is_event = any(r.mention_head_pos not in ENTITY_HEAD_POS for r in members)
        full_type = EVENT_TYPE if is_event else _entity_type(members)
        kind: MentionKind = "event" if is_event else "entity"
        typed.update((id(r), r.with_type(full_type, kind)) for r in members)
    return [typed[id(r)] for r in records], []


SPEC = register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="HyperCoref_exp",
        authors_folder="HyperCoref",
        raw_folder=RAW_FOLDER,
        mention_kinds=("event", "entity"),
        reader=read_hypercoref,
        options=HypercorefOptions,
        texts_redistributable=False,
        reparse=False,
        finalize=split_by_head_pos,
        mention_id_prefix="HyperCoref_",
        expected_counts=(
            ExpectedCount(
                "mentions_annotated",
                60687,
                "paper Table 8 'Original', after the paper's filtering and sampling (the uCDCR code sampled BBC val "
                "to 4,200 mentions where the paper says 2,400, so the count may differ by that much)",
            ),
        ),
    )
)
