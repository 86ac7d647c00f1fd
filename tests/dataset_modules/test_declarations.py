"""The dataset declarations (ucdcr.registry): found without a whitelist, one place for each fact, typed reader
options, and the typed mention record the finalize hooks share."""

from __future__ import annotations

import dataclasses
import pkgutil
from pathlib import Path

import pytest
from tests.fixtures.unified import mention_record

import ucdcr.datasets
from ucdcr.datasets.ecbplus import EcbplusOptions
from ucdcr.datasets.hypercoref import HypercorefOptions
from ucdcr.datasets.newswcl50r import NewsWCL50rOptions
from ucdcr.errors import UcdcrError, UnknownDatasetError
from ucdcr.io.load import dataset_id
from ucdcr.records import ROW_FIELDS, SPLITS, MentionRecord
from ucdcr.registry import (
    GOLD_FIELDS,
    ReadOptions,
    all_specs,
    build_options,
    dataset_ids,
    get,
    gold_fields_of,
    known_ids,
    register,
)
from ucdcr.schema import MENTION_FIELDS


def test_every_dataset_module_is_found_without_a_list() -> None:
    modules = sorted(m.name for m in pkgutil.iter_modules(ucdcr.datasets.__path__) if not m.name.startswith("_"))
    assert known_ids() == modules and len(modules) == 12
    assert all(get(module).id == module for module in modules)
    # the paper's order: alphabetical by paper name, ignoring case (its Tables 2-13 list them so)
    assert [spec.paper_name for spec in all_specs()] == [
        "CD2CR",
        "CEREC_exp",
        "ECB+",
        "ECB+METAm",
        "FCC-T",
        "GVC",
        "HyperCoref_exp",
        "MEANTIME_eng",
        "NewsWCL50r",
        "NIdent_en-cd",
        "NP4E_cd",
        "WEC-Eng",
    ]
    assert dataset_ids() == [spec.id for spec in all_specs()]
    assert get("ECB+").id == "ecbplus" and get("WEC-Eng").id == "wec_eng"
    with pytest.raises(UnknownDatasetError, match="unknown dataset 'ecb'; valid ids: cd2cr, cerec, ecbplus"):
        get("ecb")


def test_facts_are_declared_once_and_derived() -> None:
    specs = all_specs()
    # the authors' folder names (the loader reads their release by them) are unique and map back to the dataset
    assert len({spec.authors_folder for spec in specs}) == len(specs)
    assert all(dataset_id(spec.authors_folder) == spec.id for spec in specs)
    assert dataset_id("NP4E-prep") == "np4e" and dataset_id("some_folder") is None
    # the licence lives in the manifest only
    assert all(spec.licence == spec.manifest.licence for spec in specs)
    # NIdent re-annotates NP4E, ECB+METAm re-annotates ECB+ (paper §7.1.4, §7.1.10): left out of the uCDCR sums
    assert {spec.id: spec.reannotates for spec in specs if spec.reannotates} == {
        "nident": "np4e",
        "ecbplus_metam": "ecbplus",
    }
    # the authors put ECB+ (and METAm, parsed the same way) mentions in the event file by their chain id
    assert [spec.id for spec in specs if spec.authors_event_chains] == ["ecbplus", "ecbplus_metam"]
    for spec in specs:
        assert spec.expected_counts, spec.id  # every dataset states what a complete build gives, with sources
        assert all(count.source for count in spec.expected_counts)
        assert {count.key.rpartition(".")[0] for count in spec.expected_counts} <= {"", *SPLITS}


def test_reader_options_are_typed_and_checked() -> None:
    assert get("ecbplus").read_options({"all_sentences": "yes", "partial": "0"}) == EcbplusOptions(all_sentences=True)
    assert get("hypercoref").read_options({"outlets": "bbc.com, abcnews.go.com"}) == HypercorefOptions(
        outlets=("bbc.com", "abcnews.go.com")  # a comma-separated string, not its letters
    )
    assert get("hypercoref").read_options({"outlets": ["bbc.com"]}).outlets == ("bbc.com",)  # type: ignore[attr-defined]
    assert get("newswcl50r").read_options({"texts_dir": "/t"}) == NewsWCL50rOptions(texts_dir=Path("/t"))
    assert get("np4e").read_options(None) == ReadOptions() and get("np4e").read_options({}).given() == {}
    assert EcbplusOptions(all_sentences=True, partial=False).given() == {"all_sentences": True}
    with pytest.raises(
        UcdcrError, match=r"^unknown reader option all_sentence for ecbplus; valid: all_sentences, partial$"
    ):
        get("ecbplus").read_options({"all_sentence": "true"})
    with pytest.raises(UcdcrError, match=r"unknown reader options a, b for np4e; valid: partial"):
        build_options(ReadOptions, {"b": 1, "a": 2}, "np4e")
    with pytest.raises(UcdcrError, match=r"reader option partial='sometimes': expected true or false"):
        get("np4e").read_options({"partial": "sometimes"})
    with pytest.raises(UcdcrError, match=r"reader option outlets=3: expected a list or a comma-separated string"):
        get("hypercoref").read_options({"outlets": 3})
    with pytest.raises(UcdcrError, match=r"reader option texts_dir=5: expected a path"):
        get("newswcl50r").read_options({"texts_dir": 5})
    with pytest.raises(UcdcrError, match=r"ecbplus: reader options must be EcbplusOptions, got HypercorefOptions"):
        get("ecbplus").read_options(HypercorefOptions())


def test_mention_record_fields_and_derived_type() -> None:
    assert ROW_FIELDS == MENTION_FIELDS  # the record's fields are the 29 of the unified format, in their order
    assert {f.name for f in dataclasses.fields(MentionRecord)} == {*MENTION_FIELDS, "kind"}
    record = mention_record(mention_full_type="HUMAN_PART_PER")
    assert record.mention_type == "HUM" and tuple(record.as_row()) == MENTION_FIELDS
    typed = record.with_type("NEG_ACTION_OCCURRENCE", "event")
    assert (typed.mention_full_type, typed.mention_type, typed.kind) == ("NEG_ACTION_OCCURRENCE", "NEG", "event")
    assert dataclasses.replace(record, mention_full_type="LOC").mention_type == "LOC"  # never out of step
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.coref_chain = "other"  # type: ignore[misc]


def test_gold_fields_are_declared_by_every_dataset() -> None:
    assert set(GOLD_FIELDS) == {
        "coref_chain",
        "is_singleton",
        "description",
        "coref_type",
        "mention_type",
        "mention_full_type",
    }
    for spec in all_specs():
        assert set(GOLD_FIELDS) <= set(spec.gold_fields), spec.id
        assert set(spec.gold_fields) <= set(MENTION_FIELDS), spec.id
        assert len(set(spec.gold_fields)) == len(spec.gold_fields), spec.id
        assert gold_fields_of(spec.id) == spec.gold_fields == gold_fields_of(spec.authors_folder)
    # WEC-Eng keeps the source's heads: annotation, not computed from the span
    assert set(gold_fields_of("WEC-Eng")) - set(GOLD_FIELDS) == {
        "mention_head",
        "mention_head_id",
        "mention_head_pos",
        "mention_head_lemma",
        "mention_ner",
        "mention_head_id_context",
    }
    assert [spec.id for spec in all_specs() if spec.gold_fields != GOLD_FIELDS] == ["wec_eng"]
    assert gold_fields_of("some_folder") == GOLD_FIELDS  # a folder that is no registered dataset


@pytest.mark.parametrize(
    ("gold_fields", "message"),
    [
        ((*GOLD_FIELDS, "head"), r"gold fields \['head'\] are not mention fields"),
        (("coref_chain",), r"gold fields lack \['is_singleton', 'description'"),
    ],
)
def test_gold_fields_are_checked_at_registration(gold_fields: tuple[str, ...], message: str) -> None:
    spec = dataclasses.replace(get("np4e"), id="np4e_copy", gold_fields=gold_fields)
    with pytest.raises(ValueError, match=message):
        register(spec)
