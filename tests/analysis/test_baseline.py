"""The evaluation protocol and the same-head-lemma baseline (docs/evaluation.md) on hand-computed cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.unified import mention, write_json_dataset

from ucdcr.analysis.baseline import run_baseline
from ucdcr.analysis.protocol import (
    EVAL_FIELDS,
    Setting,
    evaluation_rows,
    has_cross_subtopic_chains,
    settings_of,
    ucdcr_means,
)
from ucdcr.io.load import load_mentions


def _worked_example(tmp_path: Path) -> Path:
    # docs/evaluation.md#worked-example: gold A = {m1 attack, m2 attack, m3 bombing}, B = {m4 attack, m5 strike}
    records = [
        mention("A", ["attack"], mention_id="m1"),
        mention("A", ["attack"], mention_id="m2"),
        mention("A", ["bombing"], mention_id="m3"),
        mention("B", ["attack"], mention_id="m4"),
        mention("B", ["strike"], mention_id="m5"),
    ]
    return write_json_dataset(tmp_path / "toy", {("test", "event"): records})


def test_worked_example_scores(tmp_path: Path) -> None:
    table = load_mentions(_worked_example(tmp_path), splits=("test",), columns=EVAL_FIELDS)
    result = run_baseline("toy", table, topic_level=False)
    assert [s.setting for s in result.settings] == [Setting("subtopic", "1a", "")]
    scores = result.settings[0].scores
    # prediction {m1, m2, m4}, {m3}, {m5}; values as v8.01 prints them (truncated), docs/evaluation.md#worked-example
    assert (scores["R_MUC"], scores["P_MUC"], scores["F1_MUC"]) == (33.33, 50.0, 40.0)
    assert (scores["R_B3"], scores["P_B3"], scores["F1_B3"]) == (53.33, 73.33, 61.75)
    assert (scores["R_CEAF_E"], scores["P_CEAF_E"], scores["F1_CEAF_E"]) == (66.66, 44.44, 53.33)
    assert scores["F1_CONLL"] == 51.693  # (40.00 + 61.75 + 53.33) / 3


def test_single_type_dataset_repeats_the_joint_mean(tmp_path: Path) -> None:
    table = load_mentions(_worked_example(tmp_path), splits=("test",), columns=EVAL_FIELDS)
    means = run_baseline("toy", table, topic_level=False).means
    assert [(m.level, m.type, m.duplicated_from_joint) for m in means] == [
        ("subtopic", "", False),
        ("subtopic", "event", True),
    ]
    assert means[0].scores == means[1].scores


def _keep_rule_dataset(tmp_path: Path) -> Path:
    events = [
        # Z: one mention in each of two subtopics of topic 1 -> kept (2 in the topic), a gold singleton per subtopic
        mention("Z", ["strike"], subtopic="1a", mention_id="z1"),
        mention("Z", ["strike"], subtopic="1b", mention_id="z2"),
        # V: one mention in topic 1 and one in topic 2 -> no subtopic or topic holds 2 -> dropped
        mention("V", ["vote"], subtopic="1a", mention_id="v1"),
        mention("V", ["vote"], topic="2", subtopic="2a", mention_id="v2"),
        # W: flagged singleton -> dropped first
        mention("W", ["walk"], subtopic="1a", mention_id="w1", singleton=True),
        mention("P", ["attack"], subtopic="1a", mention_id="p1"),
        mention("P", ["assault"], subtopic="1a", mention_id="p2"),
    ]
    entities = [
        mention("Q", ["city"], subtopic="1a", mention_id="q1"),
        mention("Q", ["town"], subtopic="1a", mention_id="q2"),
    ]
    return write_json_dataset(tmp_path / "keep", {("test", "event"): events, ("test", "entity"): entities})


def test_chain_keep_rule_and_settings(tmp_path: Path) -> None:
    table = load_mentions(_keep_rule_dataset(tmp_path), splits=("test",), columns=EVAL_FIELDS)
    rows = evaluation_rows(table)
    assert [table["mention_id"][i].as_py() for i in rows] == ["z1", "z2", "p1", "p2", "q1", "q2"]
    settings = {s: [table["mention_id"][i].as_py() for i in members] for s, members in settings_of(table, rows, True)}
    assert settings == {
        Setting("subtopic", "1a", ""): ["z1", "p1", "p2", "q1", "q2"],
        # subtopic 1b holds only z2 (< 2 mentions): skipped
        Setting("subtopic", "1a", "event"): ["z1", "p1", "p2"],
        Setting("subtopic", "1a", "entity"): ["q1", "q2"],
        Setting("topic", "1", ""): ["z1", "z2", "p1", "p2", "q1", "q2"],
        Setting("topic", "1", "event"): ["z1", "z2", "p1", "p2"],
        Setting("topic", "1", "entity"): ["q1", "q2"],
    }


def test_means_are_unweighted_and_ucdcr_averages_datasets(tmp_path: Path) -> None:
    table = load_mentions(_keep_rule_dataset(tmp_path), splits=("test",), columns=EVAL_FIELDS)
    result = run_baseline("keep", table, topic_level=True)
    event_topic = next(s for s in result.settings if s.setting == Setting("topic", "1", "event"))
    # topic 1 events: gold {z1, z2}, {p1, p2}; lemmas strike, strike, attack, assault -> predicted {z1, z2}, {p1}, {p2}
    # MUC R = 1/2, P = 1/1; B3 R = (1+1+1/2+1/2)/4 = 0.75, P = 1;
    # CEAFe: phi(Z)=1, phi(P,{p1})=2/3 -> R=(5/3)/2, P=(5/3)/3
    assert (event_topic.scores["R_MUC"], event_topic.scores["P_MUC"]) == (50.0, 100.0)
    assert (event_topic.scores["R_B3"], event_topic.scores["P_B3"]) == (75.0, 100.0)
    assert (event_topic.scores["R_CEAF_E"], event_topic.scores["P_CEAF_E"]) == (83.33, 55.55)
    joint = next(m for m in result.means if m.level == "subtopic" and m.type == "")
    assert joint.settings == 1
    combined = ucdcr_means(
        [*result.means, joint.__class__("other", "subtopic", "", 1, dict.fromkeys(joint.scores, 0.0))]
    )
    first = next(m for m in combined if m.level == "subtopic" and m.type == "")
    assert first.settings == 2 and first.scores["F1_CONLL"] == pytest.approx(joint.scores["F1_CONLL"] / 2)


def test_cross_subtopic_detection() -> None:
    assert has_cross_subtopic_chains(["a", "a", "b"], ["1a", "1b", "1a"])
    assert not has_cross_subtopic_chains(["a", "a", "b"], ["1a", "1a", "1b"])


def test_result_tables_label_the_columns_as_the_paper(tmp_path: Path) -> None:
    from ucdcr.report.paper_tables import result_tables

    table = load_mentions(_worked_example(tmp_path), splits=("test",), columns=EVAL_FIELDS)
    table6, table7, table13, settings = result_tables([run_baseline("toy", table, False)], "toy", per_setting=True)
    # the paper's Tables 6 and 7 give F1 per metric; Table 13 R, P and F1, and the CoNLL F1
    assert table6.columns == ["Dataset", "Level", "MUC", "B3", "CEAFe", "CoNLL"]
    assert table7.columns == ["Dataset", "Type", "MUC", "B3", "CEAFe", "CoNLL"]
    scores = [f"{part}_{metric}" for metric in ("MUC", "B3", "CEAFe") for part in ("R", "P", "F1")] + ["CoNLL"]
    assert table13.columns == ["Dataset", "Level", "Type", "Settings", *scores]
    assert settings.columns == ["Dataset", "Level", "Unit", "Type", "Mentions", *scores]
    # the worked example's values (test_worked_example_scores) under the paper's labels
    assert (table6.rows[0]["CEAFe"], table13.rows[0]["R_CEAFe"], table13.rows[0]["CoNLL"]) == (53.33, 66.66, 51.693)
