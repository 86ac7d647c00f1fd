"""`evaluate --mentions predicted` (docs/evaluation.md#predicted-mentions): a CoNLL response's own mentions scored as
v8.01 scores them -- twinless mentions in their chains, unmarked gold mentions absent -- equal to `ucdcr score` on the
exported key under the standard protocol, placed in the joint settings of their subtopic/topic under the ucdcr one;
the default (gold mentions) unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Hashable
from pathlib import Path

import numpy as np
import pytest
from tests.fixtures import tiny_dataset as tiny
from typer.testing import CliRunner

from ucdcr.analysis.evaluate import (
    SPAN_COLUMNS,
    Predictions,
    evaluate,
    evaluate_predictions,
    read_predictions,
    resolve,
)
from ucdcr.analysis.protocol import (
    EVAL_FIELDS,
    MENTION_COLUMNS,
    PARTS,
    PROTOCOL_METRICS,
    SCORE_COLUMNS,
    STANDARD,
    topic_counts,
)
from ucdcr.cli.app import app
from ucdcr.io.load import load_mentions
from ucdcr.scoring import CONLL, score_clusters, score_files, truncate_percent
from ucdcr.scoring.bootstrap import UnitCounts

runner = CliRunner()

# One test topic (0) with two subtopics; d4 is a train document. Gold (test): OBAMA x4 (d1, d2), FIRE x2 and CITY x2
# (d3), and the singletons VISIT, PARIS, MEET (events VISIT, MEET, FIRE; the rest entities) and SINGLE.
DOCS = {
    "0/s1/d1": ("test", ["Obama ended the visit to Paris .", "He flew home ."]),
    "0/s1/d2": ("test", ["The president met Merkel .", "Obama smiled at a reporter ."]),
    "0/s2/d3": ("test", ["A fire destroyed the city hall .", "The blaze spread in the city ."]),
    "1/s3/d4": ("train", ["Firefighters fought the fire for hours ."]),
}
# The response: the exported key with these coreference columns, by (document key, sentence, token)
EDITS = {
    ("0/s2/d3", "1", "4"): "-",  # CITY "the city" of sentence 1 unmarked: a missing gold mention
    ("0/s2/d3", "1", "5"): "-",
    ("0/s1/d2", "0", "3"): "(0)",  # "Merkel": twinless, in OBAMA's chain
    ("0/s1/d1", "1", "2"): "(9)",  # "home": twinless, a chain of its own
    ("0/s2/d3", "0", "0"): "(5",  # "A fire": twinless (the gold mention is "fire"), in FIRE's chain
    ("0/s2/d3", "0", "1"): "(5)|5)",
    ("0/s1/d1", "0", "5"): "(6)|1)",  # PARIS (a gold singleton) into CITY's chain
    ("0/s1/d1", "0", "6"): "(8",  # ". He": twinless, across two sentences of d1
    ("0/s1/d1", "1", "0"): "(0)|8)",
}


@pytest.fixture
def exported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """The data dir, the test split exported by `ucdcr export conll --level topic` (one document: the standard
    protocol's meta-document) and the response made from it with EDITS."""
    monkeypatch.setattr(tiny, "DOCS", DOCS)
    data_dir = tmp_path / "data"
    tiny.write_tiny_dataset(data_dir / "np4e")
    out = tmp_path / "conll"
    args = ["export", "conll", "np4e", "--split", "test", "--level", "topic", "--out", str(out)]
    result = runner.invoke(app, [*args, "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    key = out / "np4e_test_topic.conll"
    assert key.read_text().count("#begin document") == 1
    lines = []
    for line in key.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) == 5:
            fields[-1] = EDITS.get((fields[0], fields[1], fields[2]), fields[-1])
        lines.append("\t".join(fields))
    response = tmp_path / "response.conll"
    response.write_text("\n".join(lines) + "\n")
    return data_dir, key, response


def _evaluate(data_dir: Path, *predictions_and_options: str | Path) -> dict:
    """`ucdcr evaluate` with --json; the arguments are the predictions file(s) and options, as on the command line."""
    args = ["evaluate", *map(str, predictions_and_options), "--data-dir", str(data_dir), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _printed(scores) -> dict[str, float]:
    """v8.01's printed MUC, B3, CEAFe (and CoNLL) of a `score_files` result, by the protocol's columns, with mention
    detection."""
    printed = {}
    for metric in PROTOCOL_METRICS:
        found = scores[metric.name]
        for part, value in zip(PARTS, (found.recall, found.precision, found.f1), strict=True):
            printed[metric.column(part)] = truncate_percent(value)
    f1s = [printed[metric.column("F1")] for metric in PROTOCOL_METRICS]
    printed[CONLL.column] = float(format(sum(f1s) / len(f1s), ".3f"))
    identified = scores.mentions
    for column, value in zip(MENTION_COLUMNS, (identified.recall, identified.precision, identified.f1), strict=True):
        printed[column] = truncate_percent(value)
    return printed


@pytest.mark.parametrize("remove_singletons", [False, True], ids=["singletons", "no-singletons"])
def test_standard_protocol_with_predicted_mentions_equals_ucdcr_score(
    exported: tuple[Path, Path, Path], remove_singletons: bool
) -> None:
    data_dir, key, response = exported
    options = ["--protocol", "standard", "--mentions", "predicted"]
    data = _evaluate(data_dir, response, *options, *(["--remove-singletons"] if remove_singletons else []))
    exact = score_files(key, response, "conll", remove_singletons=remove_singletons)
    expected = _printed(exact)
    [dataset] = data["datasets"]
    joint = next(s for s in dataset["settings"] if s["type"] == "joint")
    assert joint["mentions"] == 12 and joint["scores"] == expected
    joint_mean = next(m for m in dataset["means"] if m["type"] == "joint")
    assert {column: joint_mean["scores"][column] for column in expected} == expected
    # one gold topic (the test split's chains join topics 0 and 1): nothing to resample, so no interval
    assert joint_mean["intervals"] == {}
    if not remove_singletons:
        # 11 of the 12 gold mentions marked, 15 response mentions (11 + 4 twinless): MD R 91.66, P 73.33
        assert (expected["R_MD"], expected["P_MD"]) == (91.66, 73.33)
        assert (expected["F1_MUC"], expected["F1_CONLL"]) == (66.66, 69.0)
    assert data["mentions"] == "predicted"
    assert data["notes"][:2] == [
        "1 of the 12 evaluated gold mentions are not marked in the response: with --mentions predicted they are "
        "missing from the response (they lower recall), e.g. " + tiny.mention_id(11),
        "4 twinless response mention(s) (their span is no gold mention of the test split) are scored in their "
        "response chains and count against precision (--mentions predicted); the response gives no kinds, so a "
        "twinless mention is scored in the joint settings only, not in the per-type (event, entity) ones (give each "
        "file's kind: event:FILE entity:FILE)",
    ]


def test_a_response_that_gives_its_kind_counts_its_spurious_mentions_in_that_row(
    exported: tuple[Path, Path, Path],
) -> None:
    # The whole response declared an event system's output (event:FILE): every one of its 15 mentions is an event
    # mention. Gold events of the test split: VISIT, MEET and FIRE x2, all 4 marked by the response: event row
    # R_MD = 4/4 = 100, P_MD = 4/15 = 26.66 (truncated); without the kind, the event row sees the 4 alone (P 100).
    # The entity row: the response has no entity mention, so R_MD = 0 and P_MD = 0 (no response mention).
    data_dir, _, response = exported
    options = ["--protocol", "standard", "--mentions", "predicted"]
    typed = _evaluate(data_dir, f"event:{response}", *options)
    untyped = _evaluate(data_dir, response, *options)
    rows = {s["type"]: s["scores"] for s in typed["datasets"][0]["settings"]}
    plain = {s["type"]: s["scores"] for s in untyped["datasets"][0]["settings"]}
    assert (rows["event"]["R_MD"], rows["event"]["P_MD"]) == (100.0, 26.66)
    assert (plain["event"]["R_MD"], plain["event"]["P_MD"]) == (100.0, 100.0)
    assert (rows["entity"]["R_MD"], rows["entity"]["P_MD"], rows["entity"]["F1_CONLL"]) == (0.0, 0.0, 0.0)
    assert rows["joint"] == plain["joint"]  # the joint meta-document scores every mention either way
    assert "each also in the settings of the kind its file gives it" in typed["notes"][1]


def test_the_gold_event_and_entity_files_as_a_response_score_100_in_every_row(
    exported: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    # the gold of the test split written as an end-to-end system writes its output, one file per kind (`export
    # conll --mentions event|entity`), evaluated with the kinds: every row (joint, event, entity) and mention
    # detection are 100 under both protocols; the two files' chains never join (each file's ids are its own)
    data_dir, _, _ = exported
    files = []
    for kind in ("event", "entity"):
        args = ["export", "conll", "np4e", "--split", "test", "--level", "topic", "--mentions", kind]
        result = runner.invoke(app, [*args, "--out", str(tmp_path / kind), "--data-dir", str(data_dir)])
        assert result.exit_code == 0, result.output
        files.append(f"{kind}:{tmp_path / kind / f'np4e_test_topic_{kind}.conll'}")
    for protocol in ("standard", "ucdcr"):
        data = _evaluate(data_dir, *files, "--protocol", protocol, "--mentions", "predicted")
        settings = data["datasets"][0]["settings"]
        assert {s["type"] for s in settings} == {"joint", "event", "entity"}
        assert all(value == 100.0 for s in settings for value in s["scores"].values()), protocol
    again = runner.invoke(app, ["evaluate", files[0], files[0], "--data-dir", str(data_dir), "--mentions", "predicted"])
    assert again.exit_code == 2 and "is also a mention of" in again.output  # one span in two files


def test_interval_units_put_a_twinless_mention_in_its_topic() -> None:
    # gold x = {0, 1} in topic A, y = {2, 3} in topic B; the response adds the twinless singleton "tw", of topic B
    gold, topics = ["x", "x", "y", "y"], ["A", "A", "B", "B"]
    response: list[list[Hashable]] = [[0, 1], [2], [3], ["tw"]]
    units = topic_counts([0, 1, 2, 3], gold, [None] * 4, topics, False, response, {"tw": "B"})
    assert isinstance(units, UnitCounts) and units.units == ("A", "B")
    summed = units.scores(np.ones((1, 2)))[0]
    whole = score_clusters([[0, 1], [2, 3]], response, "conll")
    muc, b3 = units.metrics.index("muc"), units.metrics.index("bcub")
    assert (summed[muc], summed[b3]) == pytest.approx((100 * whole["muc"].f1, 100 * whole["bcub"].f1))


def test_per_type_settings_score_the_gold_mentions_of_the_type_only(exported: tuple[Path, Path, Path]) -> None:
    data_dir, _, response = exported
    data = _evaluate(data_dir, response, "--protocol", "standard", "--mentions", "predicted")
    settings = {s["type"]: s for s in data["datasets"][0]["settings"]}
    # events VISIT, MEET, FIRE x2: all marked, as in gold; twinless "A fire" is in the joint setting only
    assert settings["event"]["scores"]["F1_CONLL"] == 100.0 and settings["event"]["scores"]["P_MD"] == 100.0
    # entities: 7 of 8 marked (CITY's second unmarked), no twinless mention: MD R 87.5, P 100
    entity = settings["entity"]["scores"]
    assert (entity["R_MD"], entity["P_MD"]) == (87.5, 100.0)
    key = [["o1", "o2", "o3", "o4"], ["paris"], ["single"], ["c1", "c2"]]
    by_hand = score_clusters(key, [["o1", "o2", "o3", "o4"], ["paris", "c1"], ["single"]], "conll")
    assert entity["F1_MUC"] == truncate_percent(by_hand["muc"].f1)
    assert entity["F1_B3"] == truncate_percent(by_hand["bcub"].f1)


def test_ucdcr_protocol_places_twinless_mentions_in_the_joint_settings_of_their_units(
    exported: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    data_dir, _, response = exported
    # a twinless mention in d4, a train document (no gold mention of the test split): ignored with a note
    train = "#begin document (1); part 000\n1/s3/d4\t0\t0\tFirefighters\t(7)\n#end document\n"
    with_train = tmp_path / "with-train.conll"
    with_train.write_text(response.read_text() + train)
    data = _evaluate(data_dir, with_train, "--mentions", "predicted")
    [dataset] = data["datasets"]
    settings = {(s["level"], s["unit"], s["type"]): s["scores"] for s in dataset["settings"]}
    # evaluated (the singletons out): OBAMA x4 (s1), FIRE x2 and CITY x2 (s2). PARIS (a flagged singleton) is scored
    # nowhere; "Merkel", "home" and ". He" (d1, d2: s1) and "A fire" (d3: s2) are twinless; d4's is ignored.
    obama, fire, city = ["o1", "o2", "o3", "o4"], ["f1", "f2"], ["c1", "c2"]
    s1_response = [[*obama, "merkel"], ["home"], ["across"]]
    s2_response = [[*fire, "a fire"], ["c1"]]
    s1 = score_clusters([obama], s1_response, "conll")
    s2 = score_clusters([fire, city], s2_response, "conll")
    topic = score_clusters([obama, fire, city], [*s1_response, *s2_response], "conll")
    for unit, expected in ((("subtopic", "s1", "joint"), s1), (("subtopic", "s2", "joint"), s2)):
        assert settings[unit] == _printed(expected), unit
    assert settings[("topic", "0", "joint")] == _printed(topic)
    # per type: no twinless mention; s1 entity = OBAMA as marked
    assert settings[("subtopic", "s1", "entity")]["P_MD"] == 100.0
    assert settings[("subtopic", "s1", "entity")]["F1_CONLL"] == 100.0
    assert ("subtopic", "s1", "event") not in settings  # no evaluated event in s1, as with gold mentions
    joint_subtopic = next(m for m in dataset["means"] if m["level"] == "subtopic" and m["type"] == "joint")
    assert joint_subtopic["settings"] == 2
    assert joint_subtopic["scores"]["R_MD"] == (100.0 + 75.0) / 2  # s1: 4/4; s2: 3/4
    assert data["notes"][1].startswith("4 twinless response mention(s)")
    assert data["notes"][2:] == [
        "1 response mention(s) are in no document with gold mentions of the test split of the selected datasets "
        "(np4e) (other documents, splits or datasets; spans across two documents) and were ignored"
    ]


def test_twinless_mentions_in_a_unit_without_a_setting_are_noted(exported: tuple[Path, Path, Path]) -> None:
    data_dir, _, response = exported
    text = response.read_text().replace("0/s1/d2\t1\t2\tat\t-", "0/s1/d2\t1\t2\tat\t(3)")  # "at": twinless, s1
    table = load_mentions(data_dir / "np4e", ("test",), [*EVAL_FIELDS, *SPAN_COLUMNS])
    path = response.with_name("at.conll")
    path.write_text(text)
    predictions = read_predictions(path, "predicted")
    assert predictions.mentions == "predicted" and predictions.crossing == {("0/s1/d1", 0, 6, 1, 0): "8"}
    # a dataset whose only subtopic with a setting is s2 (OBAMA's mentions flagged singletons too): the twinless
    # mentions of s1 ("Merkel", "home", ". He", "at") have no setting
    chains, singletons = table["coref_chain"].to_pylist(), table["is_singleton"].to_pylist()
    flags = [chain == "OBAMA" or flag for chain, flag in zip(chains, singletons, strict=True)]
    table = table.set_column(table.schema.get_field_index("is_singleton"), "is_singleton", [flags])
    evaluation = evaluate_predictions(predictions, {"np4e": table}, {"np4e": False})
    assert [s.setting.unit for s in evaluation.results[0].settings] == ["s2", "s2", "s2"]
    assert evaluation.notes[2] == (
        "4 twinless response mention(s) are in subtopics or topics whose gold mentions give no setting (fewer than 2 "
        "evaluated mentions) and were not scored"
    )
    assert [(m.level, m.type, m.settings) for m in evaluation.mention_detection] == [
        ("subtopic", "", 1),
        ("subtopic", "event", 1),
        ("subtopic", "entity", 1),
    ]


def test_gold_mentions_by_default_unchanged_and_said(exported: tuple[Path, Path, Path]) -> None:
    data_dir, _, response = exported
    default = _evaluate(data_dir, response, "--protocol", "standard")
    assert _evaluate(data_dir, response, "--protocol", "standard", "--mentions", "gold") == default
    assert default["mentions"] == "gold"
    # today's rules: the unmarked gold mention is a singleton, the twinless mentions are ignored; no mention detection
    assert default["notes"] == [
        "1 of the 12 evaluated gold mentions are not marked in the response: each counts as its own cluster (a "
        "singleton), e.g. " + tiny.mention_id(11),
        "4 response mention(s) match no gold mention of the test split of the selected datasets (np4e) by document, "
        "sentence and tokens, and were ignored (the protocol evaluates the gold mentions)",
    ]
    table = load_mentions(data_dir / "np4e", ("test",), [*EVAL_FIELDS, *SPAN_COLUMNS])
    labels, _ = resolve(read_predictions(response), {"np4e": table}, "test", STANDARD)
    [result] = evaluate(labels, {"np4e": table}, {"np4e": True}, "test", protocol=STANDARD)
    for setting, item in zip(default["datasets"][0]["settings"], result.settings, strict=True):
        assert setting["scores"] == item.scores and set(setting["scores"]) == set(SCORE_COLUMNS)
    assert all(set(mean["scores"]) == set(SCORE_COLUMNS) for mean in default["datasets"][0]["means"])


def test_predicted_mentions_need_a_conll_response(exported: tuple[Path, Path, Path], tmp_path: Path) -> None:
    data_dir, _, _ = exported
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps({tiny.mention_id(8): 1}))
    result = runner.invoke(app, ["evaluate", str(predictions), "--data-dir", str(data_dir), "--mentions", "predicted"])
    assert result.exit_code == 2
    assert "p.json: --mentions predicted needs a CoNLL-2012 response (a system's own spans)" in result.output
    assert isinstance(read_predictions(predictions), Predictions)  # gold: as before


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "ucdcr", *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def test_cli_subprocess_tables_json_and_help(exported: tuple[Path, Path, Path]) -> None:
    data_dir, key, response = exported
    common = [str(response), "--data-dir", str(data_dir), "--protocol", "standard"]
    tables = _cli("evaluate", *common, "--mentions", "predicted", "--format", "md")
    assert tables.returncode == 0, tables.stderr
    assert "### Mention detection: evaluation of response.conll, standard/gold-topics protocol, predicted mentions" in (
        tables.stdout
    )
    assert "| Dataset | Level | Type | Settings | R_MD | P_MD | F1_MD | CoNLL |" in tables.stdout
    expected = _printed(score_files(key, response, "conll"))
    row = " | ".join(f"{expected[column]:.2f}" for column in MENTION_COLUMNS)
    assert f"| np4e | topic | joint | 1 | {row} |" in tables.stdout
    assert "note: 4 twinless response mention(s)" in tables.stderr
    as_json = _cli("evaluate", *common, "--mentions", "predicted", "--json")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    joint = data["datasets"][0]["settings"][0]
    assert joint["type"] == "joint" and joint["scores"] == expected
    gold = _cli("evaluate", *common, "--format", "md")
    assert gold.returncode == 0 and "Mention detection" not in gold.stdout and "R_MD" not in gold.stdout
    assert "predicted mentions" not in gold.stdout
    shown = _cli("evaluate", "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    assert "--mentions" in text and "gold (default; the behaviour from before this option, unchanged)" in text


def test_evaluate_against_another_file_is_paired(exported: tuple[Path, Path, Path], tmp_path: Path) -> None:
    data_dir, key, _ = exported
    same = tmp_path / "same.conll"
    same.write_bytes(key.read_bytes())
    args = ["evaluate", str(key), "--data-dir", str(data_dir), "--protocol", "standard", "--json"]
    result = runner.invoke(app, [*args, "--against", str(same)])
    assert result.exit_code == 0, result.output
    [table] = json.loads(result.stdout)["comparison"]
    assert table["columns"][:5] == ["Dataset", "Level", "Type", key.name, same.name]
    for row in table["rows"]:  # the key against itself: no difference, and p = 1 where there are units to resample
        assert row["Δ"] == 0
        assert row["p"] in (None, 1.0)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({tiny.mention_id(i): f"c{i}" for i in range(len(tiny.MENTIONS))}))
    result = runner.invoke(app, [*args, "--against", str(empty), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "against empty.json: CoNLL F1, paired randomization" in result.stdout
    bad = runner.invoke(app, [*args, "--against", str(empty), "--significance", "t-test"])
    assert bad.exit_code == 2 and "valid tests are bootstrap, randomization" in bad.output


def test_the_python_api_evaluates_predicted_mentions_against_another_file(
    exported: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    import ucdcr

    data_dir, key, response = exported
    tables = ucdcr.evaluate(response, data_dir=data_dir, protocol="standard", mentions="predicted", against=key)
    comparison = tables[-1]
    assert comparison.title == f"{response.name} against {key.name}: CoNLL F1, paired randomization"
    joint = next(row for row in comparison.rows if row["Type"] == "joint")
    # the response lost mentions and links the key has: its CoNLL F1 is below the key's 100
    assert joint[key.name] == 100 and joint["Δ"] == joint[response.name] - 100
    with pytest.raises(ValueError, match="unknown significance test"):
        ucdcr.evaluate(response, data_dir=data_dir, significance="t-test")


def test_evaluate_without_datasets_takes_those_the_predictions_cover(tmp_path: Path) -> None:
    from tests.fixtures.bench_dataset import write_bench_dataset

    data_dir = tmp_path / "data"
    tiny.write_tiny_dataset(data_dir / "np4e")
    write_bench_dataset(data_dir / "other")
    predictions = tmp_path / "p.json"
    test_ids = [tiny.mention_id(i) for i, m in enumerate(tiny.MENTIONS) if tiny.DOCS[m[0]][0] == "test"]
    predictions.write_text(json.dumps(dict.fromkeys(test_ids, 1)))
    result = runner.invoke(app, ["evaluate", str(predictions), "--data-dir", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert [d["dataset"] for d in json.loads(result.stdout)["datasets"]] == ["np4e"]
    assert "evaluating np4e: the datasets the predictions cover (1 of 2 built" in result.stderr
    stray = tmp_path / "stray.json"
    stray.write_text(json.dumps({"NOPE_1": 1}))
    result = runner.invoke(app, ["evaluate", str(stray), "--data-dir", str(data_dir)])
    assert result.exit_code == 2 and "no mention id of the file belongs to a dataset of np4e, other" in result.output
