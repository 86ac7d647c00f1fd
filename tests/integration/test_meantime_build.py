"""MEANTIME_eng built from ../shared/raw/MEANTIME (the original English zip), compared with the paper."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ucdcr.datasets.meantime import read_meantime
from ucdcr.registry import ReadOptions


def test_reader_counts(raw_dir: Path) -> None:
    corpus = read_meantime(raw_dir / "MEANTIME", ReadOptions())
    # paper Table 2: 120 documents = 120 subtopics, 4 topics; appendix 7.1.8: train airbus+apple, val gm, test stock
    assert len(corpus.documents) == 120
    assert Counter(d.split for d in corpus.documents) == {"train": 60, "val": 30, "test": 30}
    # counted in the zip: 6556 ENTITY/EVENT_MENTIONs linked by REFERS_TO (paper Table 8 "Original" 6545) plus 61
    # unlinked ones kept as singletons
    assert corpus.counts["annotated"] == 6617 and corpus.counts["unlinked_singletons"] == 61


def test_build(built: Any) -> None:
    report = built.report("meantime")
    assert report.parse_rate >= 99.0  # 6559 of 6617
    # one mention crosses a sentence boundary; 57 discontinuous markables ("take ... away", "Mobile , Alabama"
    # without the comma) cannot be one contiguous span and are dropped, not widened to their first..last token
    # (tests/integration/test_span_faithfulness.py counts them on the reader's tokens)
    reasons = Counter(d["reason"].split(":")[0] for d in report.dropped)
    assert reasons == {"mention spans several sentences": 1, "discontinuous markable": 57}
    splits = report.splits
    # paper Table 12: 3355 / 1895 / 1256 mentions; ours 3390 / 1895 / 1274 (+61 unlinked singletons, +re-mapping
    # losses of the reference, -57 discontinuous markables: 36 / 10 / 11; widened, they made 3426 / 1905 / 1285)
    assert [splits[s]["mentions"] for s in ("train", "val", "test")] == [3390, 1895, 1274]
    # paper Table 3: 3855 entity / 2651 event mentions; ours 3908 / 2651 (the 57 dropped: 10 entity, 47 event)
    assert sum(splits[s]["entity_mentions"] for s in splits) == 3908
    assert sum(splits[s]["event_mentions"] for s in splits) == 2651
