"""Hugging Face export (ucdcr.export.huggingface) on the tiny dataset of tests/fixtures/tiny_dataset.py, read back with
both loaders, ``datasets.load_dataset`` and ``datasets.load_from_disk``, and the card parsed by ``huggingface_hub``
(offline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import require_module
from tests.fixtures import tiny_dataset as tiny

datasets = require_module("datasets", "hf")

from huggingface_hub import DatasetCard  # noqa: E402

from ucdcr.errors import UcdcrError  # noqa: E402
from ucdcr.export.huggingface import export_hf, hf_licence, load_hf  # noqa: E402
from ucdcr.registry import get  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"


def _built(folder: Path, dataset_id: str, with_texts: bool = True) -> Path:
    """The tiny dataset with a build report naming ``dataset_id`` (whose declaration gives licence and texts rule)."""
    tiny.write_tiny_dataset(folder)
    if not with_texts:
        (folder / "all_documents.parquet").unlink()
    report = {
        "dataset": dataset_id,
        # counted from tiny_dataset.MENTIONS / DOCS: train d1, d2 (8 mentions, 22 tokens); test d3, d4 (5, 21)
        "splits": {"train": {"documents": 2, "mentions": 8, "tokens": 22}, "test": {"documents": 2, "mentions": 5}},
        "unavailable_splits": {},
    }
    (folder / "build_report.json").write_text(json.dumps(report), encoding="utf-8")
    return folder


def test_load_hf_gives_typed_splits(tmp_path: Path) -> None:
    ds = load_hf(_built(tmp_path / "tiny", "ecbplus"))
    assert list(ds) == ["train", "test"]  # val has no rows: left out
    assert (ds["train"].num_rows, ds["test"].num_rows) == (8, 5)
    features = ds["train"].features
    assert features["tokens_number"].feature == datasets.Value("int64")  # a sequence of ints
    assert features["sent_id"] == datasets.Value("int64") and features["is_singleton"] == datasets.Value("bool")
    # tiny_dataset.MENTIONS[1]: VISIT, tokens 2-5 of d1's first sentence
    assert {row["mention_id"]: row["tokens_number"] for row in ds["train"]}["TINY_01"] == [2, 3, 4, 5]
    tokens = load_hf(tmp_path / "tiny", kind="documents")
    assert tokens["train"].num_rows == 22


def test_export_opens_with_load_dataset_and_the_card_parses(tmp_path: Path) -> None:
    folder = _built(tmp_path / "tiny", "ecbplus")
    export = export_hf(folder, tmp_path / "hf")
    assert export.rows == {"mentions": {"train": 8, "test": 5}, "documents": {"train": 22, "test": 21}}
    loaded = datasets.load_dataset(str(tmp_path / "hf"), cache_dir=str(tmp_path / "cache"))
    assert {name: split.num_rows for name, split in loaded.items()} == {"train": 8, "test": 5}
    assert loaded["test"].features == load_hf(folder)["test"].features
    tokens = datasets.load_dataset(str(tmp_path / "hf"), "documents", cache_dir=str(tmp_path / "cache"))
    assert tokens["test"].num_rows == 21
    card = DatasetCard.load(tmp_path / "hf" / "README.md")
    assert card.data.license == "cc-by-3.0"  # ECB+'s manifest: CC BY 3.0
    assert [config["config_name"] for config in card.data.configs] == ["mentions", "documents"]
    assert get("ecbplus").citation[0] in card.text and "zhukova2026" in card.text
    assert "| train | 2 | 22 | 8 |" in card.text


def _split_rows(rows: list[dict], split: str) -> list[dict]:
    """The rows of one split, in a fixed order (``ucdcr.load`` orders the mention table its own way)."""
    return sorted((row for row in rows if row["split"] == split), key=lambda row: json.dumps(row, sort_keys=True))


def test_both_loaders_open_the_export_with_the_source_rows(tmp_path: Path) -> None:
    folder, out = _built(tmp_path / "tiny", "ecbplus"), tmp_path / "hf"
    export_hf(folder, out)
    saved = datasets.load_from_disk(str(out))
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert isinstance(saved, datasets.DatasetDict) and isinstance(loaded, datasets.DatasetDict)
    assert list(saved) == list(loaded) == ["train", "test"]  # val has no rows: left out by both
    for name in ("train", "test"):  # tiny_dataset: train d1, d2 (8 mentions); test d3, d4 (5 mentions)
        assert saved[name].to_list() == loaded[name].to_list()  # the same rows in the same order
        assert _split_rows(saved[name].to_list(), name) == _split_rows(tiny.mention_records(), name)
        assert saved[name].features == loaded[name].features == load_hf(folder)[name].features
    visit = saved["train"][saved["train"]["mention_id"].index("TINY_01")]  # tiny_dataset.MENTIONS[1]: VISIT
    assert (visit["mention_id"], visit["coref_chain"], visit["tokens_number"]) == ("TINY_01", "VISIT", [2, 3, 4, 5])
    assert visit["tokens_str"] == "the visit to Paris" and visit["is_singleton"] is True
    assert saved["test"]["coref_chain"].count("FIRE") == 3  # the cross-topic event chain of d3, d4
    info = saved["train"].info
    assert info.license == "CC BY 3.0" and get("ecbplus").citation[0] in info.citation
    assert "zhukova2026" in info.citation
    tokens = datasets.load_from_disk(str(out / "documents"))
    tokens_loaded = datasets.load_dataset(str(out), "documents", cache_dir=str(tmp_path / "cache"))
    assert {name: split.num_rows for name, split in tokens.items()} == {"train": 22, "test": 21}
    for name in ("train", "test"):
        assert tokens[name].to_list() == tokens_loaded[name].to_list()
        assert _split_rows(tokens[name].to_list(), name) == _split_rows(tiny.document_rows(), name)
    d3 = [(row["sent_id"], row["token"]) for row in tokens["test"] if row["topic/subtopic_name/doc"] == "0/s2/d3"]
    assert d3[:2] == [(0, "A"), (0, "fire")] and d3[-2:] == [(1, "city"), (1, ".")]  # tiny_dataset.DOCS["0/s2/d3"]


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_an_export_of_the_same_build_writes_the_same_files_and_replaces_its_folder(tmp_path: Path) -> None:
    folder = _built(tmp_path / "tiny", "ecbplus")
    export_hf(folder, tmp_path / "hf")
    first = _files(tmp_path / "hf")
    assert {"dataset_dict.json", "train/state.json", "documents/dataset_dict.json", "mentions/test.parquet"} <= set(
        first
    )
    export_hf(folder, tmp_path / "hf")  # replaces the folder an export wrote (every file is in its marker)
    export_hf(folder, tmp_path / "hf2")
    assert _files(tmp_path / "hf") == _files(tmp_path / "hf2") == first  # the saved copy's fingerprints too
    assert datasets.load_from_disk(str(tmp_path / "hf"))["train"].num_rows == 8


def test_texts_not_redistributable_get_no_document_config(tmp_path: Path) -> None:
    export = export_hf(_built(tmp_path / "tiny", "fcct", with_texts=False), tmp_path / "hf")
    assert list(export.rows) == ["mentions"]
    card = DatasetCard.load(tmp_path / "hf" / "README.md")
    assert [config["config_name"] for config in card.data.configs] == ["mentions"]
    assert "may not be redistributed" in card.text and "/documents" not in card.text
    assert not (tmp_path / "hf" / "documents").exists()
    saved = datasets.load_from_disk(str(tmp_path / "hf"))
    assert {name: split.num_rows for name, split in saved.items()} == {"train": 8, "test": 5}
    assert len(export.how_to_open()) == 1


def test_an_out_path_with_a_double_colon_is_refused_before_writing(tmp_path: Path) -> None:
    folder = _built(tmp_path / "tiny", "ecbplus")
    with pytest.raises(UcdcrError, match="'::'"):  # fsspec would write elsewhere (it read 'a::b' as 'a' once)
        export_hf(folder, tmp_path / "a::b" / "hf")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tiny"]


def test_licence_ids() -> None:
    assert hf_licence("CC BY-SA 4.0") == {"license": "cc-by-sa-4.0"}
    assert hf_licence("not stated")["license"] == "other"


def test_export_needs_a_build_report(tmp_path: Path) -> None:
    tiny.write_tiny_dataset(tmp_path / "tiny")
    with pytest.raises(UcdcrError, match=r"build_report\.json"):
        export_hf(tmp_path / "tiny", tmp_path / "hf")
    assert not (tmp_path / "hf").exists()


def test_cli_export_hf(tmp_path: Path) -> None:
    folder = _built(tmp_path / "tiny", "ecbplus")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "ucdcr", "export", "hf", str(folder), "--out", str(tmp_path / "hf")]
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert "mentions: train 8, test 5 rows" in result.stdout
    out = str((tmp_path / "hf").resolve())
    assert f"open the mentions with datasets.load_from_disk({out!r}) or datasets.load_dataset({out!r})\n" in (
        result.stdout
    )
    documents = str((tmp_path / "hf" / "documents").resolve())
    assert f"datasets.load_from_disk({documents!r}) or datasets.load_dataset({out!r}, 'documents')" in result.stdout
    assert f"wrote {out}" in result.stdout
    bad = subprocess.run(
        [*command[:5], str(tmp_path / "nothing"), *command[6:]], capture_output=True, text=True, env=env, check=False
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr
