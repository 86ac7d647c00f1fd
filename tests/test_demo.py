"""`ucdcr demo`: the README's first command builds the embedded ECB+ sample, prints the tables, writes the report.

Expected counts come from parsing the sample's own files here (zip + lxml + csv), not from the ECB+ reader: the
documents with a validated sentence and the anchored markables that touch a validated sentence.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from lxml import etree
from tests.conftest import REPO_ROOT
from typer.testing import CliRunner

import ucdcr
from ucdcr.cli.app import app
from ucdcr.demo import SAMPLE_NAME, sample_dir

SAMPLE = sample_dir() / "ECBplus"
ZIP = SAMPLE / "ECB+_LREC2014" / "ECB+.zip"
CSV = SAMPLE / "ECB+_LREC2014" / "ECBplus_coreference_sentences.csv"
SPLIT_FILE = SAMPLE / "ucdcr-meta" / "train_val_test_split.json"
SUBTOPIC_FILE = SAMPLE / "ucdcr-meta" / "subtopic_names.json"
FILE_NAME = re.compile(r"^(\d+)_(\d+)(ecb|ecbplus)\.xml$")
README_FIRST_COMMAND = "pip install -e . && ucdcr demo"
TEST_COMMAND = (  # every extra, the dependency check, lint, types, then the unit and the integration lane
    "pip install -e '.[all,test]' && deptry src && ruff check . && ruff format --check . && mypy"
    ' && pytest -m "not integration" -x -n 2 --durations=20 && pytest -m integration --durations=20'
)


@dataclass
class Expected:
    """What the sample holds, counted from its files."""

    documents: dict[str, int] = field(default_factory=Counter)  # split -> documents with a validated sentence
    subtopics: set[tuple[str, str]] = field(default_factory=set)  # (topic, ecb|ecbplus) of those documents
    doc_keys: set[str] = field(default_factory=set)  # topic/subtopic/doc of those documents
    mentions: dict[tuple[str, str], int] = field(default_factory=Counter)  # (split, event|entity) -> mentions
    mention_ids: set[tuple[str, str]] = field(default_factory=set)  # (doc key, m_id)
    cross_subtopic_instances: int = 0  # instance ids with mentions in both subtopics of a topic

    @property
    def mention_total(self) -> int:
        return sum(self.mentions.values())


def _expected() -> Expected:
    validated: dict[tuple[str, str], set[int]] = {}
    with CSV.open(encoding="utf-8", newline="") as handle:
        for topic, file, sentence in list(csv.reader(handle))[1:]:
            validated.setdefault((topic, file), set()).add(int(sentence))
    split_of = {str(topic): split for split, topics in json.loads(SPLIT_FILE.read_text()).items() for topic in topics}
    expected = Expected()
    subtopics_of_instance: dict[tuple[str, str], set[str]] = {}
    with zipfile.ZipFile(ZIP) as bundle:
        for member in bundle.namelist():
            topic, number, kind = FILE_NAME.match(Path(member).name).groups()  # type: ignore[union-attr]
            keep = validated.get((topic, f"{number}{kind}"))
            if not keep:
                continue
            split = split_of[topic]
            root = etree.fromstring(bundle.read(member))
            sentence = {token.get("t_id"): int(token.get("sentence")) for token in root.iter("token")}
            expected.documents[split] += 1
            expected.subtopics.add((topic, kind))
            expected.doc_keys.add(f"{topic}/{topic}{kind}/{number}")
            markables = {element.get("m_id"): element for element in root.find("Markables")}
            instance_of = {}
            for relation in root.find("Relations"):
                target = relation.find("target")
                if target is not None:
                    for source in relation.findall("source"):
                        instance_of[source.get("m_id")] = markables[target.get("m_id")].get("instance_id")
            for m_id, element in markables.items():
                anchors = [anchor.get("t_id") for anchor in element.findall("token_anchor")]
                if not anchors or not {sentence[t_id] for t_id in anchors} & keep:
                    continue
                is_event = element.tag.startswith(("ACTION", "NEG"))
                expected.mentions[(split, "event" if is_event else "entity")] += 1
                expected.mention_ids.add((f"{topic}/{topic}{kind}/{number}", m_id))
                if instance_of.get(m_id):
                    subtopics_of_instance.setdefault((topic, instance_of[m_id]), set()).add(kind)
    expected.cross_subtopic_instances = sum(1 for kinds in subtopics_of_instance.values() if len(kinds) > 1)
    return expected


@pytest.fixture(scope="module")
def expected() -> Expected:
    return _expected()


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`ucdcr demo --out DIR --format md` in process, with every network connection refused."""
    out = tmp_path_factory.mktemp("demo") / "out"

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the demo tried to open a network connection: {args}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket.socket, "connect_ex", refuse)
        result = CliRunner().invoke(app, ["demo", "--out", str(out), "--format", "md", "--no-embed"])
    assert result.exit_code == 0, result.output
    return out, result.stdout


def test_the_sample_covers_every_split_and_crosses_subtopics(expected: Expected) -> None:
    assert set(expected.documents) == {"train", "val", "test"}
    assert all(expected.mentions[(split, kind)] > 0 for split in expected.documents for kind in ("event", "entity"))
    # chains across the ecb / ecbplus subtopics of a topic: the baseline then also evaluates per topic, as on ECB+
    assert expected.cross_subtopic_instances > 0


def test_demo_writes_the_unified_files_with_the_sample_counts(demo_run: tuple[Path, str], expected: Expected) -> None:
    out, _ = demo_run
    folder = out / "data" / SAMPLE_NAME
    report = json.loads((folder / "build_report.json").read_text())
    dropped = {(d["doc_key"], d["source_id"]) for d in report["dropped"]}
    assert dropped <= expected.mention_ids  # a drop is listed (with its reason) and is one of the sample's mentions
    assert all(d["reason"] for d in report["dropped"])
    written = Counter()
    for split in ("train", "val", "test"):
        for kind in ("event", "entity"):
            written[(split, kind)] = len(json.loads((folder / split / f"{kind}_mentions.json").read_text()))
    assert sum(written.values()) == expected.mention_total - len(dropped)
    if not dropped:
        assert written == expected.mentions
    mentions = pq.read_table(folder / "all_mentions.parquet")
    assert mentions.num_rows == sum(written.values())
    documents = pq.read_table(folder / "all_documents.parquet")
    assert set(documents["topic/subtopic_name/doc"].to_pylist()) == expected.doc_keys
    assert len(expected.doc_keys) == sum(expected.documents.values())
    for split, count in expected.documents.items():
        assert report["splits"][split]["documents"] == count
    assert ucdcr.load(folder).num_rows == mentions.num_rows
    assert ucdcr.sample_dir() == sample_dir()


def test_demo_prints_the_tables_and_writes_the_report(demo_run: tuple[Path, str], expected: Expected) -> None:
    out, stdout = demo_run
    for title in ("Table 2: general statistics", "Table 5: lexical ambiguity", "Table 6: same-head-lemma baseline"):
        assert f"### {title}" in stdout
    header, _, row = _markdown_rows(stdout, "Table 2: general statistics")[:3]
    table2 = dict(zip(header, row, strict=True))
    assert table2["Dataset"] == SAMPLE_NAME
    topics = {topic for topic, _ in expected.subtopics}
    assert [table2[column] for column in ("Topics", "Subtopics", "Docs")] == [
        str(len(topics)),
        str(len(expected.subtopics)),
        str(sum(expected.documents.values())),
    ]
    table6 = _markdown_rows(stdout, "Table 6: same-head-lemma baseline, subtopic and topic level (F1)")
    assert [row[1] for row in table6[2:]] == ["subtopic", "topic"]  # cross-subtopic chains -> topic level too
    index = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert "Table 2: general statistics" in index and SAMPLE_NAME in index
    # the figure --no-embed leaves out says so
    assert "Not drawn: turned off by --no-embed" in (out / "report" / "report.md").read_text(encoding="utf-8")
    assert (out / "report" / "figures" / "histogram_pd.png").stat().st_size > 0


def _markdown_rows(text: str, title: str) -> list[list[str]]:
    lines = text.split(f"### {title}\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def test_readme_first_block_is_install_plus_demo_then_the_ci_test_command() -> None:
    block = re.search(r"```bash\n(.*?)```", (REPO_ROOT / "README.md").read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if not line.startswith("#")]  # a comment line: advice
    commands = [line.split("  #", 1)[0].strip() for line in lines]
    assert commands == [README_FIRST_COMMAND, TEST_COMMAND]
    assert (REPO_ROOT / ".ci" / "run").read_text().rstrip().splitlines()[-1] == commands[1]


def test_readme_demo_command_as_a_subprocess(tmp_path: Path) -> None:
    """The README's `ucdcr demo` (after the install), run as `python -m ucdcr` in a fresh interpreter."""
    arguments = shlex.split(README_FIRST_COMMAND.split("&&", 1)[1])
    assert arguments[0] == "ucdcr"
    env = dict(os.environ, COLUMNS="200", PYTHONPATH=str(Path(ucdcr.__file__).parents[1]))
    completed = subprocess.run(
        [sys.executable, "-m", "ucdcr", *arguments[1:], "--out", "demo-out", "--no-embed"],
        cwd=tmp_path,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert "Table 4: splits" in completed.stdout and "Table 7: same-head-lemma baseline" in completed.stdout
    assert "Traceback" not in completed.stdout + completed.stderr
    out = (tmp_path / "demo-out").resolve()
    for path in (out / "data" / SAMPLE_NAME / "all_mentions.parquet", out / "report" / "index.html"):
        assert path.is_file()
        assert str(path.parent) in completed.stdout  # the absolute paths it wrote are printed
    assert f"ucdcr stats --data-dir {out / 'data'}" in completed.stdout  # and the next commands


def test_demo_output_that_is_a_file_is_one_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("")
    result = CliRunner().invoke(app, ["demo", "--out", str(target)])
    assert result.exit_code == 2
    assert str(target) in result.output and "is a file" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def _topics_of(split: str) -> list[str]:
    return [str(topic) for topic in json.loads(SPLIT_FILE.read_text())[split]]


def test_sample_readme_lists_the_documents_of_the_zip() -> None:
    """The sample's README table (split | topic | subtopic | documents | name) matches the zip and the JSON files."""
    rows = re.findall(r"^\| (train|val|test) \| (\d+) \| (\w+) \| (\d+) \| (.+?) \|$", _sample_readme(), re.MULTILINE)
    with zipfile.ZipFile(ZIP) as bundle:
        counts = Counter(f"{m.group(1)}{m.group(3)}" for m in map(FILE_NAME.match, map(_base, bundle.namelist())) if m)
    names = json.loads(SUBTOPIC_FILE.read_text(encoding="utf-8"))
    assert {subtopic: int(n) for _, _, subtopic, n, _ in rows} == dict(counts)
    assert {subtopic: name.strip() for _, _, subtopic, _, name in rows} == {k: v.strip() for k, v in names.items()}
    assert {topic: split for split, topic, *_ in rows} == {
        t: s for s in ("train", "val", "test") for t in _topics_of(s)
    }


def _base(member: str) -> str:
    return member.rsplit("/", 1)[-1]


def _sample_readme() -> str:
    return (sample_dir() / "README.md").read_text(encoding="utf-8")


def test_wheel_ships_the_sample(tmp_path: Path) -> None:
    """A wheel built from the package (pip wheel, no network) contains every sample file."""
    if int(metadata.version("setuptools").split(".")[0]) < 68:
        pytest.skip("setuptools >= 68 (pyproject's build requirement) is needed to build the wheel offline")
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(REPO_ROOT / "pyproject.toml", source)
    shutil.copy(REPO_ROOT / "README.md", source)
    shutil.copytree(REPO_ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), "."],
        cwd=source,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    (wheel,) = tmp_path.glob("ucdcr-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    package = REPO_ROOT / "src" / "ucdcr"
    sample_files = [p for p in (package / "data" / "sample").rglob("*") if p.is_file()]
    assert len(sample_files) >= 6
    assert {p.relative_to(package.parent).as_posix() for p in sample_files} <= shipped


@pytest.mark.integration
def test_sample_files_are_copies_of_the_originals(raw_dir: Path) -> None:
    """Every XML in the zip is byte-identical to the raw ECB+ file, and the zip holds all files of its topics; CSV
    lines, split topics, subtopic names and licence files are taken unchanged from the raw folder."""
    original = raw_dir / "ECBplus"
    tree = original / "ECB+_LREC2014" / "ECB+"
    with zipfile.ZipFile(ZIP) as bundle:
        members = {name: bundle.read(name) for name in bundle.namelist()}
    topics = {member.split("/")[1] for member in members}
    on_disk = {f"ECB+/{p.parent.name}/{p.name}" for topic in topics for p in (tree / topic).glob("*.xml")}
    assert set(members) == on_disk
    for member, data in members.items():
        assert data == (tree / member.removeprefix("ECB+/")).read_bytes(), member
    original_lines = (original / "ECB+_LREC2014" / CSV.name).read_bytes().splitlines()
    sample_lines = CSV.read_bytes().splitlines()
    assert sample_lines[0] == original_lines[0]
    assert sample_lines[1:] == [line for line in original_lines[1:] if line.split(b",")[0].decode() in topics]
    original_split = json.loads((original / "ucdcr-meta" / SPLIT_FILE.name).read_text())
    for split, sample_topics in json.loads(SPLIT_FILE.read_text()).items():
        assert set(sample_topics) <= set(original_split[split])
    assert {str(t) for ts in json.loads(SPLIT_FILE.read_text()).values() for t in ts} == topics
    names = json.loads((original / "ucdcr-meta" / SUBTOPIC_FILE.name).read_text(encoding="utf-8"))
    sample_names = json.loads(SUBTOPIC_FILE.read_text(encoding="utf-8"))
    assert sample_names == {key: names[key] for key in names if re.match(r"\d+", key).group() in topics}  # type: ignore[union-attr]
    for name in ("LICENSEDATA.TXT", "COPYING-CC.TXT"):
        assert (SAMPLE / name).read_bytes() == (original / name).read_bytes()


def test_sample_stays_small() -> None:
    """The brief for the sample: well under 1 MB in the repo and the wheel."""
    assert sum(p.stat().st_size for p in sample_dir().rglob("*") if p.is_file()) < 500_000
