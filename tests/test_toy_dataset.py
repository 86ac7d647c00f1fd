"""A 13th dataset without editing ucdcr: one dataset module and one manifest, written here into a temporary folder.

What the README's "Adding a dataset" says, shown end to end: the module declares the dataset (its facts, typed
reader options, expected counts and its small reader) and registers it; the manifest lists its raw file. Imported
(or found through the ``ucdcr.datasets`` entry-point group, as a third-party package declares it), the dataset is
built by build_dataset and by ``ucdcr build``, listed by ``ucdcr datasets`` and loaded by ``ucdcr.load`` -- nothing
else in ucdcr knows about it.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ucdcr
from ucdcr import registry
from ucdcr.errors import MissingRawData, UcdcrError

MODULE = '''"""Toy: two tiny documents in one JSON file (the toy's own format, so its reader lives here).

Raw folder ``<raw-dir>/Toy/toy.json``: an object ``{document name: {"topic", "split", "sentences": [[token, ...],
...], "mentions": [[sentence, first token, last token, chain, type], ...]}}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ucdcr.formats.json_files import expect, read_json
from ucdcr.records import SourceCorpus, SourceDocument, SourceMention, SourceToken
from ucdcr.registry import DatasetSpec, ExpectedCount, ReadOptions, register

RAW_FILE = "toy.json"


@dataclass(frozen=True)
class ToyOptions(ReadOptions):
    """lowercase: write every token in lower case."""

    lowercase: bool = False


def read(folder: Path, options: ToyOptions) -> SourceCorpus:
    path = folder / RAW_FILE
    data = expect(read_json(path), "object", path, "the file", of="document name -> record")
    corpus = SourceCorpus(documents=[], mentions=[], inputs=[path])
    for name, record in data.items():
        topic = record["topic"]
        tokens = [
            SourceToken(f"{s}.{i}", word.lower() if options.lowercase else word, s)
            for s, words in enumerate(record["sentences"])
            for i, word in enumerate(words)
        ]
        document = SourceDocument(topic, topic, topic, topic, name, name, record["split"], tokens, RAW_FILE)
        corpus.documents.append(document)
        for number, (sentence, first, last, chain, full_type) in enumerate(record["mentions"]):
            ids = tuple(f"{sentence}.{i}" for i in range(first, last + 1))
            corpus.mentions.append(
                SourceMention(document.doc_key, ids, chain, "entity", full_type, chain.title(), f"{name}:{number}")
            )
    return corpus


register(
    DatasetSpec(
        id="toy",
        paper_name="Toy",
        authors_folder="Toy",
        raw_folder="Toy",
        mention_kinds=("entity",),
        reader=read,
        options=ToyOptions,
        mention_id_prefix="Toy_",
        expected_counts=(
            ExpectedCount("documents", 2, "counted in toy.json"),
            ExpectedCount("mentions_written", 5, "counted in toy.json"),
            ExpectedCount("train.mentions", 3, "counted in toy.json"),
        ),
        manifest_file=Path(__file__).with_name("ucdcr_toy.manifest.json"),
    )
)
'''

MANIFEST = {
    "dataset": "toy",
    "licence": "CC0-1.0",
    "homepage": "https://example.org/toy",
    "files": [
        {"path": "toy.json", "url": None, "size": None, "sha256": None, "git_blob": None, "required": True, "note": ""}
    ],
    "manual_steps": "Write toy.json by hand.",
}

RAW = {
    "1_a": {
        "topic": "1",
        "split": "train",
        "sentences": [["Alice", "met", "Bob", "in", "Paris", "."], ["She", "left", "."]],
        "mentions": [[0, 0, 0, "ALICE", "PERSON"], [0, 2, 2, "BOB", "PERSON"], [1, 0, 0, "ALICE", "PERSON"]],
    },
    "2_b": {
        "topic": "2",
        "split": "test",
        "sentences": [["Bob", "and", "Alice", "smiled", "."]],
        "mentions": [[0, 0, 0, "BOB", "PERSON"], [0, 2, 2, "ALICE", "PERSON"]],
    },
}


def write_toy_package(folder: Path) -> Path:
    """The two files of the dataset, plus the metadata a pip-installed package would have for its entry point."""
    folder.mkdir(parents=True)
    (folder / "ucdcr_toy.py").write_text(MODULE, encoding="utf-8")
    (folder / "ucdcr_toy.manifest.json").write_text(json.dumps(MANIFEST, indent=1), encoding="utf-8")
    metadata = folder / "ucdcr_toy-0.1.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: ucdcr-toy\nVersion: 0.1\n", encoding="utf-8")
    (metadata / "entry_points.txt").write_text("[ucdcr.datasets]\ntoy = ucdcr_toy\n", encoding="utf-8")
    return folder


def write_raw(raw_dir: Path) -> Path:
    (raw_dir / "Toy").mkdir(parents=True)
    (raw_dir / "Toy" / "toy.json").write_text(json.dumps(RAW), encoding="utf-8")
    return raw_dir


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy module imported from a temporary folder (its import registers it); the registry is restored after."""
    package = write_toy_package(tmp_path / "package")
    monkeypatch.setattr(registry, "_REGISTRY", registry._REGISTRY.copy())
    monkeypatch.syspath_prepend(str(package))
    importlib.import_module("ucdcr_toy")
    yield package
    sys.modules.pop("ucdcr_toy", None)


def test_a_dataset_is_one_module_and_one_manifest(toy: Path) -> None:
    assert sorted(p.name for p in toy.iterdir() if p.is_file()) == ["ucdcr_toy.manifest.json", "ucdcr_toy.py"]
    spec = registry.get("toy")
    assert spec.licence == "CC0-1.0" and "toy" in registry.known_ids() and "toy" in registry.dataset_ids()
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(spec)


def test_build_and_load_with_the_library(toy: Path, tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    raw = write_raw(tmp_path / "raw")
    (raw / "Toy" / "toy.json").rename(raw / "Toy" / "elsewhere.json")
    with pytest.raises(MissingRawData, match=r"(?s)toy: raw files missing in .*: toy\.json\..*Write toy\.json by hand"):
        build_dataset("toy", raw_dir=raw, data_dir=tmp_path / "data", progress=False)
    (raw / "Toy" / "elsewhere.json").rename(raw / "Toy" / "toy.json")
    report = build_dataset("toy", raw_dir=raw, data_dir=tmp_path / "data", progress=False)
    assert report.count_differences == [] and report.counts["mentions_written"] == 5
    mentions = ucdcr.load("toy", data_dir=tmp_path / "data").to_pylist()
    assert sorted(m["tokens_str"] for m in mentions) == ["Alice", "Alice", "Bob", "Bob", "She"]
    assert {(m["split"], m["coref_chain"], m["is_singleton"]) for m in mentions if m["tokens_str"] == "Alice"} == {
        ("train", "ALICE", False),
        ("test", "ALICE", True),
    }
    with pytest.raises(UcdcrError, match="unknown reader option lower for toy; valid: lowercase, partial"):
        build_dataset("toy", raw_dir=raw, data_dir=tmp_path / "data", options={"lower": "true"})
    # a build that does not give the declared counts says which, with their sources
    (raw / "Toy" / "toy.json").write_text(json.dumps({"1_a": RAW["1_a"]}), encoding="utf-8")
    short = build_dataset("toy", raw_dir=raw, data_dir=tmp_path / "data", progress=False)
    assert short.count_differences == [
        "documents is 1, declared 2 (counted in toy.json)",
        "mentions_written is 3, declared 5 (counted in toy.json)",
    ]


def test_build_list_and_load_from_the_command_line(tmp_path: Path) -> None:
    """A separate process finds the toy through its entry point, as it would find an installed package."""
    package = write_toy_package(tmp_path / "package")
    raw, data = write_raw(tmp_path / "raw"), tmp_path / "data"
    paths = [str(Path(ucdcr.__file__).resolve().parent.parent), str(package)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ucdcr", *args, "--raw-dir", str(raw), "--data-dir", str(data)]
        return subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=300)

    built = run("build", "toy", "-q", "--option", "lowercase=true")
    assert built.returncode == 0, built.stderr + built.stdout
    assert "toy: 2 documents, 5 of 5 mentions (100.00%)" in built.stdout and "declared counts" not in built.stdout
    report = json.loads((data / "toy" / "build_report.json").read_text(encoding="utf-8"))
    assert report["options"] == {"lowercase": "True"}
    rows = json.loads((data / "toy" / "train" / "entity_mentions.json").read_text(encoding="utf-8"))
    assert [row["tokens_str"] for row in rows] == ["alice", "bob", "she"]
    listed = run("datasets", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    [row] = [row for row in json.loads(listed.stdout)[0]["rows"] if row["id"] == "toy"]
    assert (row["paper name"], row["licence"], row["status"], row["built"]) == ("Toy", "CC0-1.0", "complete", "yes")
    misspelt = run("build", "toy", "--option", "lowercas=true")
    assert misspelt.returncode == 2 and "valid: lowercase, partial" in misspelt.stdout + misspelt.stderr
