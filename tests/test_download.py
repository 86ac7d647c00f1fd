"""Downloads and verification (ucdcr.sources.download), and the raw-file check (ucdcr.registry, ucdcr.manifest), with
small manifests and files made by the tests."""

from __future__ import annotations

import hashlib
import http.client
import io
import re
import shutil
import socket
import subprocess
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ucdcr import registry
from ucdcr.cli.app import app
from ucdcr.errors import ChecksumError, DownloadError, FormatError, ManualDownloadRequired, MissingRawData
from ucdcr.manifest import Manifest, ManifestEntry
from ucdcr.registry import DatasetSpec, ReadOptions, get
from ucdcr.sources import download as dl

CONTENT = b"Topic,File,Sentence Number\n1,10ecbplus,1\n"
SHA = hashlib.sha256(CONTENT).hexdigest()


def manifest(*entries: dict[str, Any], manual_steps: str | None = None) -> dict[str, Any]:
    return {
        "dataset": "ecbplus",
        "licence": "CC BY 3.0",
        "homepage": "",
        "files": list(entries),
        "manual_steps": manual_steps,
    }


def file_entry(**changes: Any) -> dict[str, Any]:
    entry = {
        "path": "a/sentences.csv",
        "url": None,
        "size": len(CONTENT),
        "sha256": SHA,
        "git_blob": None,
        "required": True,
        "note": "",
    }
    entry.update(changes)
    return entry


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    root = tmp_path / "mirror"
    (root / "ECBplus" / "a").mkdir(parents=True)
    (root / "ECBplus" / "a" / "sentences.csv").write_bytes(CONTENT)
    tree = root / "ECBplus" / "t" / "ECB+"
    (tree / "1").mkdir(parents=True)
    (tree / "1" / "1_1ecb.xml").write_text("<Document/>")
    (tree / "2.txt").write_text("x")
    return root


def use(monkeypatch: pytest.MonkeyPatch, data: dict[str, Any] | dict[str, dict[str, Any]], by_id: bool = False) -> None:
    """Every dataset's manifest is ``data`` (``by_id``: ``data[dataset id]``, else ``data["*"]``) for the test."""

    def manifest_of(spec: DatasetSpec) -> Manifest:
        chosen = (data.get(spec.id) or data["*"]) if by_id else data
        return Manifest.parse(chosen)

    monkeypatch.setattr(DatasetSpec, "manifest", property(manifest_of))


def test_copy_from_mirror_then_already_there(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, manifest(file_entry()))
    raw = tmp_path / "raw"
    assert [f.action for f in dl.download("ecbplus", raw, mirror)] == ["copied from mirror"]
    assert (raw / "ECBplus" / "a" / "sentences.csv").read_bytes() == CONTENT
    assert [f.action for f in dl.download("ecbplus", raw, mirror)] == ["already there"]
    status = dl.dataset_status("ecbplus", raw)
    assert status.complete and status.summary() == "1/1 found, 1 verified"


def test_hash_mismatch_names_file_and_both_hashes(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, manifest(file_entry(sha256="0" * 64)))
    raw = tmp_path / "raw"
    with pytest.raises(ChecksumError) as error:
        dl.download("ecbplus", raw, mirror)
    message = str(error.value)
    assert str(raw / "ECBplus" / "a" / "sentences.csv") in message and "0" * 64 in message and SHA in message
    assert not any((raw / "ECBplus" / "a").iterdir())  # nothing half-written stays behind


def test_size_mismatch(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, manifest(file_entry(size=5)))
    with pytest.raises(ChecksumError, match=f"size mismatch: expected 5, got {len(CONTENT)}"):
        dl.download("ecbplus", tmp_path / "raw", mirror)


def test_download_from_url_and_git_blob(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = mirror / "ECBplus" / "a" / "sentences.csv"
    blob = hashlib.sha1(b"blob %d\0" % len(CONTENT) + CONTENT).hexdigest()
    use(monkeypatch, manifest(file_entry(url=source.as_uri(), sha256=None, size=None, git_blob=blob)))
    raw = tmp_path / "raw"
    assert [f.action for f in dl.download("ecbplus", raw)] == ["downloaded"]
    assert dl.git_blob_id(raw / "ECBplus" / "a" / "sentences.csv") == blob


def test_failed_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, manifest(file_entry(url=(tmp_path / "nowhere.csv").as_uri())))
    with pytest.raises(DownloadError, match="download failed"):
        dl.download("ecbplus", tmp_path / "raw")


def tree_entry(mirror: Path, **changes: Any) -> dict[str, Any]:
    folder = mirror / "ECBplus"
    entry = {
        "path": "t/ECB+",
        "kind": "tree",
        "tree_sha256": dl.tree_sha256(folder, folder / "t" / "ECB+"),
        "files": 2,
        "url": None,
        "required": False,
        "one_of": "corpus",
        "note": "",
    }
    entry.update(changes)
    return entry


def test_tree_hash_is_the_manifest_md_shell_pipeline(mirror: Path) -> None:
    folder = mirror / "ECBplus"
    shell = subprocess.run(
        "find t/ECB+ -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum",
        shell=True,
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[0]
    assert dl.tree_sha256(folder, folder / "t" / "ECB+") == shell


def test_tree_and_one_of_group(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zip_entry = file_entry(path="t/ECB+.zip", url=None, sha256=None, size=None, required=False, one_of="corpus")
    use(monkeypatch, manifest(zip_entry, tree_entry(mirror)))
    raw = tmp_path / "raw"
    actions = {f.path: f.action for f in dl.download("ecbplus", raw, mirror)}
    assert actions == {
        "t/ECB+": "copied from mirror",
        "t/ECB+.zip": "skipped (an alternative of group 'corpus' is there)",
    }
    assert (raw / "ECBplus" / "t" / "ECB+" / "1" / "1_1ecb.xml").exists()
    assert dl.dataset_status("ecbplus", raw).complete


def test_tree_mismatch(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, manifest(tree_entry(mirror, tree_sha256="f" * 64)))
    with pytest.raises(ChecksumError, match=r"tree hash mismatch: expected f{64}"):
        dl.download("ecbplus", tmp_path / "raw", mirror)
    assert not (tmp_path / "raw" / "ECBplus" / "t" / "ECB+").exists()


def test_manual_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, manifest(file_entry(), manual_steps="Ask the authors and put sentences.csv into a/."))
    with pytest.raises(ManualDownloadRequired, match="Ask the authors"):
        dl.download("ecbplus", tmp_path / "raw")


def test_cli_download_and_datasets(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, manifest(file_entry()))
    runner = CliRunner()
    raw = tmp_path / "raw"
    result = runner.invoke(app, ["download", "ecbplus", "--raw-dir", str(raw), "--mirror", str(mirror)])
    assert result.exit_code == 0, result.output
    assert f"ecbplus -> {(raw / 'ECBplus').resolve()}: 1 copied from mirror" in result.output  # one line a dataset
    from ucdcr.cli.datasets_cmd import dataset_rows

    rows = {r["id"]: r for r in dataset_rows(raw, tmp_path / "data")}
    assert len(rows) == 12 and rows["ecbplus"]["raw"] == "1/1 found" and rows["ecbplus"]["status"] == "complete"
    assert rows["ecbplus"]["built"] == "no" and rows["ecbplus"]["types"] == "event+entity"
    assert dataset_rows(raw, tmp_path / "data", verify=True)[2]["raw"] == "1/1 found, 1 verified"


def test_shipped_ecbplus_manifest_is_well_formed() -> None:
    data = get("ecbplus").manifest
    assert data.dataset == "ecbplus" and data.licence == "CC BY 3.0"
    tree = next(e for e in data.files if e.is_tree)
    # docs/raw-data.md#verification: 982 files, tree hash 66e0d717...
    assert tree.files == 982 and tree.tree_sha256 and tree.tree_sha256.startswith("66e0d717")
    csv = next(e for e in data.files if e.path.endswith("ECBplus_coreference_sentences.csv"))
    assert csv.size == 23008 and csv.sha256 and csv.sha256.startswith("afee49e0")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"sizes": 3}, "entry 'a/sentences.csv': unknown key sizes"),
        ({"size": "23"}, "entry 'a/sentences.csv': size must be a number of bytes, not '23'"),
        ({"required": "yes"}, "entry 'a/sentences.csv': required must be true or false, not 'yes'"),
        ({"kind": "folder"}, """entry 'a/sentences.csv': kind must be "file" or "tree", not 'folder'"""),
    ],
)
def test_a_malformed_manifest_is_one_clear_error(change: dict[str, Any], said: str) -> None:
    with pytest.raises(FormatError, match=re.escape(f"toy.json: {said}")):
        Manifest.parse(manifest(file_entry(**change)), "toy.json")
    with pytest.raises(FormatError, match=re.escape("toy.json: entry 'a/sentences.csv' is listed twice")):
        Manifest.parse(manifest(file_entry(), file_entry()), "toy.json")
    with pytest.raises(FormatError, match=re.escape("toy.json: the manifest: unknown key file")):
        Manifest.parse({"dataset": "x", "files": [], "file": []}, "toy.json")
    assert Manifest.parse(manifest(file_entry())).files == (
        ManifestEntry("a/sentences.csv", size=len(CONTENT), sha256=SHA, required=True),
    )


def test_failed_required_url_gives_manual_steps_after_trying_the_rest(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = (tmp_path / "nowhere.conll").as_uri()
    here = (mirror / "ECBplus" / "a" / "sentences.csv").as_uri()
    entries = [
        file_entry(path="verbose.conll", url=nowhere, size=None, sha256=None, git_blob="576be59c"),
        file_entry(url=here),  # reachable
        file_entry(path="gold.conll", url=nowhere, required=False),
    ]
    use(monkeypatch, manifest(*entries, manual_steps="Download verbose.conll by hand into <raw-dir>/ECBplus/."))
    seen: list[dl.Fetched] = []
    raw = tmp_path / "raw"
    with pytest.raises(ManualDownloadRequired) as error:
        dl.download("ecbplus", raw, report=seen.append)
    message = str(error.value)
    assert message.startswith(f"ecbplus: raw files missing in {raw / 'ECBplus'}: verbose.conll.")
    assert "What failed:\n  verbose.conll: failed (" in message and "download failed" in message and nowhere in message
    assert "Manual steps:\nDownload verbose.conll by hand" in message and "Licence: CC BY 3.0" in message
    assert f"  verbose.conll (git_blob 576be59c, from {nowhere})" in message
    assert f"  a/sentences.csv (size {len(CONTENT)}, sha256 {SHA}, from {here})" in message
    assert "gold.conll" not in message  # optional: its failure is reported, not required
    actions = {f.path: f.action for f in seen}
    assert actions["a/sentences.csv"] == "downloaded" and actions["gold.conll"].startswith("failed (")
    assert (raw / "ECBplus" / "a" / "sentences.csv").exists()
    assert error.value.lacking == ["verbose.conll"] and error.value.not_in_mirror == []


def test_with_a_mirror_the_network_is_never_asked(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # verbose.conll has a URL but the mirror lacks it: skipped, not fetched (issue 54: `download all --mirror` tried
    # the network for the files the mirror lacks)
    monkeypatch.setattr(dl.urllib.request, "urlopen", _raiser(AssertionError("the network was asked")))
    entries = [file_entry(path="verbose.conll", url="https://x.org/verbose.conll"), file_entry()]
    use(monkeypatch, manifest(*entries))
    seen: list[dl.Fetched] = []
    with pytest.raises(DownloadError) as error:
        dl.download("ecbplus", tmp_path / "raw", mirror, report=seen.append)
    assert {f.path: f.action for f in seen} == {
        "a/sentences.csv": "copied from mirror",
        "verbose.conll": "skipped (not in the mirror)",
    }
    assert error.value.lacking == error.value.not_in_mirror == ["verbose.conll"]


def test_failed_required_url_without_manual_steps_is_a_download_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, manifest(file_entry(url=(tmp_path / "x.csv").as_uri()), file_entry(path="b.csv")))
    with pytest.raises(DownloadError) as error:
        dl.download("ecbplus", tmp_path / "raw")
    assert not isinstance(error.value, ManualDownloadRequired)
    message = str(error.value)  # reported like a dataset with manual steps, without the steps
    assert message.startswith(f"ecbplus: raw files missing in {tmp_path / 'raw' / 'ECBplus'}: a/sentences.csv, b.csv.")
    assert "  b.csv: skipped (no URL; not in the mirror)" in message and "Manual steps" not in message
    assert f"  a/sentences.csv (size {len(CONTENT)}, sha256 {SHA}, from {(tmp_path / 'x.csv').as_uri()})" in message


def test_cli_download_goes_on_after_a_manual_dataset(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manual = manifest(file_entry(path="secret.csv"), manual_steps="Ask the authors for secret.csv.")
    use(monkeypatch, {"gvc": manual | {"dataset": "gvc"}, "ecbplus": manifest(file_entry()), "*": manual}, by_id=True)
    result = CliRunner().invoke(
        app, ["download", "gvc", "ecbplus", "--raw-dir", str(tmp_path / "raw"), "--mirror", str(mirror)]
    )
    # a named dataset the mirror cannot complete: its manual steps, exit 1; the next dataset goes on
    assert result.exit_code == 1
    assert "gvc: manual steps needed" in result.output and "Ask the authors for secret.csv." in result.output
    assert "ecbplus -> " in result.output and ": 1 copied from mirror" in result.output
    assert result.output.rstrip().endswith(
        f"can build: ecbplus; cannot build (not in the mirror {mirror}): gvc (needs secret.csv)"
    )
    # `all` from a mirror: every dataset the mirror allows; what it lacks is no failure (exit 0, no manual steps),
    # the last line says what `ucdcr build` can make now and why the others cannot
    bulk = CliRunner().invoke(app, ["download", "all", "--raw-dir", str(tmp_path / "raw2"), "--mirror", str(mirror)])
    assert bulk.exit_code == 0, bulk.output
    assert "manual steps needed" not in bulk.output and "gvc (needs secret.csv)" in bulk.output


def test_status_fast_and_verified(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = mirror / "ECBplus"
    wrong_hash = file_entry(sha256="0" * 64)
    use(monkeypatch, manifest(wrong_hash, tree_entry(mirror, files=3, required=True, one_of=None)))
    fast = dl.dataset_status("ecbplus", mirror, verify=False)
    # fast: sizes and tree file counts only (the tree has 2 files, the manifest says 3)
    assert [(e.path, e.state) for e in fast.entries] == [("a/sentences.csv", "present"), ("t/ECB+", "incomplete")]
    assert fast.missing == ["t/ECB+"] and fast.state == "partial"
    verified = dl.dataset_status("ecbplus", mirror, verify=True)
    assert verified.entries[0].state == "mismatch" and verified.missing == ["a/sentences.csv", "t/ECB+"]
    (folder / "t" / "ECB+" / "3.txt").write_text("y")
    use(monkeypatch, manifest(file_entry(size=1), tree_entry(mirror, tree_sha256=None, files=3)))
    status = dl.dataset_status("ecbplus", mirror, verify=False)
    assert [e.state for e in status.entries] == ["mismatch", "present"]  # a wrong size is seen without hashing


def test_status_states(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    two = [file_entry(), file_entry(path="b.csv")]
    use(monkeypatch, manifest(*two))
    assert dl.dataset_status("ecbplus", tmp_path).state == "missing"
    assert dl.dataset_status("ecbplus", mirror).state == "partial"
    use(monkeypatch, manifest(*two, manual_steps="by hand"))
    assert dl.dataset_status("ecbplus", mirror).state == "manual"
    use(
        monkeypatch,
        manifest(two[0], tree_entry(mirror), file_entry(path="t/ECB+.zip", required=False, one_of="corpus")),
    )
    status = dl.dataset_status("ecbplus", mirror)
    assert status.state == "complete" and status.missing == []
    assert dl.dataset_status("ecbplus", tmp_path).missing == ["a/sentences.csv", "t/ECB+ | t/ECB+.zip"]


def test_require_raw_files_gives_the_manual_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use(
        monkeypatch,
        manifest(
            file_entry(url="https://example.org/s.csv"),
            file_entry(path="b.csv", alternatives=["old/b.csv"]),
            file_entry(path="texts", unless_option="partial"),
            file_entry(path="topic_1.csv", part=True),
            file_entry(path="t/ECB+", required=False, one_of="corpus"),
            file_entry(path="t/ECB+.zip", required=False, one_of="corpus"),
            manual_steps="Ask the authors.",
        ),
    )
    with pytest.raises(MissingRawData) as error:
        registry.require_raw_files("ecbplus", tmp_path)
    message = str(error.value)
    # every missing required entry at once (a part is left to the reader, which checks it against the split file)
    assert f"raw files missing in {tmp_path}: a/sentences.csv, b.csv, texts, t/ECB+ | t/ECB+.zip." in message
    assert "Ask the authors." in message and "from https://example.org/s.csv" in message
    assert "`ucdcr download ecbplus`" in message
    for path in ("a/sentences.csv", "old/b.csv", "t/ECB+.zip"):  # an alternative stands in for its entry
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    assert registry.missing_raw_files("ecbplus", tmp_path) == ["texts"]
    registry.require_raw_files("ecbplus", tmp_path, ReadOptions(partial=True))  # the option supplies "texts"
    assert registry.missing_raw_files("ecbplus", tmp_path / "nowhere") == ["the whole folder"]


def test_build_without_raw_folder_gives_the_manifest_steps(tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    with pytest.raises(MissingRawData) as error:
        build_dataset("gvc", raw_dir=tmp_path, data_dir=tmp_path / "data", progress=False)
    message = str(error.value)
    # the shipped gvc manifest: verbose.conll's git blob id (docs/datasets/gvc.md#source) and its manual steps
    assert f"gvc: raw files missing in {tmp_path / 'GVC'}: the whole folder." in message
    assert "verbose.conll (git_blob 576be59c74099813af181d58e54e74709cb0ab35" in message
    assert "Manual steps:" in message and "Licence: CC BY 4.0" in message


def test_moved_helpers_have_one_home() -> None:
    from ucdcr.datasets import gvc

    # the raw files are checked centrally (DatasetSpec.read, build_dataset), not by the readers
    assert not hasattr(gvc, "manual_steps_message") and not hasattr(gvc, "require_raw_files")


def test_incomplete_tree_needs_the_manual_steps(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the mirror's tree has 2 files; the manifest expects 50 (like NewsWCL50r's json_text holding only its README)
    entry = tree_entry(mirror, tree_sha256=None, files=50, required=True, one_of=None)
    use(monkeypatch, manifest(entry, manual_steps="Put the 50 texts into t/ECB+."))
    with pytest.raises(ManualDownloadRequired) as error:
        dl.download("ecbplus", mirror)
    assert "t/ECB+: incomplete (2 of 50 files; add the rest by hand)" in str(error.value)


# --- every way a fetch can fail is reported like the others, and the other entries / datasets go on -------------


def _raiser(exc: BaseException) -> Any:
    def urlopen(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return urlopen


class _CutShort(io.BytesIO):
    """A response whose connection breaks after a few bytes."""

    def read(self, *args: Any) -> bytes:
        raise http.client.IncompleteRead(b"Topic", 36)


FAILURES = {
    "offline": (urllib.error.URLError(socket.gaierror(-2, "Name or service not known")), "Name or service not known"),
    "http": (urllib.error.HTTPError("https://x.org/f", 404, "Not Found", {}, None), "HTTP Error 404: Not Found"),  # type: ignore[arg-type]
    "timeout": (TimeoutError("timed out"), "TimeoutError: timed out"),
    "reset": (ConnectionResetError(104, "Connection reset by peer"), "Connection reset by peer"),
}


@pytest.mark.parametrize("failure", FAILURES, ids=list(FAILURES))
def test_a_failed_fetch_is_an_entry_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    exc, said = FAILURES[failure]
    monkeypatch.setattr(dl.urllib.request, "urlopen", _raiser(exc))
    use(monkeypatch, manifest(file_entry(url="https://x.org/f"), file_entry(path="b.csv", url="https://x.org/b")))
    seen: list[dl.Fetched] = []
    with pytest.raises(DownloadError) as error:
        dl.download("ecbplus", tmp_path / "raw", report=seen.append)
    assert [f.path for f in seen] == ["a/sentences.csv", "b.csv"]  # the second entry was still tried
    assert all(f.action.startswith("failed (download failed (https://x.org/") and said in f.action for f in seen)
    assert "What failed:" in str(error.value) and said in str(error.value)


def test_a_connection_cut_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dl.urllib.request, "urlopen", lambda *a, **k: _CutShort())
    use(monkeypatch, manifest(file_entry(url="https://x.org/f")))
    with pytest.raises(DownloadError, match=r"IncompleteRead: IncompleteRead\(5 bytes read, 36 more expected\)"):
        dl.download("ecbplus", tmp_path / "raw")
    assert not any((tmp_path / "raw" / "ECBplus" / "a").iterdir())  # no partial file left


def test_an_unreachable_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a local port nobody listens on: the connection is refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/ECB+.zip"
    use(monkeypatch, manifest(file_entry(url=url)))
    with pytest.raises(DownloadError, match=f"{re.escape(url)}: .*Connection refused"):
        dl.download("ecbplus", tmp_path / "raw")


def test_archive_fetch_failure_is_reported(tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the tree entry comes from a zip URL (like ECB+.zip and NP4E's mmax2); offline, that fetch fails
    monkeypatch.setattr(dl.urllib.request, "urlopen", _raiser(urllib.error.URLError("no network")))
    use(monkeypatch, manifest(tree_entry(mirror, url="https://x.org/ECB+.zip", required=True, one_of=None)))
    with pytest.raises(DownloadError) as error:
        dl.download("ecbplus", tmp_path / "raw")
    assert "  t/ECB+: failed (https://x.org/ECB+.zip: URLError: no network)" in str(error.value)
    assert [p.name for p in (tmp_path / "raw" / "ECBplus").iterdir()] == []  # the staging folder is gone


@pytest.mark.parametrize("content", [b"not a zip at all", b"truncated"], ids=["not-a-zip", "truncated"])
def test_a_broken_archive_is_reported(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    archive = tmp_path / "ECB+.zip"
    if content == b"truncated":
        shutil.make_archive(str(tmp_path / "ECB+"), "zip", mirror / "ECBplus" / "t")
        content = archive.read_bytes()[:-30]
    archive.write_bytes(content)
    use(monkeypatch, manifest(tree_entry(mirror, url=archive.as_uri(), required=True, one_of=None)))
    with pytest.raises(DownloadError, match=f"{re.escape(archive.as_uri())}: not a readable zip archive"):
        dl.download("ecbplus", tmp_path / "raw")


def test_an_unwritable_raw_dir_is_an_entry_outcome(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "ECBplus").write_text("a file where the dataset folder belongs")
    use(monkeypatch, manifest(file_entry()))
    with pytest.raises(DownloadError, match=r"a/sentences.csv: failed \(.*(FileExistsError|NotADirectoryError)"):
        dl.download("ecbplus", tmp_path / "raw", mirror)


def test_cli_download_all_goes_on_after_a_network_failure(
    tmp_path: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_urlopen = dl.urllib.request.urlopen
    monkeypatch.setattr(
        dl.urllib.request,
        "urlopen",
        lambda url, timeout=0: (
            real_urlopen(url) if url.startswith("file:") else _raiser(urllib.error.URLError("no network"))(url)
        ),
    )
    offline = manifest(file_entry(path="remote.csv", url="https://x.org/remote.csv"), manual_steps=None)
    local = manifest(file_entry(url=(mirror / "ECBplus" / "a" / "sentences.csv").as_uri()))
    use(monkeypatch, {"ecbplus": local, "np4e": offline | {"dataset": "np4e"}, "*": offline}, by_id=True)
    raw = tmp_path / "raw"
    result = CliRunner().invoke(app, ["download", "np4e", "ecbplus", "--raw-dir", str(raw)])
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)  # an exit code, not an exception
    assert (
        "np4e: remote.csv: failed (download failed (https://x.org/remote.csv: URLError: no network))" in result.output
    )
    assert "np4e: not fetched\nnp4e: raw files missing in" in result.output  # with the expected files
    assert result.output.count("failed (download failed (https://x.org/remote.csv") == 1  # named once, as it happened
    assert f"Put the files listed above under {raw / 'NP4E'} by hand, or give --mirror DIR" in result.output
    assert "`ucdcr download np4e` fetches" not in result.output  # not the command just run
    assert f"ecbplus -> {(raw / 'ECBplus').resolve()}: 1 downloaded" in result.output  # the next dataset went on
    assert result.output.rstrip().endswith(
        "can build: ecbplus; cannot build: np4e (needs remote.csv); download failed: np4e"
    )
