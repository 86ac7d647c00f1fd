"""ECB+METAm (Ahmed et al. 2024): ECB+ val/test with metaphorically paraphrased event triggers.

Raw folders: ``<raw-dir>/ECBplusMETAm/ecbplus_metam.json`` (the mention map, :mod:`ucdcr.formats.metam_json`)
and ``ucdcr-meta/train_val_test_split.json`` there, plus the ECB+ raw folder ``<raw-dir>/ECBplus/`` (read by
:mod:`ucdcr.datasets.ecbplus` with all sentences; documents, chains, types and descriptions come from it).

Rules (paper §7.1.4, docs/datasets/ecbplus_metam.md#structure, docs/datasets/ecbplus_metam.md#mentions-and-chains):
- Only val/test topics; the dataset is the mention map: an ECB+ mention is kept iff the map has a record for its
  (file, m_id); documents without any record are left out. The train split is empty by design.
- A sentence is paraphrased when one of its records has a mention text that differs from the ECB+ tokens of
  that mention (whitespace ignored). Its tokens are replaced by the record's paraphrased sentence (the most
  frequent one when its records disagree, ties to the first), split at whitespace and at mention boundaries,
  with the original spacing; the pipeline re-parses it like any sentence.
- Every mention of a paraphrased sentence is located in the new sentence by its record's text: at the record's
  ``start_char`` when it matches there, else the occurrence nearest to it (exact, then case-insensitive). A
  mention not found is dropped with the reason (entity mentions whose text the paraphrase rewrote).
- Sentences without a paraphrase keep the ECB+ tokens and mention spans.
- A record whose topic is in no split of the split file is an error; a record of a train topic is dropped with
  its reason (ECB+METAm covers val/test only). The reader option ``partial`` is passed on to the ECB+ reader.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path

from ucdcr.datasets import ecbplus
from ucdcr.errors import FormatError
from ucdcr.formats.metam_json import MetamRecord, read_mention_map
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.records import (
    DroppedMention,
    SourceCorpus,
    SourceDocument,
    SourceMention,
    SourceToken,
)
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, get, register

DATASET_ID = "ecbplus_metam"
REANNOTATES = "ecbplus"
MENTION_MAP = "ecbplus_metam.json"
Span = tuple[int, int]


def read_topic_splits(path: Path) -> dict[str, str]:
    """{topic id: split} from the uCDCR split file."""
    return dict(read_split_map(path))


def read(folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw ``ECBplusMETAm/`` (+ ``ECBplus/``, read with every sentence and this build's ``partial``) ->
    SourceCorpus."""
    topic_split = read_topic_splits(folder / SPLIT_FILE)
    all_records = read_mention_map(folder / MENTION_MAP)
    ecb_folder = folder.parent / get(REANNOTATES).raw_folder
    ecb = get(REANNOTATES).read(ecb_folder, ecbplus.EcbplusOptions(all_sentences=True, partial=options.partial))
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[folder / MENTION_MAP, folder / SPLIT_FILE, *ecb.inputs])
    corpus.notes += [note for note in ecb.notes if note.startswith("partial corpus")]
    records = _evaluation_records(corpus, all_records, topic_split, folder / MENTION_MAP)
    corpus.counts["annotated"] = len(all_records)
    corpus.unavailable_splits["train"] = "ECB+METAm is an evaluation-only dataset (val/test topics of ECB+)"
    by_doc: dict[str, list[SourceMention]] = defaultdict(list)
    for mention in ecb.mentions:
        by_doc[mention.doc_key].append(mention)
    matched: set[tuple[str, str]] = set()
    for document in ecb.documents:
        file_name = f"{document.doc}.xml"
        pairs = [
            (m, records[(file_name, m.source_id)])
            for m in by_doc[document.doc_key]
            if (file_name, m.source_id) in records
        ]
        matched.update((file_name, m.source_id) for m, _ in pairs)
        dropped = [d for d in ecb.dropped if d.doc_key == document.doc_key and (file_name, d.source_id) in records]
        matched.update((file_name, d.source_id) for d in dropped)
        if not pairs and not dropped:
            continue
        document.split = topic_split[document.topic_id]  # type: ignore[assignment]
        corpus.dropped += dropped
        _apply_paraphrases(corpus, document, pairs)
    _report_unmatched(corpus, records, matched)
    return corpus


def _evaluation_records(
    corpus: SourceCorpus, records: dict[tuple[str, str], MetamRecord], topic_split: dict[str, str], path: Path
) -> dict[tuple[str, str], MetamRecord]:
    """The records of val/test topics; a train topic's record is dropped with its reason, an unknown topic errs."""
    kept = {}
    for pair, record in records.items():
        split = topic_split.get(record.topic)
        if split is None:
            raise FormatError(path, f"record {record.key!r}: topic {record.topic} is in no split of {SPLIT_FILE}")
        if split == "train":
            corpus.dropped.append(
                DroppedMention(
                    f"{record.topic}/?/{record.doc_id}",
                    record.m_id,
                    f"sentence {record.sentence_id}",
                    record.mention_text,
                    f"topic {record.topic} is a train topic; ECB+METAm has val/test only",
                    "read",
                )
            )
        else:
            kept[pair] = record
    return kept


def _apply_paraphrases(
    corpus: SourceCorpus, document: SourceDocument, pairs: list[tuple[SourceMention, MetamRecord]]
) -> None:
    texts = {t.token_id: t.text for t in document.tokens}
    sentence_of = {t.token_id: t.sent_id for t in document.tokens}
    by_sentence: dict[int, list[tuple[SourceMention, MetamRecord]]] = defaultdict(list)
    for mention, record in pairs:
        by_sentence[sentence_of[mention.token_ids[0]]].append((mention, record))
    corpus.documents.append(document)
    for sent_id, sentence_pairs in sorted(by_sentence.items()):
        changed = [
            r for m, r in sentence_pairs if _squash(r.mention_text) != _squash("".join(texts[t] for t in m.token_ids))
        ]
        if not changed:
            corpus.mentions += [m for m, _ in sentence_pairs]
            continue
        versions = Counter(r.sentence for r in changed)
        if len(versions) > 1:
            corpus.counts["sentences_with_several_paraphrases"] = (
                corpus.counts.get("sentences_with_several_paraphrases", 0) + 1
            )
        paraphrase = versions.most_common(1)[0][0]
        corpus.counts["paraphrased_sentences"] = corpus.counts.get("paraphrased_sentences", 0) + 1
        _replace_sentence(corpus, document, sent_id, paraphrase, sentence_pairs)


def _replace_sentence(
    corpus: SourceCorpus,
    document: SourceDocument,
    sent_id: int,
    paraphrase: str,
    pairs: list[tuple[SourceMention, MetamRecord]],
) -> None:
    located: list[tuple[SourceMention, MetamRecord, Span]] = []
    for mention, record in pairs:
        span = locate(record, paraphrase)
        if span is None:
            corpus.dropped.append(_dropped(document, mention, record, paraphrase))
        else:
            located.append((mention, record, span))
    new_tokens, token_spans = tokenize(paraphrase, sent_id, [s for _, _, s in located])
    position = next(i for i, t in enumerate(document.tokens) if t.sent_id == sent_id)
    document.tokens = [t for t in document.tokens if t.sent_id != sent_id]
    document.tokens[position:position] = new_tokens
    for mention, _record, (start, end) in located:
        ids = tuple(t.token_id for t, (s, e) in zip(new_tokens, token_spans, strict=True) if s >= start and e <= end)
        mention.token_ids = ids
        corpus.mentions.append(mention)


def locate(record: MetamRecord, sentence: str) -> Span | None:
    """Character span of the record's mention text in ``sentence`` (rules in the module docstring)."""
    text = record.mention_text.strip()
    if record.sentence == sentence and sentence[record.start_char : record.end_char].strip() == text:
        start = record.start_char + sentence[record.start_char : record.end_char].index(text)
        return start, start + len(text)
    for haystack, needle in ((sentence, text), (sentence.casefold(), text.casefold())):
        starts = [m.start() for m in re.finditer(re.escape(needle), haystack)]
        if starts and len(haystack) == len(sentence):
            best = min(starts, key=lambda s: (abs(s - record.start_char), s))
            return best, best + len(needle)
    return None


def tokenize(sentence: str, sent_id: int, spans: list[Span]) -> tuple[list[SourceToken], list[Span]]:
    """Whitespace tokens of ``sentence`` split further at every span boundary, with their spacing."""
    cuts = {b for span in spans for b in span}
    tokens: list[SourceToken] = []
    token_spans: list[Span] = []
    for chunk in re.finditer(r"\S+", sentence):
        points = sorted({chunk.start(), chunk.end(), *(c for c in cuts if chunk.start() < c < chunk.end())})
        for start, end in pairwise(points):
            space_after = end < len(sentence) and sentence[end].isspace()
            tokens.append(SourceToken(f"p{sent_id}.{len(tokens)}", sentence[start:end], sent_id, space_after))
            token_spans.append((start, end))
    return tokens, token_spans


def _squash(text: str) -> str:
    return "".join(text.split())


def _dropped(document: SourceDocument, mention: SourceMention, record: MetamRecord, paraphrase: str) -> DroppedMention:
    what = "entity mention" if mention.kind == "entity" else "event mention"
    return DroppedMention(
        doc_key=document.doc_key,
        source_id=mention.source_id,
        span=f"t_id {mention.token_ids[0]}..{mention.token_ids[-1]}",
        text=record.mention_text,
        reason=f"{what} text no longer occurs in the paraphrased sentence {paraphrase!r}",
        stage="read",
    )


def _report_unmatched(
    corpus: SourceCorpus, records: dict[tuple[str, str], MetamRecord], matched: set[tuple[str, str]]
) -> None:
    for pair in sorted(set(records) - matched):
        record = records[pair]
        corpus.dropped.append(
            DroppedMention(
                f"{record.topic}/?/{record.doc_id}",
                record.m_id,
                f"sentence {record.sentence_id}",
                record.mention_text,
                "no ECB+ mention with this file and m_id",
                "read",
            )
        )


register(
    DatasetSpec(
        id=DATASET_ID,
        paper_name="ECB+METAm",
        authors_folder="ECBplusMETAm",
        raw_folder="ECBplusMETAm",
        mention_kinds=("event", "entity"),
        reader=read,
        reannotates=REANNOTATES,
        authors_event_chains=ecbplus.AUTHORS_EVENT_CHAINS,
        mention_id_prefix="ECBPlusMETAm_",
        gold_fields=GOLD_FIELDS,  # as ECB+ (types, descriptions and chains come from it)
        expected_counts=(ExpectedCount("mentions_annotated", 6556, "paper Table 8 'Original'"),),
    )
)
