"""The authors' uCDCR release as a source (ucdcr.sources: discover, install, release, hub; `ucdcr download --release`,
`ucdcr compare`), on a tiny release-shaped copy made from the embedded ECB+ sample: list columns as Python repr
strings, a split with several JSON files, a copy without the documents file, an unknown folder; the Hub replaced by
a local folder (the two calls of ucdcr.sources.hub into huggingface_hub).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.errors import UcdcrError
from ucdcr.io.load import load_mentions
from ucdcr.schema import LIST_FIELDS
from ucdcr.sources import hub
from ucdcr.sources.discover import PROVENANCE_FILE, discover_datasets, release_path
from ucdcr.sources.install import read_layout
from ucdcr.sources.release import download_release

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded ECB+ sample built as ``ecbplus`` (a build of the dataset the release copy is made from)."""
    from ucdcr.demo import sample_dir
    from ucdcr.pipeline.build import build_dataset

    data = tmp_path_factory.mktemp("built")
    build_dataset("ecbplus", sample_dir(), data, progress=False)
    return data / "ecbplus"


def _release_copy(built: Path, root: Path, documents: bool = True, leave_out: tuple[str, str] | None = None) -> Path:
    """A release-shaped copy of a build: ``ECBplus/`` with README.md, the authors' parquet (repr-string lists), the
    train events in three files (``event_mentions_0/1/10.json``), and an unknown folder ``Extra/``."""
    folder = root / "ECBplus"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text("# ECBplus\n", encoding="utf-8")
    table = pq.read_table(built / "all_mentions.parquet")
    for name in LIST_FIELDS:
        index = table.schema.get_field_index(name)
        table = table.set_column(index, name, pa.array([repr(v) for v in table[name].to_pylist()], pa.string()))
    pq.write_table(table, folder / "all_mentions.parquet")
    if documents:
        shutil.copyfile(built / "all_documents.parquet", folder / "all_documents.parquet")
    for split in ("train", "val", "test"):
        (folder / split).mkdir()
        for kind in ("event", "entity"):
            if (split, kind) == leave_out:
                continue
            records = json.loads((built / split / f"{kind}_mentions.json").read_text(encoding="utf-8"))
            if split == "train" and kind == "event":
                third = max(1, len(records) // 3)
                parts = {"0": records[:third], "1": records[third : 2 * third], "10": records[2 * third :]}
                for suffix, part in parts.items():
                    (folder / split / f"event_mentions_{suffix}.json").write_text(json.dumps(part), encoding="utf-8")
            else:
                (folder / split / f"{kind}_mentions.json").write_text(json.dumps(records), encoding="utf-8")
    (root / "Extra").mkdir()
    (root / "Extra" / "notes.txt").write_text("not a dataset\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def copy(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _release_copy(built, tmp_path_factory.mktemp("copy"))


@pytest.fixture(scope="module")
def data(copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding only the release of ecbplus (installed from the copy)."""
    folder = tmp_path_factory.mktemp("data")
    result = download_release(["ecbplus"], folder, release_dir=copy)
    assert not result.failed
    return folder


# --- the layout ----------------------------------------------------------------------------------------------


def test_layout_rules(copy: Path) -> None:
    layout = read_layout(copy / "ECBplus")
    names = [path.name for path in layout.split_files[("train", "event")]]
    assert names == ["event_mentions_0.json", "event_mentions_1.json", "event_mentions_10.json"]  # natural order
    assert layout.documents is not None and layout.card is not None and layout.absent() == []
    assert layout.unknown == []
    with pytest.raises(UcdcrError, match="holds no mentions"):
        read_layout(copy / "Extra")


def test_several_files_of_a_split_are_joined_in_order(built: Path, data: Path) -> None:
    installed = release_path(data, "ecbplus")
    joined = json.loads((installed / "train" / "event_mentions.json").read_text(encoding="utf-8"))
    original = json.loads((built / "train" / "event_mentions.json").read_text(encoding="utf-8"))
    assert [r["mention_id"] for r in joined] == [r["mention_id"] for r in original]
    record = json.loads((installed / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert record["joined"]["train/event_mentions.json"] == [f"train/event_mentions_{n}.json" for n in ("0", "1", "10")]


def test_installed_release_reads_like_the_build(built: Path, data: Path) -> None:
    ours = load_mentions(built)
    theirs = load_mentions(release_path(data, "ecbplus"))
    assert theirs.num_rows == ours.num_rows
    assert theirs["tokens_text"].to_pylist() == ours["tokens_text"].to_pylist()


def test_repr_string_lists_are_parsed_where_the_json_files_are_missing(built: Path, tmp_path: Path) -> None:
    copy = _release_copy(built, tmp_path / "copy", documents=False, leave_out=("train", "event"))
    result = download_release(["ecbplus"], tmp_path / "data", release_dir=copy)
    assert not result.failed and result.installed[0].absent == ["all_documents.parquet"]
    installed = release_path(tmp_path / "data", "ecbplus")
    assert json.loads((installed / PROVENANCE_FILE).read_text(encoding="utf-8"))["absent"] == ["all_documents.parquet"]
    train = load_mentions(installed, splits=["train"])
    expected = load_mentions(built, splits=["train"])
    assert train["tokens_text"].to_pylist() == expected["tokens_text"].to_pylist()  # from the repr strings
    assert train["type"].to_pylist() == expected["type"].to_pylist()  # the rows not in the entity file are events


def test_all_names_unknown_folders_and_installs_the_datasets(copy: Path, tmp_path: Path) -> None:
    result = download_release(None, tmp_path, release_dir=copy)
    assert [done.dataset for done in result.installed] == ["ecbplus"]
    assert any("Extra" in note for note in result.notes)


def test_a_dataset_missing_from_the_copy_is_one_line(copy: Path, tmp_path: Path) -> None:
    result = download_release(["np4e"], tmp_path, release_dir=copy)
    assert result.failed == {"np4e": f"the release copy {copy} has no folder NP4E/ (dataset np4e)"}
    assert not (tmp_path / "release" / "np4e").exists()


def test_local_copy_records_its_hashes(copy: Path, data: Path) -> None:
    record = json.loads((release_path(data, "ecbplus") / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert record["release"] == "AnZhu/uCDCR" and record["licence"] == "CC BY-SA 4.0" and record["commit"] is None
    path = copy / "ECBplus" / "all_mentions.parquet"
    entry = record["files"]["ECBplus/all_mentions.parquet"]
    assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert entry["size"] == path.stat().st_size and entry["verified_by"] is None
    assert record["dataset_licence"] == "CC BY 3.0" and record["citation"]


# --- names and sources ---------------------------------------------------------------------------------------


def test_plain_id_names_the_release_when_there_is_no_build(data: Path) -> None:
    assert discover_datasets(data) == {"ecbplus": release_path(data, "ecbplus")}
    assert discover_datasets(data, ["ecbplus"]) == {"ecbplus": release_path(data, "ecbplus")}
    with pytest.raises(UcdcrError, match="no datasets from the build"):
        discover_datasets(data, source="build")


def test_build_and_release_side_by_side(built: Path, data: Path, tmp_path: Path) -> None:
    both = tmp_path / "data"
    shutil.copytree(data, both)
    shutil.copytree(built, both / "ecbplus")
    released = release_path(both, "ecbplus")
    assert discover_datasets(both) == {"ecbplus": both / "ecbplus"}
    assert discover_datasets(both, source="release") == {"ecbplus": released}
    assert discover_datasets(both, source="both") == {"ecbplus": both / "ecbplus", "ecbplus@release": released}
    assert discover_datasets(both, ["ecbplus@release", "ecbplus"]) == {
        "ecbplus@release": released,
        "ecbplus": both / "ecbplus",
    }
    from ucdcr.api import dataset_dir

    assert dataset_dir("ecbplus", both) == both / "ecbplus"
    assert dataset_dir("ecbplus@release", both) == released


# --- the Hub, replaced by a local folder ---------------------------------------------------------------------


def _fake_hub(monkeypatch: pytest.MonkeyPatch, repo_dir: Path, *, drop: str | None = None, calls: list | None = None):
    """Serve ``repo_dir`` as the Hub: the listing gives sha256 for the Parquet files (as for LFS files) and the git
    blob id for the others; the snapshot copies the matching files (without ``drop``)."""

    def dataset_info(repo: str, revision: str) -> Any:
        if revision == "no-such-branch":
            raise type("RevisionNotFoundError", (Exception,), {})("404 revision")
        if revision == "offline":
            raise ConnectionError("Name or service not known")
        siblings = []
        for path in sorted(p for p in repo_dir.rglob("*") if p.is_file()):
            content = path.read_bytes()
            blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
            lfs = {"sha256": hashlib.sha256(content).hexdigest()} if path.suffix == ".parquet" else None
            siblings.append(
                SimpleNamespace(
                    rfilename=path.relative_to(repo_dir).as_posix(), size=len(content), blob_id=blob, lfs=lfs
                )
            )
        return SimpleNamespace(sha=COMMIT, siblings=siblings)

    def snapshot_download(repo: str, commit: str, patterns: list[str], local_dir: Path) -> None:
        assert commit == COMMIT
        if calls is not None:
            calls.append(patterns)
        for path in repo_dir.rglob("*"):
            name = path.relative_to(repo_dir).as_posix()
            if path.is_file() and name != drop and any(fnmatch.fnmatch(name, p) for p in patterns):
                (local_dir / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, local_dir / name)

    monkeypatch.setattr(hub, "_dataset_info", dataset_info)
    monkeypatch.setattr(hub, "_snapshot_download", snapshot_download)


def test_hub_download_records_the_commit_and_the_hub_hashes(
    copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list = []
    _fake_hub(monkeypatch, copy, calls=calls)
    result = download_release(["ecbplus"], tmp_path, revision="v1.0")
    assert not result.failed and result.installed[0].commit == COMMIT
    assert calls == [["ECBplus/*"]]  # only the folder asked for
    record = json.loads((release_path(tmp_path, "ecbplus") / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert (record["revision"], record["commit"]) == ("v1.0", COMMIT)
    files = record["files"]
    assert files["ECBplus/all_mentions.parquet"]["verified_by"] == "sha256"
    assert files["ECBplus/README.md"]["verified_by"] == "git_blob"
    assert set(files) == {p.relative_to(copy).as_posix() for p in (copy / "ECBplus").rglob("*") if p.is_file()}
    assert [p.name for p in (tmp_path / "release").iterdir() if not p.name.startswith(".")] == ["ecbplus"]


def test_hub_errors_are_one_line(copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_hub(monkeypatch, copy)
    with pytest.raises(UcdcrError, match="revision 'no-such-branch' does not exist in AnZhu/uCDCR"):
        download_release(["ecbplus"], tmp_path, revision="no-such-branch")
    with pytest.raises(UcdcrError, match="cannot reach the Hugging Face Hub"):
        download_release(["ecbplus"], tmp_path, revision="offline")
    result = download_release(["np4e"], tmp_path)
    assert "has no folder NP4E/ (dataset np4e)" in result.failed["np4e"]
    assert not (tmp_path / "release" / "np4e").exists()


def test_half_downloaded_folder_is_refused_and_resumed(
    copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_hub(monkeypatch, copy, drop="ECBplus/val/entity_mentions.json")
    result = download_release(["ecbplus"], tmp_path)
    assert "half-downloaded: ECBplus/val/entity_mentions.json is missing" in result.failed["ecbplus"]
    assert not release_path(tmp_path, "ecbplus").exists()  # nothing half-written visible
    _fake_hub(monkeypatch, copy)
    assert not download_release(["ecbplus"], tmp_path).failed


def test_a_changed_file_fails_verification(copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    served = tmp_path / "served"
    shutil.copytree(copy, served)
    _fake_hub(monkeypatch, served)
    original = hub._snapshot_download

    def corrupting(repo: str, commit: str, patterns: list[str], local_dir: Path) -> None:
        original(repo, commit, patterns, local_dir)
        (local_dir / "ECBplus" / "README.md").write_text("# changed\n", encoding="utf-8")

    monkeypatch.setattr(hub, "_snapshot_download", corrupting)
    result = download_release(["ecbplus"], tmp_path / "data")
    assert "git blob mismatch" in result.failed["ecbplus"]


def test_without_huggingface_hub_the_error_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(UcdcrError, match=r"needs huggingface_hub, in the optional `hf` extra \(`pip install"):
        download_release(["ecbplus"], tmp_path)


# --- every command on a release ------------------------------------------------------------------------------


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_download_command_from_a_copy(copy: Path, tmp_path: Path) -> None:
    output = _run("download", "--release", "ecbplus", "--release-dir", str(copy), "--data-dir", str(tmp_path))
    assert f"ecbplus -> {release_path(tmp_path, 'ecbplus').resolve()}" in output
    result = CliRunner().invoke(
        app, ["download", "--release", "np4e", "--release-dir", str(copy), "--data-dir", str(tmp_path)]
    )
    assert result.exit_code == 2 and "np4e: not installed -- the release copy" in result.output


def test_tables_commands_on_the_release(data: Path) -> None:
    listed = json.loads(_run("datasets", "--data-dir", str(data), "--raw-dir", str(data / "raw"), "-f", "json"))
    rows = {row["id"]: row for row in listed[0]["rows"]}
    assert (rows["ecbplus"]["built"], rows["ecbplus"]["release"]) == ("no", "local copy")
    assert "| ecbplus |" in _run("stats", "--data-dir", str(data), "-f", "md")
    assert "| ecbplus |" in _run("diversity", "--data-dir", str(data), "--source", "release", "-f", "md")
    assert "| ecbplus | subtopic |" in _run("baseline", "--data-dir", str(data), "-f", "md")


def test_evaluate_and_benchmark_on_the_release(data: Path, tmp_path: Path) -> None:
    mentions = load_mentions(release_path(data, "ecbplus"), splits=["test"], columns=["mention_id", "coref_chain"])
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps(dict(zip(*mentions.select([0, 1]).to_pydict().values(), strict=True))))
    assert "ecbplus" in _run("evaluate", str(predictions), "--data-dir", str(data), "-f", "md")
    for protocol in ("ucdcr", "standard"):
        output = _run(
            "benchmark", "--systems", "head-lemma", "--data-dir", str(data), "--protocol", protocol,
            "--cache-dir", str(tmp_path / "cache"), "-f", "md",
        )  # fmt: skip
        assert "| ecbplus | head-lemma | joint |" in output


def test_exports_view_and_report_on_the_release(data: Path, tmp_path: Path) -> None:
    _run("export", "conll", "ecbplus", "--data-dir", str(data), "--out", str(tmp_path / "conll"))
    _run("export", "spacy", "ecbplus", "--data-dir", str(data), "--out", str(tmp_path / "docs.spacy"))
    _run("export", "corefud", "ecbplus@release", "--data-dir", str(data), "--out", str(tmp_path / "corefud"))
    output = _run(
        "export", "hf", "ecbplus", "--source", "release", "--data-dir", str(data), "--out", str(tmp_path / "hf")
    )
    assert "mentions:" in output
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert "taken from the authors' uCDCR release (AnZhu/uCDCR, CC BY-SA 4.0" in card and "CC BY 3.0" in card
    key = load_mentions(release_path(data, "ecbplus"), columns=["conll_doc_key"])["conll_doc_key"][0].as_py()
    _run("view", "ecbplus", key, "--data-dir", str(data), "--out", str(tmp_path / "page.html"))
    _run("report", "--data-dir", str(data), "--out", str(tmp_path / "report"))
    assert (tmp_path / "report").is_dir()


def test_a_release_without_texts_gives_one_error_for_text_exports(built: Path, tmp_path: Path) -> None:
    copy = _release_copy(built, tmp_path / "copy", documents=False)
    download_release(["ecbplus"], tmp_path / "data", release_dir=copy)
    result = CliRunner().invoke(
        app, ["export", "conll", "ecbplus", "--data-dir", str(tmp_path / "data"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert "this copy of the authors' release has no texts" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_compare_build_with_release(built: Path, data: Path) -> None:
    result = CliRunner().invoke(
        app, ["compare", "ecbplus", "--data-dir", str(data), "--build", str(built), "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    matched, agreeing, _reasons = json.loads(result.stdout)
    by_text = matched["rows"][0]
    steps = [line.split("] ", 1)[1] for line in result.stderr.splitlines()]  # a line per step with its time
    assert steps == [
        f"reading our build {built}",
        f"reading the release {data / 'release' / 'ecbplus'}",
        f"pairing {by_text['release']:,} release mentions with {by_text['build']:,} of ours",
        "done",
    ]
    assert by_text["measure"] == "mentions by (document, sentence, text)"
    assert by_text["recall %"] == by_text["precision %"] == 100.0
    assert {row["field"]: row["%"] for row in agreeing["rows"]}["head lemma"] == 100.0
    result = CliRunner().invoke(app, ["compare", "ecbplus", "--data-dir", str(data)])
    assert result.exit_code == 2 and "ecbplus is not built in" in result.output


def test_a_copy_left_half_downloaded_by_huggingface_hub_is_refused(copy: Path, tmp_path: Path) -> None:
    partial = tmp_path / "copy"
    shutil.copytree(copy, partial)
    metadata = partial / ".cache" / "huggingface" / "download" / "ECBplus"
    metadata.mkdir(parents=True)
    (metadata / "all_mentions.parquet.metadata").write_text(f"{COMMIT}\netag\n1.0\n", encoding="utf-8")
    (metadata / "xyz.all_documents.parquet.incomplete").write_bytes(b"\0" * 10)
    result = download_release(["ecbplus"], tmp_path / "data", release_dir=partial)
    assert "is half-downloaded (1 file(s) still incomplete" in result.failed["ecbplus"]
    assert not (tmp_path / "data" / "release" / "ecbplus").exists()
    (metadata / "xyz.all_documents.parquet.incomplete").unlink()
    done = download_release(["ecbplus"], tmp_path / "data", release_dir=partial).installed
    assert done[0].commit == COMMIT  # read from huggingface_hub's download metadata
