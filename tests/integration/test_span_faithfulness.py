"""Span faithfulness over every dataset built here from real data: each written mention's tokens spell exactly the
original tokens of its markable; a mention that cannot be one contiguous, exactly covered span is dropped with its
reason, never widened.

Before re-parsed tokens were split at mention boundaries (ucdcr 0.1.0), bench/span_faithfulness.py counted written
mentions whose characters differ from their markable: ECB+ 59, NP4E 1, MEANTIME 60 (57 discontinuous markables
widened to their first..last token, 3 merged tokens), CD2CR 4, CEREC 5. The check is independent of the alignment:
written records are matched to the reader's mentions by mention id (ucdcr.pipeline.document.span_mismatches).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ucdcr.io.load import load_mentions
from ucdcr.pipeline.document import DISCONTINUOUS, SPAN_NOT_COVERED, span_mismatches
from ucdcr.records import SourceCorpus
from ucdcr.registry import get

DATASETS = ("ecbplus", "np4e", "meantime", "cd2cr", "cerec")
# Written mentions whose texts differ only where the build rewrites characters on purpose (listed by
# span_mismatches(normalize=False) on the built output): the LaTeX opening quote "``" is written '"' (ECB+ 3
# mentions, MEANTIME 13) and a tab inside a token ("Awards\t", "news\t") is whitespace (ECB+ 2). With the 59
# widened ECB+ mentions, these 5 make the 64 of issue 10.
RAW_ONLY_DIFFERENCES = {"ecbplus": 5, "meantime": 13}


def discontinuous_markables(corpus: SourceCorpus) -> int:
    """One-sentence mentions with a non-blank original token between their first and last token that is not theirs."""
    tokens = {d.doc_key: d.tokens for d in corpus.documents}
    positions = {d.doc_key: {t.token_id: k for k, t in enumerate(d.tokens)} for d in corpus.documents}
    count = 0
    for mention in corpus.mentions:
        document, position = tokens.get(mention.doc_key, []), positions.get(mention.doc_key, {})
        mine = {position[t] for t in mention.token_ids if t in position}
        if not mine or len({document[k].sent_id for k in mine}) > 1:
            continue
        count += any(k not in mine and document[k].text.strip() for k in range(min(mine), max(mine) + 1))
    return count


@pytest.mark.parametrize("dataset", DATASETS)
def test_written_mentions_spell_exactly_their_markable(dataset: str, built: Any, raw_dir: Path) -> None:
    folder, report = built(dataset), built.report(dataset)
    spec = get(dataset)
    corpus = spec.read(raw_dir / spec.raw_folder)
    records = load_mentions(folder, columns=["mention_id", "conll_doc_key", "tokens_text"]).to_pylist()
    assert len(records) == report.counts["mentions_written"]
    assert span_mismatches(corpus, records, spec.mention_id_prefix) == []
    raw = span_mismatches(corpus, records, spec.mention_id_prefix, normalize=False)
    assert len(raw) == RAW_ONLY_DIFFERENCES.get(dataset, 0)
    reasons = [d["reason"] for d in report.dropped if d["stage"] == "align"]
    assert [r for r in reasons if r.startswith(SPAN_NOT_COVERED)] == []  # splitting at boundaries always covers
    # dropped, not widened: every markable with a gap (MEANTIME: 57, e.g. "take ... away", "Mobile , Alabama"
    # annotated without the comma), counted here on the reader's tokens
    assert sum(r.startswith(DISCONTINUOUS) for r in reasons) == discontinuous_markables(corpus)
    if dataset == "meantime":
        assert discontinuous_markables(corpus) == 57
