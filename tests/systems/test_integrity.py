"""What a system sees at test time: every test mention, no gold-derived field, no path to the dataset; the protocol
selects what it scores from the gold and the predictions alike, afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset
from tests.fixtures.spy import Spy, chain_derived, paths_in

import ucdcr
from ucdcr.registry import GOLD_FIELDS


def _with_singleton(folder: Path) -> Path:
    """The toy dataset plus one singleton event mention in its test split (a mention the ucdcr protocol does not
    score), whose mention_type is one no other mention has."""
    path = folder / "test" / "event_mentions.json"
    records = json.loads(path.read_text())
    extra = dict(records[0], mention_id=records[0]["mention_id"] + "/lone", coref_chain="lone", is_singleton=True)
    extra["mention_type"] = "LONE"
    path.write_text(json.dumps([*records, extra]))
    return folder


@pytest.mark.parametrize("protocol", ["ucdcr", "standard"])
def test_predict_sees_every_test_mention_and_nothing_gold(protocol: str, tmp_path: Path) -> None:
    folder = _with_singleton(write_bench_dataset(tmp_path / "toy"))
    Spy.seen.clear()
    ucdcr.benchmark([Spy], [folder], protocol=protocol, cache_dir=tmp_path / "cache")
    [test] = Spy.seen
    gold = ucdcr.load(folder, split="test")
    assert sorted(test.column("mention_id")) == sorted(gold["mention_id"].to_pylist())  # the singleton too
    assert not set(GOLD_FIELDS) & set(test.mentions.column_names)
    columns = {name: test.column(name) for name in test.mentions.column_names}
    chain_of = dict(zip(gold["mention_id"].to_pylist(), gold["coref_chain"].to_pylist(), strict=True))
    assert chain_derived(columns, [chain_of[mention_id] for mention_id in test.column("mention_id")]) == []
    assert paths_in(test) == [] and test.tokens is None  # the toy folder has no token table


def test_the_chain_derived_rule_finds_a_column_copied_from_the_chain() -> None:
    chains = ["a", "a", "b", "b", "c"]
    columns = {"copied": ["X", "X", "Y", "Y", "Z"], "lemma": ["say", "tell", "say", "say", "go"], "type": chains}
    assert chain_derived(columns, chains) == ["copied"]


def test_a_singleton_prediction_for_an_unscored_mention_does_not_change_the_ucdcr_score(tmp_path: Path) -> None:
    """The lone singleton is not scored by the ucdcr protocol: head-lemma gives the same numbers with and
    without it (the protocol drops it from key and response)."""
    plain = write_bench_dataset(tmp_path / "plain")
    lone = _with_singleton(write_bench_dataset(tmp_path / "lone"))
    scores = []
    for folder in (plain, lone):
        result = ucdcr.benchmark(["head-lemma"], [folder], cache_dir=tmp_path / folder.name)
        scores.append([run.means for run in result.runs])
    assert scores[0] == scores[1]
