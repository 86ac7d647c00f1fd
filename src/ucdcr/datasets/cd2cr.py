"""CD2CR (Ravenscroft et al. 2021): cross-domain entity coreference between science news and paper abstracts.

Raw layout (``<raw-dir>/CD2CR/CDCR_Corpus/``): ``{train,dev,test}.conll`` (tokens), ``{train,dev,test}_entities.json``
(the mentions), ``news_urls.json`` and ``sci_papers.json`` (document names; optional). Format:
:mod:`ucdcr.formats.cd2cr`.

Structure (paper appendix 7.1.1): one topic ``0`` ("0_science_technology"); every original topic (one news
article + one paper abstract) becomes a subtopic, numbered globally across splits in the order val, train,
test, in order of first appearance (so ids are unique across splits, as in the release: val 0-70, train 71-220,
test 221-263); subtopic name ``<split>_<original topic>``. Document id = the original ``doc_id``; document name =
the news URL's last path component or the paper's DOI. Original splits (dev -> val).

Rules:
- Chain = the original ``cluster_id`` (cluster ids do not repeat across splits).
- Sentences: the CoNLL sentence split is automatic and 50 mentions cross 56 of its boundaries (e.g.
  "aged 3·0 years [ SD 2·5 ]"); the sentences such a mention spans are joined into one sentence, so no mention
  is cut or dropped (the reference keeps only the part in the first sentence). Sentence ids are renumbered 0..
  per document.
- A mention whose topic differs from its document's is dropped with the reason; mentions are passed on with their
  token ids as annotated (the build drops one whose ids are not in its document or not one contiguous run,
  instead of widening it).
- Document names: ``news_urls.json`` / ``sci_papers.json`` are objects ``{"<n>": {"url" | "doi": string}}``; a
  document they do not name keeps its doc id as name (counted in the notes).
- Entity type (finalize hook): the majority over the chain of the head NER (O -> OTHER), ties alphabetically
  first; description: the chain's distinct head words joined by "_" (as the reference, but sorted).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from ucdcr.datasets._chains import NO_NER, OTHER_TYPE, by_chain, majority
from ucdcr.formats import cd2cr as fmt
from ucdcr.formats.json_files import expect, field
from ucdcr.records import DroppedMention, MentionRecord, SourceCorpus, SourceDocument, SourceMention, SourceToken, Split
from ucdcr.registry import GOLD_FIELDS, DatasetSpec, ExpectedCount, ReadOptions, register

CORPUS_DIR = "CDCR_Corpus"
SPLIT_FILES: tuple[tuple[Split, str], ...] = (("val", "dev"), ("train", "train"), ("test", "test"))
TOPIC_ID, TOPIC = "0", "0_science_technology"


def read_cd2cr(raw_folder: Path, options: ReadOptions) -> SourceCorpus:
    """Raw CD2CR files -> SourceCorpus (subtopics renumbered across splits, crossing sentences joined)."""
    corpus_dir = raw_folder / CORPUS_DIR
    required = [corpus_dir / f"{stem}{suffix}" for _, stem in SPLIT_FILES for suffix in (".conll", "_entities.json")]
    names = _document_names(corpus_dir)
    corpus = SourceCorpus(documents=[], mentions=[], inputs=list(required))
    subtopic_numbers: dict[tuple[Split, str], int] = {}
    joined_boundaries = 0
    for split, stem in SPLIT_FILES:
        tokens = fmt.read_conll(corpus_dir / f"{stem}.conll")
        entities = fmt.read_entities(corpus_dir / f"{stem}_entities.json")
        joined_boundaries += _add_split(corpus, split, stem, tokens, entities, subtopic_numbers, names)
    corpus.counts["annotated"] = len(corpus.mentions) + len(corpus.dropped)
    corpus.counts["sentence_boundaries_joined"] = joined_boundaries
    corpus.notes.append(
        f"{joined_boundaries} automatic sentence boundaries inside annotated mentions were removed (sentences joined)"
    )
    unnamed = sum(1 for d in corpus.documents if d.doc == d.doc_id)
    if unnamed:
        corpus.notes.append(f"{unnamed} documents are not named in news_urls.json / sci_papers.json (named by doc id)")
    return corpus


def _document_names(corpus_dir: Path) -> dict[str, dict[str, str]]:
    """{"news": {n: url tail}, "science": {n: doi}} from the optional name files."""
    names: dict[str, dict[str, str]] = {"news": {}, "science": {}}
    for kind, file_name, key in (("news", "news_urls.json", "url"), ("science", "sci_papers.json", "doi")):
        path = corpus_dir / file_name
        if path.exists():
            records = expect(fmt.read_json(path), "object", path, "the file", of=f"number -> {{{key!r}: ...}}")
            for number, record in records.items():
                value = field(
                    expect(record, "object", path, f"entry {number!r}"), key, "string", path, f"entry {number!r}"
                )
                names[kind][number] = value.rstrip("/").split("/")[-1] if key == "url" else value
    return names


def _document_name(doc_id: str, names: dict[str, dict[str, str]]) -> str:
    parts = doc_id.split("_")
    if len(parts) == 3 and parts[1] in names:
        return names[parts[1]].get(parts[2]) or doc_id
    return doc_id


def _add_split(
    corpus: SourceCorpus,
    split: Split,
    stem: str,
    tokens: list[fmt.ConllToken],
    entities: list[fmt.EntityMention],
    subtopic_numbers: dict[tuple[Split, str], int],
    names: dict[str, dict[str, str]],
) -> int:
    by_doc: dict[str, list[fmt.ConllToken]] = defaultdict(list)
    for token in tokens:
        by_doc[token.doc_id].append(token)
        subtopic_numbers.setdefault((split, token.topic), len(subtopic_numbers))
    mentions_by_doc: dict[str, list[fmt.EntityMention]] = defaultdict(list)
    for entity in entities:
        mentions_by_doc[entity.doc_id].append(entity)
    joined = 0
    for doc_id, doc_tokens in by_doc.items():
        topic = doc_tokens[0].topic
        document = SourceDocument(
            topic_id=TOPIC_ID,
            topic=TOPIC,
            subtopic_id=str(subtopic_numbers[(split, topic)]),
            subtopic=f"{split}_{topic}",
            doc_id=doc_id,
            doc=_document_name(doc_id, names),
            split=split,
            tokens=[],
            source_file=f"{CORPUS_DIR}/{stem}.conll",
        )
        kept = _check_mentions(corpus, document, doc_tokens, mentions_by_doc.pop(doc_id, []), stem)
        sentence_of, joined_here = _joined_sentences(doc_tokens, kept)
        joined += joined_here
        document.tokens = [SourceToken(str(t.token_id), t.text, sentence_of[t.sentence_id]) for t in doc_tokens]
        corpus.documents.append(document)
        corpus.mentions.extend(_mention(document, entity, stem) for entity in kept)
    for doc_id, orphans in mentions_by_doc.items():
        for entity in orphans:
            _drop(corpus, f"{TOPIC_ID}/?/{doc_id}", entity, stem, f"document {doc_id} is not in {stem}.conll")
    return joined


def _check_mentions(
    corpus: SourceCorpus,
    document: SourceDocument,
    doc_tokens: list[fmt.ConllToken],
    entities: list[fmt.EntityMention],
    stem: str,
) -> list[fmt.EntityMention]:
    known = {t.token_id for t in doc_tokens}
    kept = []
    for entity in entities:
        unknown = [t for t in entity.token_ids if t not in known]
        if unknown:
            _drop(corpus, document.doc_key, entity, stem, f"token ids {unknown} are not in the CoNLL document")
        elif entity.topic != doc_tokens[0].topic:
            _drop(corpus, document.doc_key, entity, stem, f"topic {entity.topic} differs from its document's topic")
        else:
            kept.append(entity)
    return kept


def _drop(corpus: SourceCorpus, doc_key: str, entity: fmt.EntityMention, stem: str, reason: str) -> None:
    corpus.dropped.append(
        DroppedMention(doc_key, f"{stem}:{entity.index}", str(list(entity.token_ids)), entity.text, reason, "read")
    )


def _joined_sentences(
    doc_tokens: list[fmt.ConllToken], entities: list[fmt.EntityMention]
) -> tuple[dict[int, int], int]:
    """Original sentence id -> new sentence id, joining the sentences each mention spans; and #boundaries removed."""
    sentence_of_token = {t.token_id: t.sentence_id for t in doc_tokens}
    sentences = sorted({t.sentence_id for t in doc_tokens})
    joined_after: set[int] = set()  # sentence s is joined with the next one
    for entity in entities:
        spanned = sorted({sentence_of_token[t] for t in entity.token_ids})
        joined_after.update(s for s in sentences if spanned[0] <= s < spanned[-1])
    mapping: dict[int, int] = {}
    number = 0
    for sentence in sentences:
        mapping[sentence] = number
        if sentence not in joined_after:
            number += 1
    return mapping, len(joined_after)


def _mention(document: SourceDocument, entity: fmt.EntityMention, stem: str) -> SourceMention:
    return SourceMention(
        doc_key=document.doc_key,
        token_ids=tuple(str(t) for t in sorted(set(entity.token_ids))),
        chain_id=entity.cluster_id,
        kind="entity",
        full_type=OTHER_TYPE,  # replaced by the chain's majority head NER in finalize_chains
        description="",
        source_id=f"{stem}:{entity.index}",
    )


def finalize_chains(records: list[MentionRecord]) -> tuple[list[MentionRecord], list[DroppedMention]]:
    """Chain type = majority head NER (O -> OTHER; ties alphabetical); description = sorted distinct heads."""
    typed: dict[int, MentionRecord] = {}
    for chain in by_chain(records).values():
        full_type = majority(OTHER_TYPE if r.mention_ner in ("", NO_NER) else r.mention_ner for r in chain)
        description = "_".join(sorted({r.mention_head for r in chain}))
        typed.update((id(r), replace(r.with_type(full_type), description=description)) for r in chain)
    return [typed[id(r)] for r in records], []


SPEC = register(
    DatasetSpec(
        id="cd2cr",
        paper_name="CD2CR",
        authors_folder="CD2CR",
        raw_folder="CD2CR",
        mention_kinds=("entity",),
        reader=read_cd2cr,
        finalize=finalize_chains,
        mention_id_prefix="CD2CR_",
        gold_fields=GOLD_FIELDS,  # the chain's type and description on every mention, nothing else
        expected_counts=(
            ExpectedCount("mentions_annotated", 7602, "paper Table 8 'Original'"),
            ExpectedCount(
                "mentions_written", 7602, "paper Table 8 'Original' (Table 2's 7597 lost 5 in re-mapping; we keep all)"
            ),
            ExpectedCount("documents", 528, "paper Table 2"),
            ExpectedCount("subtopics", 264, "paper Table 2"),
            ExpectedCount(
                "reader_sentence_boundaries_joined",
                56,
                "counted in the raw JSON: 50 mentions cross 56 automatic sentence boundaries",
            ),
            ExpectedCount("train.subtopics", 150, "paper Table 12"),
            ExpectedCount("val.subtopics", 71, "paper Table 12"),
            ExpectedCount("test.subtopics", 43, "paper Table 12"),
            ExpectedCount("train.documents", 300, "paper Table 12"),
            ExpectedCount("val.documents", 142, "paper Table 12"),
            ExpectedCount("test.documents", 86, "paper Table 12"),
            ExpectedCount("train.mentions", 4604, "the JSON records of the split (paper Table 12: 4602)"),
            ExpectedCount("val.mentions", 1821, "the JSON records of the split (paper Table 12: 1820)"),
            ExpectedCount("test.mentions", 1177, "the JSON records of the split (paper Table 12: 1175)"),
            ExpectedCount(
                "train.chains", 3222, "paper Table 12's 3221 + the chain of a mention the authors' code lost"
            ),
            ExpectedCount("val.chains", 1246, "paper Table 12's 1245 + the chain of a mention the authors' code lost"),
            ExpectedCount(
                "test.chains", 758, "paper Table 12's 756 + the chains of two mentions the authors' code lost"
            ),
        ),
    )
)
