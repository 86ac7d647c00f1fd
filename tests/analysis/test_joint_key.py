"""The gold key of the standard protocol's joint evaluation is per (kind, chain): a chain id that holds an event and
an entity (ECB+'s ``UNK_`` chains, e.g. "UNK_41_9ecb_14" in test) is two gold chains there, while the ucdcr
protocol keeps the authors' key by chain id alone (their numbers are reproduced with it)."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.unified import mention, write_json_dataset

from ucdcr.analysis.chains import chain_ids
from ucdcr.analysis.protocol import EVAL_FIELDS, STANDARD, UCDCR, evaluation_rows, run_protocol, score_setting
from ucdcr.io.load import load_mentions


def _table(tmp_path: Path):
    # gold chain ids: A = {a1, a2} (events), "UNK/41" = {u1 (an event), u2 (an entity)}; rows in load order (events,
    # then entities): a1, a2, u1, u2
    events = [
        mention("A", ["attack"], mention_id="a1", doc="d1", full_type="ACTION_OCCURRENCE"),
        mention("A", ["attack"], mention_id="a2", doc="d2", full_type="ACTION_OCCURRENCE"),
        mention("UNK/41", ["fired"], lemma="fire", mention_id="u1", doc="d1", full_type="ACTION_OCCURRENCE"),
    ]
    entities = [mention("UNK/41", ["UN"], mention_id="u2", doc="d2", full_type="HUMAN_PART_MET")]
    folder = write_json_dataset(tmp_path / "toy", {("test", "event"): events, ("test", "entity"): entities})
    return load_mentions(folder, ("test",), EVAL_FIELDS)


# the response of a system that never puts an event and an entity together: {a1, a2}, {u1}, {u2}
RESPONSE = ["attack", "attack", "fire", "UN"]


def test_chain_ids_by_kind_separate_an_event_and_an_entity_of_one_chain(tmp_path: Path) -> None:
    table = _table(tmp_path)
    assert table["mention_id"].to_pylist() == ["a1", "a2", "u1", "u2"]
    assert chain_ids(table) == ["A", "A", "UNK-41", "UNK-41"]
    assert chain_ids(table, by_kind=True) == ["event/A", "event/A", "event/UNK-41", "entity/UNK-41"]


def test_joint_key_by_kind_and_by_chain_by_hand(tmp_path: Path) -> None:
    table = _table(tmp_path)
    rows = [0, 1, 2, 3]
    # key by (kind, chain) = {a1, a2}, {u1}, {u2} = the response: 100 everywhere
    by_kind = score_setting(rows, chain_ids(table, by_kind=True), RESPONSE)
    assert (by_kind["F1_MUC"], by_kind["F1_B3"], by_kind["F1_CEAF_E"], by_kind["F1_CONLL"]) == (100, 100, 100, 100)
    # key by chain id = {a1, a2}, {u1, u2}: MUC R = (1 + 0) / (1 + 1) = 1/2, P = 1/1: F1 2/3 -> 66.66;
    # B3 R = (1 + 1 + 1/2 + 1/2) / 4 = 3/4, P = 1: F1 6/7 -> 85.71;
    # CEAFe phi4(A, {a1, a2}) = 1, phi4(UNK-41, {u1}) = 2 * 1 / 3: R = (5/3) / 2 = 83.33, P = (5/3) / 3 = 55.55,
    # F1 = 2/3 -> 66.66; CoNLL (66.66 + 85.71 + 66.66) / 3 = 73.01
    by_chain = score_setting(rows, chain_ids(table), RESPONSE)
    assert (by_chain["R_MUC"], by_chain["P_MUC"], by_chain["F1_MUC"]) == (50.0, 100.0, 66.66)
    assert (by_chain["R_B3"], by_chain["P_B3"], by_chain["F1_B3"]) == (75.0, 100.0, 85.71)
    assert (by_chain["R_CEAF_E"], by_chain["P_CEAF_E"], by_chain["F1_CEAF_E"]) == (83.33, 55.55, 66.66)
    assert by_chain["F1_CONLL"] == 73.01


def test_ucdcr_protocol_keeps_the_authors_key_by_chain_id(tmp_path: Path) -> None:
    table = _table(tmp_path)
    assert evaluation_rows(table, "test", UCDCR) == [0, 1, 2, 3]  # UNK/41 has 2 mentions in the subtopic: kept
    result = run_protocol("toy", table, RESPONSE, False, "test", UCDCR)
    [joint] = [s.scores for s in result.settings if s.setting.type == ""]
    assert joint["F1_CONLL"] == 73.01  # the hand-computed key-by-chain-id figure above


def test_standard_protocol_joint_key_is_by_kind(tmp_path: Path) -> None:
    table = _table(tmp_path)
    result = run_protocol("toy", table, RESPONSE, True, "test", STANDARD)
    scores = {s.setting.type: s.scores["F1_CONLL"] for s in result.settings}
    # joint: the key by kind is the response (100; by chain id it was 73.01); the per-type settings are the same
    # under either key (the lone entity mention scores MUC 0 of 0: CoNLL (0 + 100 + 100) / 3)
    assert scores == {"": 100.0, "event": 100.0, "entity": 66.667}
