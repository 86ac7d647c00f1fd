"""A system placed among the shipped reference runs, on our real builds (docs/benchmark.md#placing-your-system):
`ucdcr evaluate` sets a predictions file beside the reference systems' runs that ship inside ucdcr, training
nothing; data of another content get one line and no mixed leaderboard; and the gold against itself scores 100.00
in every row of both protocols and both mention modes on every dataset built here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import ucdcr
from ucdcr.export.conll import export_dataset
from ucdcr.systems.framework.names import builtin_version, default_systems

DATASETS = ("ecbplus", "np4e", "meantime", "cd2cr", "cerec")


def _lemma_predictions(data_dir: Path, path: Path) -> Path:
    """A hand-written system: inside each gold topic, mentions with the same lower-cased head lemma corefer (the
    literature's lemma baseline, which the shipped `lemma-baseline` runs)."""
    test = ucdcr.load("ecbplus", split="test", data_dir=data_dir)
    columns = (test[name].to_pylist() for name in ("mention_id", "topic_id", "mention_head_lemma"))
    path.write_text(
        json.dumps({mention: f"{topic}|{lemma.lower()}" for mention, topic, lemma in zip(*columns, strict=True)})
    )
    return path


def _evaluate(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "UCDCR_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "ucdcr", "evaluate", *args]
    return subprocess.run(command, capture_output=True, text=True, env=environment, check=False)


def test_evaluate_places_predictions_beside_the_seven_shipped_reference_systems(built, tmp_path: Path) -> None:
    data_dir = built("ecbplus").parent
    predictions = _lemma_predictions(data_dir, tmp_path / "preds.json")
    cache = tmp_path / "empty-cache"
    args = [str(predictions), "--protocol", "standard", "--datasets", "ecbplus", "--data-dir", str(data_dir)]
    done = _evaluate(*args, "--json", cache=cache)
    assert done.returncode == 0, done.stderr
    assert not cache.exists()  # nothing trained, nothing stored: the references ship with ucdcr
    data = json.loads(done.stdout)
    rows = {row["System"]: row for row in data["leaderboard"]["rows"]}
    assert list(rows)[-1] == "preds.json"
    assert set(default_systems()) <= _shipped_names(list(rows)[:-1])
    assert {rows[name]["Source"] for name in list(rows)[:-1]} == {"shipped"}
    mine, reference = rows["preds.json"], rows["lemma-baseline"]
    # the predictions are lemma-baseline's clustering: its shipped numbers to the last digit (README: 69.46 [66.40,
    # 72.01]), on the same resampled units, with the same Δ to the best and the same exact p
    for column in ("ecbplus", "ecbplus low", "ecbplus high", "Δ best", "Δ best low", "Δ best high", "p"):
        assert mine[column] == reference[column], column
    assert (round(mine["ecbplus"], 2), round(mine["ecbplus low"], 2), round(mine["ecbplus high"], 2)) == (
        69.46,
        66.40,
        72.01,
    )
    # ECB+'s standard test split has 8 units (two chains join topics 37+38 and 40+43): every swap of 2^8 is scored,
    # and the audit of issue 53 measured ensemble - pairwise at p = 0.0078 = 2/256 exactly
    best = [name for name, row in rows.items() if row["tied for first"] == "best"]
    assert best[0].startswith("ensemble") and rows["pairwise"]["p"] == 2 / 256
    assert "ecbplus=8 gold-topic units" in data["signature"] and "protocol:standard" in data["signature"]
    assert data["leaderboard"]["notes"][-1].startswith("Signature: ")
    text = _evaluate(*args, cache=cache)
    assert text.returncode == 0 and "| preds.json | 69.46 [66.40, 72.01] |" in text.stdout, text.stdout


def _shipped_names(names: list[str]) -> set[str]:
    """The reference systems of leaderboard rows: a run of an older version than the installed code's is named
    NAME@vN (the results file keeps both versions' runs until the new one is measured everywhere); each such
    version is older than the current one."""
    for name in names:
        system, _, version = name.partition("@v")
        current = builtin_version(system)
        assert current is not None and (not version or int(version) < int(current)), name
    return {name.partition("@v")[0] for name in names}


def test_data_of_another_content_get_one_line_and_no_mixed_leaderboard(built, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    folder = data_dir / "ecbplus"
    shutil.copytree(built("ecbplus"), folder)
    table = pq.read_table(folder / "all_mentions.parquet")
    chains = table["coref_chain"].to_pylist()
    chains[0] = chains[0] + "-changed"  # one mention moved to a chain of its own: another build of ECB+
    pq.write_table(
        table.set_column(table.column_names.index("coref_chain"), "coref_chain", [chains]),
        folder / "all_mentions.parquet",
    )
    predictions = _lemma_predictions(data_dir, tmp_path / "preds.json")
    done = _evaluate(str(predictions), "--protocol", "standard", "--data-dir", str(data_dir), cache=tmp_path / "c")
    assert done.returncode == 0, done.stderr
    assert "Leaderboard" not in done.stdout and "shipped" not in done.stdout
    notes = [line for line in done.stderr.splitlines() if "no shipped reference run agrees" in line]
    assert len(notes) == 1 and "data: ecbplus@" in notes[0]
    assert "`ucdcr benchmark --protocol standard --datasets ecbplus`" in notes[0]


def _all_100(tables: list, where: tuple[str, ...]) -> None:
    """Every score of every row of the evaluation's first tables (Table 13, mention detection) is 100.00."""
    rows = [row for table in tables[:2] for row in table.rows if "Type" in row]
    assert rows, where
    values = {
        (row["Level"], row["Type"], column): row[column]
        for row in rows
        for column in row
        if column not in ("Dataset", "Level", "Type", "Settings")
    }
    wrong = {place: value for place, value in values.items() if value != 100.0}
    assert not wrong, (*where, wrong)


@pytest.mark.parametrize("dataset", DATASETS)
def test_the_gold_against_itself_scores_100_in_every_row(built, tmp_path: Path, dataset: str) -> None:
    # The gold of the test split, keyed as each protocol keys it (a chain id holding both kinds -- ECB+'s UNK_
    # chains -- is one chain per kind under the standard protocol and one chain under the ucdcr protocol), evaluated
    # with that protocol: 100.00 in every score of every row (joint, event, entity). As mention ids (JSON) with the
    # gold mentions; as a CoNLL response exported with the protocol's key (`export conll --chains kind|id`) with the
    # gold mentions and with the response's own mentions scored, wherever CoNLL can write every gold mention.
    data_dir = built(dataset).parent
    test = ucdcr.load(dataset, split="test", data_dir=data_dir, columns=["mention_id", "coref_chain"])
    kinds = ucdcr.load(dataset, split="test", data_dir=data_dir, columns=["mention_id"], mention_type="event")
    events = set(kinds["mention_id"].to_pylist())
    for protocol, chains in (("standard", "kind"), ("ucdcr", "id")):
        pairs = zip(test["mention_id"].to_pylist(), test["coref_chain"].to_pylist(), strict=True)
        gold = {m: (("event/" if m in events else "entity/") if chains == "kind" else "") + c for m, c in pairs}
        path = tmp_path / f"{protocol}.json"
        path.write_text(json.dumps(gold))
        options = {"protocol": protocol, "resamples": 0, "references": "none"}
        _all_100(ucdcr.evaluate(path, dataset, data_dir, **options), (protocol, "json"))
        out = tmp_path / f"{protocol}-{dataset}"
        export = export_dataset(dataset, out, split="test", data_dir=data_dir, chains=chains)
        summary = export.splits["test"]
        assert summary is not None
        other_chain = [reason for _, reason in summary.left_out if "in another chain" in reason]
        if other_chain:
            # CEREC: mentions on the span of a mention of another chain, which CoNLL brackets cannot write twice and
            # a response of spans cannot hold (docs/evaluation.md#predicted-mentions); a repeated span of one chain
            # (NP4E) is written once and gives each of its gold mentions the chain
            assert dataset == "cerec" and len(other_chain) == len(summary.left_out)
            continue
        for mentions in ("gold", "predicted"):
            _all_100(
                ucdcr.evaluate(summary.conll_path, dataset, data_dir, mentions=mentions, **options),
                (protocol, mentions),
            )


LEMMA_SYSTEM = """from ucdcr.systems import System


class MyLemma(System):
    name = "my-lemma"

    def predict(self, test):
        lemmas = (lemma.lower() for lemma in test.column("mention_head_lemma"))
        return dict(zip(test.column("mention_id"), lemmas))
"""


def test_a_benchmarked_system_is_placed_beside_the_shipped_runs(built, tmp_path: Path) -> None:
    # a user's System run by `ucdcr benchmark`: the runner makes its clusters unique per gold topic, so it is
    # lemma-baseline again, and its leaderboard row equals the shipped one; the predictions it saves evaluate to it
    data_dir = built("ecbplus").parent
    (tmp_path / "mysystems.py").write_text(LEMMA_SYSTEM)
    args = ["benchmark", "--systems", "mysystems:MyLemma", "--protocol", "standard", "--datasets", "ecbplus"]
    args += ["--data-dir", str(data_dir), "--save-predictions", str(tmp_path / "preds"), "--format", "json"]
    environment = {**os.environ, "UCDCR_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "ucdcr", *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    leaderboard = json.loads(done.stdout)[-1]
    rows = {row["System"]: row for row in leaderboard["rows"]}
    assert list(rows)[-1] == "my-lemma" and set(default_systems()) <= _shipped_names(list(rows)[:-1])
    assert rows["my-lemma"]["Source"] == "this benchmark" and rows["pairwise"]["Source"] == "shipped"
    assert rows["my-lemma"]["ecbplus"] == rows["lemma-baseline"]["ecbplus"]
    saved = tmp_path / "preds" / "standard_gold-topics" / "my-lemma" / "ecbplus.seed0.json"
    tables = ucdcr.evaluate(saved, "ecbplus", data_dir, protocol="standard", references="none")
    assert next(row["CoNLL"] for row in tables[0].rows if row["Type"] == "joint") == rows["my-lemma"]["ecbplus"]


def test_a_release_copy_gets_one_line_and_no_mixed_leaderboard(built, reference_dir: Path, tmp_path: Path) -> None:
    # the authors' release of ECB+ installed beside our build (`--source both`: ecbplus@release): other mentions,
    # so the shipped runs of our build are not its references
    data_dir = tmp_path / "data"
    shutil.copytree(built("ecbplus"), data_dir / "ecbplus")
    install = ["download", "--release", "ecbplus", "--release-dir", str(reference_dir), "--data-dir", str(data_dir)]
    assert subprocess.run([sys.executable, "-m", "ucdcr", *install], capture_output=True, check=False).returncode == 0
    release = ucdcr.load("ecbplus@release", split="test", data_dir=data_dir, columns=["mention_id", "coref_chain"])
    predictions = tmp_path / "release.json"
    pairs = zip(release["mention_id"].to_pylist(), release["coref_chain"].to_pylist(), strict=True)
    predictions.write_text(json.dumps(dict(pairs)))
    args = [str(predictions), "--protocol", "standard", "--datasets", "ecbplus@release", "--data-dir", str(data_dir)]
    done = _evaluate(*args, "--source", "both", cache=tmp_path / "c")
    assert done.returncode == 0, done.stderr
    assert "Leaderboard" not in done.stdout and "| shipped |" not in done.stdout
    notes = [line for line in done.stderr.splitlines() if "no shipped reference run agrees" in line]
    assert len(notes) == 1 and "ecbplus@release (data: ecbplus@" in notes[0], done.stderr
