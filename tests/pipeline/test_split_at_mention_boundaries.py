"""Faithful spans: a mention's re-parsed tokens cover exactly the characters of its original tokens.

The sentences are real ECB+ cases (original tokens as in the CAT XML) where the rebuilt text glues original tokens
and spaCy keeps the result as one token that crosses a mention boundary: "NEWS - 3" -> NEWS-3, "Follow - Up - 1"
-> Up-1 shared by two mentions, "magnitude - 5 . 9" -> magnitude-5.9, "Windows 8 . 1" -> 8.1, "Calif ." / "Jr ." /
"a.m ." -> Calif. / Jr. / a.m. Each test first checks that spaCy really merges there, so it keeps testing the fix.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ucdcr.pipeline import document as document_stage
from ucdcr.pipeline import nlp
from ucdcr.pipeline.detokenize import rebuild_sentence
from ucdcr.pipeline.document import (
    DISCONTINUOUS,
    SPAN_NOT_COVERED,
    DocumentTask,
    StageConfig,
    process_documents,
    span_mismatches,
)
from ucdcr.pipeline.executor import map_batches
from ucdcr.pipeline.validate import check_records, singleton_flags
from ucdcr.records import SourceCorpus, SourceDocument, SourceMention, SourceToken


def sentence_doc(*sentences: list[str]) -> SourceDocument:
    tokens = [SourceToken(f"{s}.{k}", text, s) for s, words in enumerate(sentences) for k, text in enumerate(words)]
    return SourceDocument("1", "1", "1a", "sub", "7", "doc7", "train", tokens)


def mention(doc: SourceDocument, positions: range | list[int], sentence: int = 0) -> SourceMention:
    ids = tuple(f"{sentence}.{k}" for k in positions)
    return SourceMention(doc.doc_key, ids, "C" + ids[0], "entity", "LOC", "", "m" + ids[0])


def spacy_tokens(words: list[str]) -> list[str]:
    """What spaCy makes of the rebuilt sentence when no boundary is forced."""
    text, _ = rebuild_sentence([SourceToken(str(k), w, 0) for k, w in enumerate(words)])
    return [t.text for t in nlp.tokenize(text)]


def build(doc: SourceDocument, mentions: list[SourceMention], **config: Any) -> Any:
    [result] = process_documents([DocumentTask(doc, mentions)], StageConfig(**config))
    return result


def check_invariants(result: Any) -> None:
    """The build's own invariants (token table, contexts, heads) hold for the records of one document."""
    flags = singleton_flags(result.records)
    records = [dataclasses.replace(record, is_singleton=flag) for record, flag in zip(result.records, flags)]
    tokens = [(t.sent_id, t.token_id, t.token) for t in result.tokens]
    check_records(records, {result.doc_key: tokens}, {result.doc_key: "train"})
    assert [t.token_id_global for t in result.tokens] == list(range(len(result.tokens)))


NEWS = ["BREAKING", "NEWS", "-", "3", "DEAD", "due", "to", "Molotov", "cocktail", "at", "Bank"]
FOLLOW_UP = ["Troy", ",", "Michigan", "Office", "Shooting", "Follow", "-", "Up", "-", "1", "Dead", ",", "2", "Injured"]
MAGNITUDE = ["An", "earthquake", "measuring", "at", "least", "magnitude", "-", "5", ".", "9", "shook", "Iran", "."]
WINDOWS = ["including", "IE11", "on", "Windows", "8", ".", "1", "RTM", "."]
CALIF = ["moving", "to", "a", "rehab", "facility", "in", "Malibu", ",", "Calif", ".", ",", "Access", "said", "."]
JR = ["Convicted", "Child", "Molestor", "Arcade", "Joseph", "Comeaux", "Jr", ".", "On", "The", "Lam", "in", "Texas"]
AM = ["Early", "Friday", "morning", ",", "around", "1:30", "a.m", ".", ",", "she", "left", "."]


@pytest.mark.parametrize(
    ("words", "merged", "positions", "expected"),
    [
        (NEWS, "NEWS-3", [3], ["3"]),
        (MAGNITUDE, "magnitude-5.9", range(6, 10), ["-5.9"]),
        (WINDOWS, "8.1", range(3, 5), ["Windows", "8"]),
        (CALIF, "Calif.", range(6, 9), ["Malibu", ",", "Calif"]),
        (JR, "Jr.", range(3, 7), ["Arcade", "Joseph", "Comeaux", "Jr"]),
        (AM, "a.m.", range(7), ["Early", "Friday", "morning", ",", "around", "1:30", "a.m"]),
    ],
)
def test_merged_token_is_split_at_the_mention_boundary(
    words: list[str], merged: str, positions: range | list[int], expected: list[str]
) -> None:
    assert merged in spacy_tokens(words)  # the case is real: spaCy alone would widen the mention
    doc = sentence_doc(words)
    result = build(doc, [mention(doc, positions)])
    [record] = result.records
    assert record.tokens_text == expected
    assert record.tokens_str.replace(" ", "") == "".join(words[k] for k in positions)
    assert result.dropped == []
    check_invariants(result)


def test_token_shared_by_two_mentions_is_split_for_both() -> None:
    assert "Up-1" in spacy_tokens(FOLLOW_UP)  # "Follow - Up-1": one token ends one mention and starts the next
    doc = sentence_doc(FOLLOW_UP)
    follow_up, one = build(doc, [mention(doc, range(5, 8)), mention(doc, [9])]).records
    assert follow_up.tokens_text == ["Follow", "-", "Up"] and follow_up.tokens_str == "Follow - Up"
    assert one.tokens_text == ["1"] and one.tokens_number == [follow_up.tokens_number[-1] + 2]


def test_split_tokens_are_parsed_and_the_token_table_follows() -> None:
    doc = sentence_doc(NEWS, ["No", "mention", "here", ":", "NEWS", "-", "3", "."])
    result = build(doc, [mention(doc, [3])])
    first = [t.token for t in result.tokens if t.sent_id == 0]
    second = [t.token for t in result.tokens if t.sent_id == 1]
    # forced boundary before "3"; spaCy tokenizes each piece on its own ("NEWS-" is its own token for "NEWS-")
    assert first == ["BREAKING", "NEWS-", "3", "DEAD", "due", "to", "Molotov", "cocktail", "at", "Bank"]
    assert "NEWS-3" in second  # no mention there: spaCy's tokenization is kept
    [record] = result.records
    assert record.mention_head == "3" and record.mention_head_pos == "NUM"  # the parser saw the split token
    assert record.mention_context[record.tokens_number_context[0]] == "3"
    assert result.parsed_sentences == 1  # the sentence without a mention is only tokenized
    check_invariants(result)


def test_tokenization_unchanged_where_no_mention_boundary_is_crossed() -> None:
    doc = sentence_doc(CALIF)
    result = build(doc, [mention(doc, [6]), mention(doc, range(6, 10))])  # "Malibu" and "Malibu, Calif."
    assert [t.token for t in result.tokens] == spacy_tokens(CALIF)  # "Calif." stays one token
    assert [r.tokens_text for r in result.records] == [["Malibu"], ["Malibu", ",", "Calif."]]


def test_mentions_that_cannot_be_faithful_are_dropped_with_a_reason() -> None:
    words = ["They", "take", "the", "title", "away", "\n", "now", "", "."]
    doc = sentence_doc(words)
    gap = mention(doc, [1, 4])  # "take ... away": widening would add "the title"
    whitespace_gap = mention(doc, [4, 6])  # only whitespace between: "away \n now" is exactly its characters
    empty = mention(doc, [7])
    result = build(doc, [gap, whitespace_gap, empty])
    assert [r.tokens_text for r in result.records] == [["away", "\n ", "now"]]  # inner whitespace token kept
    assert [(d.source_id, d.stage) for d in result.dropped] == [("m0.1", "align"), ("m0.7", "align")]
    assert result.dropped[0].reason.startswith(DISCONTINUOUS) and "['0.2', '0.3']" in result.dropped[0].reason
    assert result.dropped[1].reason == "mention text is empty"


def test_a_mention_widened_by_a_merged_token_is_dropped_not_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_stage, "_split_at_mention_boundaries", lambda sentence, markables: None)
    doc = sentence_doc(NEWS)
    result = build(doc, [mention(doc, [3]), mention(doc, [0])])
    assert [r.tokens_text for r in result.records] == [["BREAKING"]]
    [dropped] = result.dropped
    assert dropped.reason == f"{SPAN_NOT_COVERED}: re-parsed tokens 'NEWS-3' for the markable '3'"
    assert (dropped.source_id, dropped.stage, dropped.text) == ("m0.3", "align", "3")


def test_split_is_deterministic_across_batches_and_workers() -> None:
    docs = [sentence_doc(words) for words in (NEWS, FOLLOW_UP, MAGNITUDE, WINDOWS)]
    tasks = [DocumentTask(d, [mention(d, [3]), mention(d, range(5, 7))]) for d in docs]

    def run(batches: list[list[DocumentTask]], jobs: int) -> list[Any]:
        results = [r for batch in map_batches(_process, batches, jobs) for r in batch]
        return [([(t.token, t.char_id_start) for t in r.tokens], r.records, r.dropped) for r in results]

    assert run([tasks], 1) == run([[t] for t in tasks], 2)


def _process(tasks: list[DocumentTask]) -> list[Any]:
    return process_documents(tasks, StageConfig())


def test_split_at_forces_boundaries_and_keeps_the_text() -> None:
    doc = nlp.tokenize("Follow - Up-1 Dead in Malibu, Calif.")
    nlp.split_at(doc, {11, 12, 35, 7})  # inside "Up-1" twice, inside "Calif.", and an existing boundary
    assert [t.text for t in doc] == ["Follow", "-", "Up", "-", "1", "Dead", "in", "Malibu", ",", "Calif", "."]
    assert doc.text == "Follow - Up-1 Dead in Malibu, Calif." and not doc.has_annotation("DEP")


def test_span_mismatches_compares_written_tokens_with_the_markable() -> None:
    doc = sentence_doc(["the", "``", "Twilight", "''", "film", "Awards\t", "."])
    quoted, widened = mention(doc, range(1, 4)), mention(doc, [5])
    corpus = SourceCorpus([doc], [quoted, widened])
    records = [
        {"mention_id": document_stage.mention_id("", m, 0), "conll_doc_key": doc.doc_key, "tokens_text": texts}
        for m, texts in ((quoted, ['"', "Twilight", "''"]), (widened, ["Awards", "."]))
    ]
    [found] = span_mismatches(corpus, records)
    assert (found.markable, found.written) == ("Awards", "Awards.")
    # compared as given, the rebuilt quote and the tab in "Awards\t" count as differences too
    assert [m.written for m in span_mismatches(corpus, records, normalize=False)] == ["\"Twilight''", "Awards."]
