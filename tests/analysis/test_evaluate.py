"""`evaluate`: predictions files, coverage errors, and agreement with the baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _toy_data import mention, write_dataset
from typer.testing import CliRunner

from ucdcr.analysis.baseline import EVAL_FIELDS, run_baseline
from ucdcr.analysis.evaluate import evaluate, read_predictions
from ucdcr.cli.app import app
from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.load import load_mentions


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    events = [
        mention("A", ["attack"], mention_id="m1"),
        mention("A", ["attack"], mention_id="m2"),
        mention("A", ["bombing"], mention_id="m3"),
        mention("B", ["attack"], mention_id="m4"),
        mention("B", ["strike"], mention_id="m5"),
        mention("S", ["walk"], mention_id="s1", singleton=True),
    ]
    return write_dataset(tmp_path / "data" / "toy", {("test", "event"): events})


def _table(folder: Path):
    return load_mentions(folder, splits=("test",), columns=EVAL_FIELDS)


def test_prediction_formats(tmp_path: Path) -> None:
    as_object = tmp_path / "p.json"
    as_object.write_text(json.dumps({"m1": 1, "m2": "1"}))
    as_list = tmp_path / "l.json"
    as_list.write_text(json.dumps([{"mention_id": "m1", "cluster": 1}, {"mention_id": "m2", "cluster": "1"}]))
    as_csv = tmp_path / "p.csv"
    as_csv.write_text("mention_id,cluster,score\nm1,1,0.5\nm2,1,0.1\n")
    for path in (as_object, as_list, as_csv):
        assert read_predictions(path) == {"m1": "1", "m2": "1"}  # clusters compared as strings


def test_malformed_predictions(tmp_path: Path) -> None:
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("id,label\nm1,1\n")
    with pytest.raises(FormatError, match=r"bad.csv:1: the CSV header"):
        read_predictions(bad_csv)
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps([{"mention_id": "m1", "cluster": 1}, {"mention_id": "m1", "cluster": 2}]))
    with pytest.raises(FormatError, match="predicted twice: m1"):
        read_predictions(twice)


def test_missing_and_unknown_ids_are_errors(folder: Path) -> None:
    tables, levels = {"toy": _table(folder)}, {"toy": False}
    with pytest.raises(UcdcrError, match=r"2 evaluated mentions have no prediction: m4, m5"):
        evaluate({"m1": "a", "m2": "a", "m3": "b"}, tables, levels)
    complete = {f"m{i}": "x" for i in range(1, 6)}
    with pytest.raises(UcdcrError, match=r"1 predicted mention ids are not test mentions .*: zz"):
        evaluate({**complete, "zz": "x"}, tables, levels)
    evaluate({**complete, "s1": "x"}, tables, levels)  # a prediction for a left-out singleton is accepted


def test_baseline_predictions_reproduce_the_baseline_and_gold_scores_100(folder: Path) -> None:
    table = _table(folder)
    baseline = run_baseline("toy", table, topic_level=False)
    lemmas = dict(zip(table["mention_id"].to_pylist(), table["mention_head_lemma"].to_pylist(), strict=True))
    [evaluated] = evaluate(lemmas, {"toy": table}, {"toy": False})
    assert evaluated.settings == baseline.settings and evaluated.means == baseline.means
    gold = dict(zip(table["mention_id"].to_pylist(), table["coref_chain"].to_pylist(), strict=True))
    [perfect] = evaluate(gold, {"toy": table}, {"toy": False})
    assert all(value == 100.0 for mean in perfect.means for value in mean.scores.values())


def test_cli_json_output(folder: Path, tmp_path: Path) -> None:
    predictions = tmp_path / "gold.csv"
    predictions.write_text("mention_id,cluster\n" + "".join(f"m{i},{'A' if i < 4 else 'B'}\n" for i in range(1, 6)))
    result = CliRunner().invoke(app, ["evaluate", str(predictions), "--data-dir", str(folder.parent), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["datasets"][0]["means"][0]["scores"]["F1_CONLL"] == 100.0
    failing = CliRunner().invoke(app, ["evaluate", str(tmp_path / "none.csv"), "--data-dir", str(folder.parent)])
    assert failing.exit_code == 2 and "does not exist" in failing.output
