"""Per-document stages on hand-made SourceDocuments: alignment through character offsets, pre-tokenized parsing."""

from __future__ import annotations

import pytest

from ucdcr.errors import FormatError
from ucdcr.pipeline import nlp
from ucdcr.pipeline.build import _tasks
from ucdcr.pipeline.document import DocumentTask, StageConfig, mention_id, process_documents
from ucdcr.records import GivenHead, SourceCorpus, SourceDocument, SourceMention, SourceToken


def document(*sentences: list[str]) -> SourceDocument:
    tokens = [SourceToken(f"{s}.{k}", text, s) for s, words in enumerate(sentences) for k, text in enumerate(words)]
    return SourceDocument("1", "1", "1a", "sub", "7", "doc7", "train", tokens)


def mention(doc: SourceDocument, ids: list[str], given_head: GivenHead | None = None) -> SourceMention:
    return SourceMention(
        doc.doc_key, tuple(ids), "C1", "entity", "HUMAN_PART_PER", "d", "m" + ids[0], given_head=given_head
    )


def test_original_token_split_by_spacy_maps_to_all_pieces() -> None:
    doc = document(["They", "paid", "$5", "to", "Obama's", "aide", "."])
    [result] = process_documents(
        [DocumentTask(doc, [mention(doc, ["0.2"]), mention(doc, ["0.4", "0.5"])])], StageConfig()
    )
    money, aide = result.records
    # spaCy splits "$5" into $ / 5 and "Obama's" into Obama / 's; the mentions cover all the pieces
    assert money.tokens_text == ["$", "5"] and money.tokens_number == [2, 3] and money.tokens_str == "$5"
    assert aide.tokens_text == ["Obama", "'s", "aide"] and aide.mention_head == "aide"


def test_same_string_twice_maps_to_the_annotated_occurrence() -> None:
    doc = document(["the", "quake", "and", "the", "quake", "again"])
    [result] = process_documents([DocumentTask(doc, [mention(doc, ["0.4"])])], StageConfig())
    assert result.records[0].tokens_number == [4]  # not the first "quake" (REFERENCE.md §3.4 bug)


def test_pre_tokenized_keeps_original_tokens_and_uses_source_spacing() -> None:
    words = ["New", "York", "-based", "firm", "ca", "n't", "pay"]
    tokens = [SourceToken(str(k), w, 0, k not in (1, 4)) for k, w in enumerate(words)]
    doc = SourceDocument("1", "1", "1a", "sub", "7", "doc7", "train", tokens)
    [result] = process_documents([DocumentTask(doc, [mention(doc, ["4", "5"])])], StageConfig(reparse=False))
    assert [t.token for t in result.tokens] == words
    assert [t.whitespace_after for t in result.tokens][:2] == [True, False]
    assert result.records[0].tokens_text == ["ca", "n't"]


def test_contraction_norms_for_pre_tokenized_docs() -> None:
    doc = nlp.words_doc(["I", "ca", "n't", "go", "we", "'ll"], [True, False, True, True, False, False])
    assert [t.norm_ for t in doc] == ["i", "can", "not", "go", "we", "will"]  # as the tokenizer exceptions set them


def test_unalignable_mention_is_dropped_with_reason() -> None:
    doc = document(["A", "b", "."], ["C", "."])
    missing = mention(doc, ["0.0", "9.9"])
    across = mention(doc, ["0.2", "1.0"])
    [result] = process_documents([DocumentTask(doc, [missing, across])], StageConfig())
    assert result.records == []
    assert [d.reason for d in result.dropped] == [
        "token id(s) ['9.9'] not in the document",
        "mention spans several sentences",
    ]


def test_mention_ids_are_deterministic() -> None:
    doc = document(["A", "b"])
    first = mention_id("P_", mention(doc, ["0.0"]), 0)
    assert first == mention_id("P_", mention(doc, ["0.0"]), 0) and first.startswith("P_1_1a_7_0_0.0_")
    assert first != mention_id("P_", mention(doc, ["0.1"]), 0)


def test_unfaithful_spans_are_dropped_not_widened() -> None:
    # the one place that decides whether a mention is a faithful span: every reader passes mentions on as annotated
    doc = document(["A", "big", " ", "dog", "."])
    cases = {"ok": ["0.0", "0.1"], "gap": ["0.0", "0.3"], "blank": ["0.2"], "none": []}
    mentions = [SourceMention(doc.doc_key, tuple(ids), "C1", "entity", "X", "", name) for name, ids in cases.items()]
    [result] = process_documents([DocumentTask(doc, mentions)], StageConfig())
    assert [r.tokens_text for r in result.records] == [["A", "big"]]
    reasons = {d.source_id: d.reason for d in result.dropped}
    assert reasons["gap"].startswith("discontinuous markable: original token(s) ['0.1'] inside its span")
    assert reasons["blank"] == "mention text is empty"
    assert reasons["none"] == "mention has no tokens"
    assert {d.stage for d in result.dropped} == {"align"}


def test_two_documents_under_one_key_are_an_error() -> None:
    first, second = document(["A", "."]), document(["B", "."])
    first.source_file, second.source_file = "d.txt", "e.txt"
    with pytest.raises(FormatError, match=r"^e\.txt: document key '1/1a/7' is also the key of d\.txt"):
        _tasks(SourceCorpus([first, second], []))
