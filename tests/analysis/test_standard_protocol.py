"""The standard protocol (docs/evaluation.md#protocols) on a hand-computed case: every gold mention scored, the split
as one meta-document, singletons kept (or removed from key and response)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.unified import mention, write_json_dataset

from ucdcr.analysis.protocol import (
    EVAL_FIELDS,
    META_DOCUMENT,
    STANDARD,
    UCDCR,
    Protocol,
    ProtocolName,
    Setting,
    evaluation_rows,
    plan_protocol,
    run_protocol,
    score_plan,
)
from ucdcr.io.load import load_mentions
from ucdcr.scoring.bootstrap import UnitCounts, UnitValues


def _table(tmp_path: Path):
    # gold: A = {a, b} (two documents of one topic), C = {c} (a singleton, in another topic)
    records = [
        mention("A", ["attack"], mention_id="a", doc="d1"),
        mention("A", ["strike"], mention_id="b", doc="d2"),
        mention("C", ["bombing"], mention_id="c", topic="2", subtopic="2a", doc="d3", singleton=True),
    ]
    return load_mentions(write_json_dataset(tmp_path / "toy", {("test", "event"): records}), ("test",), EVAL_FIELDS)


def test_every_mention_is_scored_as_one_meta_document(tmp_path: Path) -> None:
    table = _table(tmp_path)
    assert evaluation_rows(table, "test", STANDARD) == [0, 1, 2] and evaluation_rows(table, "test", UCDCR) == [0, 1]
    # response {a}, {b, c}
    result = run_protocol("toy", table, ["x", "y", "y"], True, "test", STANDARD)
    assert [s.setting for s in result.settings] == [Setting("topic", META_DOCUMENT, "")]
    scores = result.settings[0].scores
    # by hand: MUC R = (2 - 2) / (2 - 1) = 0 and P = (2 - 2) / (2 - 1) = 0;
    # B3 R = (1/2 + 1/2 + 1) / 3 = 2/3, P = (1 + 1/2 + 1/2) / 3 = 2/3;
    # CEAFe: phi4(A, {a}) = 2/3, phi4(C, {b, c}) = 2/3: R = P = (4/3) / 2 = 2/3; CoNLL = (0 + 66.66 + 66.66) / 3
    assert (scores["F1_MUC"], scores["F1_B3"], scores["F1_CEAF_E"]) == (0.0, 66.66, 66.66)
    assert scores["F1_CONLL"] == 44.44
    assert [(m.level, m.type, m.settings) for m in result.means] == [("topic", "", 1), ("topic", "event", 1)]


def test_singletons_removed_from_key_and_response(tmp_path: Path) -> None:
    table = _table(tmp_path)
    removed = Protocol(ProtocolName.STANDARD, singletons=False)
    scores = run_protocol("toy", table, ["x", "y", "y"], True, "test", removed).settings[0].scores
    # key {a, b}; response {b, c} ({a} removed): MUC 0; B3 R = (0 + 1/2) / 2, P = (1/2 + 0) / 2: 25;
    # CEAFe phi4(A, {b, c}) = 2 * 1 / 4 = 1/2 over one key and one response chain: 50; CoNLL (0 + 25 + 50) / 3
    assert (scores["F1_MUC"], scores["F1_B3"], scores["F1_CEAF_E"], scores["F1_CONLL"]) == (0.0, 25.0, 50.0, 25.0)


def test_protocol_labels_round_trip_and_options_are_checked() -> None:
    for protocol in (
        UCDCR,
        Protocol(level="topic"),
        STANDARD,
        Protocol(ProtocolName.STANDARD, topics="predicted", singletons=False),
    ):
        assert Protocol.from_label(protocol.label) == protocol
    assert STANDARD.label == "standard/gold-topics" and UCDCR.label == "ucdcr/subtopic"
    with pytest.raises(ValueError, match="options of the standard protocol"):
        Protocol(singletons=False)


@pytest.mark.parametrize("protocol", [UCDCR, STANDARD, Protocol(ProtocolName.STANDARD, singletons=False)])
def test_one_plan_scores_every_clustering_as_run_protocol_does(tmp_path: Path, protocol: Protocol) -> None:
    table = _table(tmp_path)
    plan = plan_protocol("toy", table, True, "test", protocol)
    for labels in (["x", "y", "y"], ["x", "x", "y"], ["x", "y", "z"], ["x", "y", "y"]):  # the first again, last
        fresh = run_protocol("toy", table, labels, True, "test", protocol)
        planned = score_plan(plan, labels)
        assert planned.settings == fresh.settings and planned.evaluated_mentions == fresh.evaluated_mentions
        assert [(m.level, m.type, m.scores, m.intervals(50)) for m in planned.means] == [
            (m.level, m.type, m.scores, m.intervals(50)) for m in fresh.means
        ]
    # {a, b} found, {c} alone: every metric 100 (B3 and CEAFe count the singleton c under the standard protocol)
    assert score_plan(plan, ["x", "x", "y"]).settings[0].scores["F1_CONLL"] == 100.0


def test_scores_without_the_topic_counts_are_the_same(tmp_path: Path) -> None:
    table = _table(tmp_path)
    plan = plan_protocol("toy", table, True, "test", STANDARD)
    full, lean = score_plan(plan, ["x", "y", "y"]), score_plan(plan, ["x", "y", "y"], by_topic=False)
    assert lean.settings == full.settings and [m.scores for m in lean.means] == [m.scores for m in full.means]
    assert all(isinstance(m.units, UnitCounts) for m in full.means)  # per gold topic (here one: {b, c} joins the two)
    assert all(isinstance(m.units, UnitValues) for m in lean.means)
