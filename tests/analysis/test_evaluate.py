"""`evaluate`: predictions files and their rules, coverage, --split, CoNLL responses, agreement with the baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures import tiny_dataset as tiny
from tests.fixtures.unified import mention, write_json_dataset
from typer.testing import CliRunner

from ucdcr.analysis.baseline import run_baseline
from ucdcr.analysis.evaluate import Predictions, evaluate, read_predictions, resolve
from ucdcr.analysis.protocol import EVAL_FIELDS
from ucdcr.cli.app import app
from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.load import load_mentions

runner = CliRunner()


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
    val = [mention("V", ["raid"], mention_id="v1", split="val"), mention("V", ["raid"], mention_id="v2", split="val")]
    return write_json_dataset(tmp_path / "data" / "toy", {("test", "event"): events, ("val", "event"): val})


def _table(folder: Path, split: str = "test"):
    return load_mentions(folder, splits=(split,), columns=EVAL_FIELDS)


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_prediction_formats(tmp_path: Path) -> None:
    paths = [
        _write(tmp_path, "p.json", json.dumps({"m1": 1, "m2": "1"})),
        _write(
            tmp_path, "l.json", json.dumps([{"mention_id": "m1", "cluster": 1}, {"mention_id": "m2", "cluster": "1"}])
        ),
        _write(tmp_path, "p.csv", "mention_id,cluster,score\nm1,1,0.5\nm2,1,0.1\n"),
        _write(tmp_path, "bom.csv", b"\xef\xbb\xbfcluster,mention_id\r\n1,m1\r\n1,m2\r\n"),  # Excel's "CSV UTF-8"
        _write(tmp_path, "no-suffix", "mention_id,cluster\nm1,1\nm2,1\n"),  # recognised by content, not name
    ]
    for path in paths:
        assert read_predictions(path).by_id == {"m1": "1", "m2": "1"}, path


def test_cluster_id_rule(tmp_path: Path) -> None:
    # numbers by value (1 = 1.0 = 1e0), an integral number equals its integer string, other strings exactly
    text = '{"a": 1, "b": 1.0, "c": 1e0, "d": "1", "e": "1.0", "f": "01", "g": 1.5, "h": -0.0, "i": "x"}'
    labels = read_predictions(_write(tmp_path, "p.json", text)).by_id
    assert labels == {"a": "1", "b": "1", "c": "1", "d": "1", "e": "1.0", "f": "01", "g": "1.5", "h": "0", "i": "x"}


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("dup.json", '{"m1": 1, "m2": 2, "m1": 1}', "mention id 'm1' is given twice \\(two keys of the object\\)"),
        (
            "dup-list.json",
            '[{"mention_id": "m1", "cluster": 1}, {"mention_id": "m1", "cluster": 1}]',
            "item 1: mention id 'm1' is given twice \\(first at item 0\\)",
        ),
        (
            "dup.csv",
            "mention_id,cluster\nm1,1\nm2,1\nm1,2\n",
            "line 4: mention id 'm1' is given twice \\(first at line 2\\)",
        ),
        (
            "null.json",
            '{"m1": null}',
            ": mention 'm1': the cluster must be a string or a number, got null",
        ),
        ("nan.json", '{"m1": NaN}', ": mention 'm1': the cluster is nan, not a cluster id"),
        ("inf.json", '{"m1": Infinity}', "the cluster is inf, not a cluster id"),
        ("bool.json", '{"m1": true}', "the cluster must be a string or a number, got the boolean true"),
        ("list.json", '{"m1": [1]}', "the cluster must be a string or a number, got a list of 1 element"),
        ("object.json", '{"m1": {"id": 1}}', "the cluster must be a string or a number, got an object with 1 field"),
        ("none.json", '{"m1": "None"}', "the cluster 'None' is a missing value, not a cluster id"),
        ("empty-cell.csv", "mention_id,cluster\nm1,\n", "line 2 \\(mention 'm1'\\): the cluster '' is a missing value"),
        ("nan.csv", "mention_id,cluster\nm1,NaN\n", "line 2 \\(mention 'm1'\\): the cluster 'NaN' is a missing value"),
        ("short-row.csv", "mention_id,cluster\nm1\n", ":2: expected 2 fields \\(as the header\\), found 1"),
        ("number-id.json", '[{"mention_id": 7, "cluster": 1}]', "item 0: the mention id must be a non-empty string"),
        ("no-key.json", '[{"mention_id": "m1"}]', "item 0 is not an object with the keys 'mention_id' and 'cluster'"),
        (
            "item-key-twice.json",
            '[{"mention_id": "m1", "cluster": 1, "cluster": 2}]',
            "item 0 has the key 'cluster' twice",
        ),
        ("bad.json", '{"m1": 1,', ":1: invalid JSON"),
        ("text.txt", "hello world\n", ":1: neither JSON nor a CSV with the columns mention_id and cluster"),
        ("header.csv", "id,label\nm1,1\n", ":1: neither JSON nor a CSV .* \\(first line: 'id,label'\\)"),
        ("scalar.json", "42\n", "neither JSON nor a CSV .*first line: '42'"),
        ("empty.json", "", "the file is empty; expected a JSON object"),
        ("utf16.json", '{"m1": 1}'.encode("utf-16"), "the file is UTF-16 text"),
        ("latin1.csv", "mention_id,cluster\nm\u00e9,1\n".encode("latin-1"), ":2: not UTF-8 text"),
    ],
    ids=lambda value: value if isinstance(value, str) and "." in value and len(value) < 25 else "",
)
def test_bad_predictions_are_one_error_naming_the_file(tmp_path: Path, name: str, content: str, problem: str) -> None:
    path = _write(tmp_path, name, content)
    with pytest.raises(FormatError, match=rf"{name}(:\d+)?:? .*{problem}|{name}{problem}"):
        read_predictions(path)


def test_missing_predictions_are_an_error_and_other_ids_a_note(folder: Path) -> None:
    tables, levels = {"toy": _table(folder)}, {"toy": False}
    with pytest.raises(UcdcrError, match=r"2 evaluated mentions have no prediction: m4, m5"):
        evaluate({"m1": "a", "m2": "a", "m3": "b"}, tables, levels)
    complete = {f"m{i}": "x" for i in range(1, 6)}
    labels, notes = resolve(Predictions(Path("p.json"), by_id={**complete, "s1": "x", "zz": "x", "v1": "y"}), tables)
    # s1 is a test mention the protocol leaves out (a singleton): kept, silently; zz (unknown) and v1 (val): noted
    assert labels == {**complete, "s1": "x"}
    assert notes == [
        (
            "2 prediction(s) are not for test mentions of the selected datasets (toy) and were ignored "
            "(other datasets or splits), e.g. zz, v1"
        )
    ]
    evaluate(labels, tables, levels)


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
    predictions = _write(
        tmp_path, "gold.csv", "mention_id,cluster\n" + "".join(f"m{i},{'A' if i < 4 else 'B'}\n" for i in range(1, 6))
    )
    result = runner.invoke(app, ["evaluate", str(predictions), "--data-dir", str(folder.parent), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["split"] == "test" and data["notes"] == []
    assert data["datasets"][0]["means"][0]["scores"]["F1_CONLL"] == 100.0
    failing = runner.invoke(app, ["evaluate", str(tmp_path / "none.csv"), "--data-dir", str(folder.parent)])
    assert failing.exit_code == 2 and "none.csv: file not found" in failing.output


def test_split_val_evaluates_the_val_mentions(folder: Path, tmp_path: Path) -> None:
    # v1, v2 (chain V) are the only val mentions; the test predictions in the same file are ignored with a note
    predictions = _write(tmp_path, "p.json", json.dumps({"v1": "c", "v2": "c", "m1": "a"}))
    args = ["evaluate", str(predictions), "--data-dir", str(folder.parent), "--json"]
    result = runner.invoke(app, [*args, "--split", "val"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["split"] == "val" and data["datasets"][0]["evaluated_mentions"] == 2
    assert data["datasets"][0]["means"][0]["scores"]["F1_CONLL"] == 100.0  # v1, v2 in one cluster, as gold
    assert data["notes"][0].startswith("1 prediction(s) are not for val mentions of the selected datasets (toy)")
    assert "note:" in result.stderr
    missing = runner.invoke(app, args)  # the test split needs a prediction for m2 ... m5
    assert missing.exit_code == 2 and "4 evaluated mentions have no prediction: m2, m3, m4, m5" in missing.output
    bad = runner.invoke(app, [*args, "--split", "dev"])
    assert bad.exit_code == 2 and "unknown split 'dev'; valid splits: train, val, test" in bad.output


def test_predictions_for_datasets_outside_the_selection_are_ignored_with_a_note(folder: Path, tmp_path: Path) -> None:
    other = [mention("Z", ["x"], mention_id="z1"), mention("Z", ["x"], mention_id="z2")]
    write_json_dataset(folder.parent / "other", {("test", "entity"): other})
    labels = {f"m{i}": "A" if i < 4 else "B" for i in range(1, 6)} | {"z1": "q", "z2": "q"}
    predictions = _write(tmp_path, "p.json", json.dumps(labels))
    result = runner.invoke(
        app, ["evaluate", str(predictions), "--data-dir", str(folder.parent), "--datasets", "toy", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [item["dataset"] for item in data["datasets"]] == ["toy"]
    assert data["notes"] == [
        (
            "2 prediction(s) are not for test mentions of the selected datasets (toy) and were ignored "
            "(other datasets or splits), e.g. z1, z2"
        )
    ]


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, Path]:
    """The tiny dataset's data dir and its test split exported as CoNLL by `ucdcr export conll` (the gold)."""
    data_dir = tmp_path / "data"
    tiny.write_tiny_dataset(data_dir / "np4e")
    out = tmp_path / "conll"
    args = ["export", "conll", "np4e", "--split", "test", "--out", str(out), "--data-dir", str(data_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return data_dir, out / "np4e_test_document.conll"


def _evaluate_json(data_dir: Path, predictions: Path) -> dict:
    result = runner.invoke(app, ["evaluate", str(predictions), "--data-dir", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_exported_gold_as_a_conll_response_scores_100(exported: tuple[Path, Path]) -> None:
    data_dir, conll = exported
    data = _evaluate_json(data_dir, conll)
    # tiny_dataset test split: FIRE x3 (d3, d3, d4) and CITY x2 (d3) are evaluated
    assert data["datasets"][0]["evaluated_mentions"] == 5 and data["notes"] == []
    assert all(value == 100.0 for mean in data["datasets"][0]["means"] for value in mean["scores"].values())


def test_conll_response_unmarked_gold_and_extra_mentions_are_noted(exported: tuple[Path, Path], tmp_path: Path) -> None:
    data_dir, conll = exported
    lines = conll.read_text().splitlines()
    changed = []
    for line in lines:
        fields = line.split("\t")
        if fields[0] == "1/s3/d4":  # d4: "Firefighters fought the fire for hours ." -- FIRE is token 3
            fields[-1] = {"0": "(77)", "3": "-"}.get(fields[2], fields[-1])  # unmark FIRE, mark "Firefighters"
        changed.append("\t".join(fields))
    response = _write(tmp_path, "response.conll", "\n".join(changed) + "\n")
    data = _evaluate_json(data_dir, response)
    assert data["notes"] == [
        "1 of the 5 evaluated gold mentions are not marked in the response: each counts as its own cluster "
        "(a singleton), e.g. " + tiny.mention_id(12),
        (
            "1 response mention(s) match no gold mention of the test split of the selected datasets (np4e) by "
            "document, sentence and tokens, and were ignored (the protocol evaluates the gold mentions)"
        ),
    ]
    joint_topic = [m for m in data["datasets"][0]["means"] if m["level"] == "topic" and m["type"] == "joint"]
    # topic 1 holds only d4's FIRE (now a singleton, 1 mention: no setting); topic 0 is untouched: 100
    assert joint_topic[0]["scores"]["F1_CONLL"] == 100.0


def test_conll_response_errors_name_the_file(exported: tuple[Path, Path], tmp_path: Path) -> None:
    data_dir, conll = exported
    text = conll.read_text()
    not_ours = _write(tmp_path, "plain.conll", "#begin document d\nw\t(1)\n#end document\n")
    result = runner.invoke(app, ["evaluate", str(not_ours), "--data-dir", str(data_dir)])
    assert result.exit_code == 2
    assert "plain.conll:2: a token line must start with the document key, sentence number and token number" in (
        result.output
    )
    first_open = next(line for line in text.splitlines() if line.endswith("\t(0)"))
    twice = _write(tmp_path, "twice.conll", text.replace(first_open, first_open[: -len("(0)")] + "(0)|(1)", 1))
    result = runner.invoke(app, ["evaluate", str(twice), "--data-dir", str(data_dir)])
    assert result.exit_code == 2 and "one span is in two chains (0 and 1)" in result.output
