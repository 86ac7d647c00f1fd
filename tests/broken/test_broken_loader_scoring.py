"""Broken and edge-case inputs of the loader, the scorer and the evaluation: one clear error, never a traceback.

Each case writes its broken input into a tmp dir (starting from a valid tiny dataset, tests/fixtures/tiny_dataset.py,
or the README's example CoNLL files) and expects exactly one error naming the broken file:

- Python API (``ucdcr.load``, ``ucdcr.scoring.scores.score_files``, ``read_predictions`` + ``evaluation_results``):
  one :class:`~ucdcr.errors.UcdcrError` whose message names the file;
- CLI (``ucdcr stats`` / ``ucdcr export conll`` on the data dir, ``ucdcr score``, ``ucdcr evaluate``), in process
  with typer's CliRunner: exit code 2, a single ``error:`` line on stderr naming the file, no traceback;
- three of them also as real subprocesses (``python -m ucdcr ...``).

Categories: encoding (non-UTF-8, UTF-16/32 with or without byte-order mark, binary), json-shape (empty, truncated,
an object where a list belongs, a list where an object belongs), value-type (a string, null, a float, a bool or a
number where another type belongs, a string where a list belongs, missing fields, out-of-range integers, text
Arrow cannot store), parquet (empty, truncated, wrong column type, nulls, unknown split), data-dir (a file, missing),
conll (no documents, unclosed documents, bad brackets, token counts), predictions (repeated ids, missing or
non-scalar clusters, unrecognised files, CoNLL responses without our columns, incomplete predictions).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.fixtures import tiny_dataset as tiny
from typer.testing import CliRunner, Result

import ucdcr
from ucdcr.analysis.evaluate import evaluate_folders, read_predictions
from ucdcr.cli.app import app
from ucdcr.errors import UcdcrError
from ucdcr.scoring.scores import score_files
from ucdcr.sources.discover import discover_datasets

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS.parent / "examples"
runner = CliRunner()


def assert_one_error_line(result: Result, names: str) -> str:
    """Exit code 2, exactly one non-empty stderr line ``error: ...`` containing ``names``, and no traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and names in lines[0], lines[0]
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data dir holding the tiny dataset as ``np4e`` (JSON per split and kind, both Parquet files)."""
    tiny.write_tiny_dataset(tmp_path / "data" / "np4e")
    return tmp_path / "data"


# --- the loader: ucdcr.load and the commands reading a --data-dir ----------------------------------------------

Mutation = Callable[[Path], Path]  # changes the dataset folder, returns the file (or folder) the error must name


def _rewrite(relative: str, content: bytes | Callable[[bytes], bytes]) -> Mutation:
    def mutate(folder: Path) -> Path:
        path = folder / relative
        path.write_bytes(content(path.read_bytes()) if callable(content) else content)
        return path

    return mutate


def _record(field: str, value: object, relative: str = "test/event_mentions.json", delete: bool = False) -> Mutation:
    def mutate(folder: Path) -> Path:
        path = folder / relative
        records = json.loads(path.read_text())
        if delete:
            del records[0][field]
        else:
            records[0][field] = value
        path.write_text(json.dumps(records))
        return path

    return mutate


def _parquet_only(change: Callable[[pa.Table], pa.Table] | None = None, raw: bytes | None = None) -> Mutation:
    """Remove the JSON files (the loader then reads all_mentions.parquet) and break the parquet."""

    def mutate(folder: Path) -> Path:
        for split in ("train", "val", "test"):
            shutil.rmtree(folder / split)
        path = folder / "all_mentions.parquet"
        if raw is not None:
            path.write_bytes(raw)
        elif change is not None:
            pq.write_table(change(pq.read_table(path)), path)
        return path

    return mutate


def _documents(change: Callable[[pa.Table], pa.Table] | None = None, raw: Callable[[bytes], bytes] | None = None):
    def mutate(folder: Path) -> Path:
        path = folder / "all_documents.parquet"
        if raw is not None:
            path.write_bytes(raw(path.read_bytes()))
        elif change is not None:
            pq.write_table(change(pq.read_table(path)), path)
        return path

    return mutate


def _set_column(name: str, values: list) -> Callable[[pa.Table], pa.Table]:
    return lambda table: table.set_column(table.column_names.index(name), name, pa.array(values))


def _latin1(data: bytes) -> bytes:
    return data.decode().replace('"fire"', '"f\u00eate"', 1).encode("latin-1")


@dataclass(frozen=True)
class LoaderCase:
    id: str
    category: str
    mutate: Mutation
    problem: str  # part of the message
    command: str = "stats"  # the CLI command that reads the broken part
    kind: str = "mentions"  # what ucdcr.load reads


MENTIONS_JSON = "test/event_mentions.json"
N_TEST_EVENTS = 3  # FIRE x3 in tiny_dataset's test split
LOADER_CASES = [
    LoaderCase("latin-1", "encoding", _rewrite(MENTIONS_JSON, _latin1), "not UTF-8 text: byte 0xea"),
    LoaderCase("utf-16-bom", "encoding", _rewrite(MENTIONS_JSON, lambda d: d.decode().encode("utf-16")), "UTF-16 text"),
    LoaderCase("utf-16-le", "encoding", _rewrite(MENTIONS_JSON, lambda d: d.decode().encode("utf-16-le")), "NUL byte"),
    LoaderCase("utf-32", "encoding", _rewrite(MENTIONS_JSON, lambda d: d.decode().encode("utf-32")), "UTF-32 text"),
    LoaderCase("binary", "encoding", _rewrite(MENTIONS_JSON, random.Random(1).randbytes(300)), "not UTF-8 text"),
    LoaderCase("empty", "json-shape", _rewrite(MENTIONS_JSON, b""), "the file is empty"),
    LoaderCase("truncated", "json-shape", _rewrite(MENTIONS_JSON, lambda d: d[: len(d) // 2]), "invalid JSON"),
    LoaderCase("object", "json-shape", _rewrite(MENTIONS_JSON, b'{"0": {}}'), "expected a JSON list of mention"),
    LoaderCase("list-of-lists", "json-shape", _rewrite(MENTIONS_JSON, b"[[1]]"), "record 0 must be a JSON object"),
    LoaderCase("number", "json-shape", _rewrite(MENTIONS_JSON, b"3"), "got the integer 3"),
    LoaderCase("topic-string", "value-type", _record("topic_id", 0), "field 'topic_id' must be a string"),
    LoaderCase("chain-null", "value-type", _record("coref_chain", None), "field 'coref_chain' is missing or null"),
    LoaderCase("chain-missing", "value-type", _record("coref_chain", None, delete=True), "field 'coref_chain' is miss"),
    LoaderCase("tokens-string", "value-type", _record("tokens_text", "fire"), "field 'tokens_text' must be a list"),
    LoaderCase("context-items", "value-type", _record("mention_context", ["a", 1]), "but item 1 is the integer 1"),
    LoaderCase("singleton-int", "value-type", _record("is_singleton", 0), "field 'is_singleton' must be a boolean"),
    LoaderCase("singleton-text", "value-type", _record("is_singleton", "no"), "field 'is_singleton' must be a boolean"),
    LoaderCase("sent-first", "value-type", _record("sent_id", "first"), "'sent_id' must be an integer", "export"),
    LoaderCase("sent-null", "value-type", _record("sent_id", None), "'sent_id' is missing or null", "export"),
    LoaderCase("sent-float", "value-type", _record("sent_id", 0.5), "'sent_id' must be an integer", "export"),
    LoaderCase(
        "numbers-object", "value-type", _record("tokens_number", {"a": 1}), "'tokens_number' must be a list", "export"
    ),
    LoaderCase("id-number", "value-type", _record("mention_id", 8), "field 'mention_id' must be a string", "export"),
    LoaderCase("id-list", "value-type", _record("mention_id", ["TINY_08"]), "'mention_id' must be a string", "export"),
    LoaderCase("sent-huge", "value-type", _record("sent_id", 10**30), "field 'sent_id'", "export"),
    LoaderCase(
        "sent-nan",
        "value-type",
        _rewrite(MENTIONS_JSON, lambda d: d.replace(b'"sent_id": 0', b'"sent_id": NaN', 1)),
        "got the number nan",
        "export",
    ),
    LoaderCase(
        "lone-surrogate",
        "value-type",
        _rewrite(MENTIONS_JSON, lambda d: d.replace(b'"coref_chain": "FIRE"', b'"coref_chain": "\\ud800"', 1)),
        "field 'coref_chain' cannot be stored",
    ),
    LoaderCase("mentions-empty", "parquet", _parquet_only(raw=b""), "not a readable Parquet file"),
    LoaderCase("mentions-garbage", "parquet", _parquet_only(raw=b"PAR1 not really PAR1"), "not a readable Parquet"),
    LoaderCase(
        "mentions-chain-int",
        "parquet",
        _parquet_only(_set_column("coref_chain", list(range(13)))),
        "row 0: field 'coref_chain' must be a string",
    ),
    LoaderCase(
        "mentions-null-topic",
        "parquet",
        _parquet_only(_set_column("topic_id", [None] + ["0"] * 12)),
        "row 0: field 'topic_id' is missing or null",
    ),
    LoaderCase(
        "mentions-dev-split",
        "parquet",
        _parquet_only(_set_column("split", ["dev"] * 13)),
        "row 0: split 'dev' is not one of train, val, test",
    ),
    LoaderCase(
        "mentions-repr-list",
        "parquet",
        _parquet_only(_set_column("tokens_text", ["['Obama'"] + ["['x']"] * 12)),
        "row 0: field 'tokens_text' holds",
    ),
    LoaderCase("documents-empty", "parquet", _documents(raw=lambda d: b""), "not a readable Parquet", kind="documents"),
    LoaderCase(
        "documents-truncated", "parquet", _documents(raw=lambda d: d[:-40]), "not a readable Parquet", kind="documents"
    ),
    LoaderCase(
        "documents-key-int",
        "parquet",
        _documents(_set_column("topic/subtopic_name/doc", list(range(43)))),
        "column 'topic/subtopic_name/doc' holds int64 values, expected string",
        kind="documents",
    ),
]


def _load(case: LoaderCase, data_dir: Path) -> None:
    if case.kind == "documents":
        ucdcr.load("np4e", kind="documents", data_dir=data_dir)
    else:
        ucdcr.load("np4e", data_dir=data_dir)


@pytest.mark.parametrize("case", LOADER_CASES, ids=lambda case: f"{case.category}-{case.id}")
def test_loader_api_raises_one_error_naming_the_file(case: LoaderCase, data_dir: Path) -> None:
    broken = case.mutate(data_dir / "np4e")
    with pytest.raises(UcdcrError) as caught:
        _load(case, data_dir)
    assert str(broken) in str(caught.value) and case.problem in str(caught.value), str(caught.value)


@pytest.mark.parametrize("case", LOADER_CASES, ids=lambda case: f"{case.category}-{case.id}")
def test_loader_cli_prints_one_error_line_naming_the_file(case: LoaderCase, data_dir: Path, tmp_path: Path) -> None:
    broken = case.mutate(data_dir / "np4e")
    if case.command == "stats":
        args = ["stats", "--data-dir", str(data_dir)]
    else:
        args = ["export", "conll", "np4e", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")]
    line = assert_one_error_line(runner.invoke(app, args), str(broken))
    assert case.problem in line


def test_a_data_dir_that_is_a_file_or_missing(tmp_path: Path) -> None:
    a_file = tmp_path / "data"
    a_file.write_text("I am a file")
    with pytest.raises(UcdcrError, match=f"data dir {a_file} is a file, not a folder"):
        ucdcr.load("np4e", data_dir=a_file)
    with pytest.raises(UcdcrError, match=f"data dir {a_file} is a file, not a folder"):
        ucdcr.list_datasets(a_file, built_only=True)
    with pytest.raises(UcdcrError, match=f"{a_file} is a file, not a dataset folder"):
        ucdcr.load(a_file)
    for command in ("stats", "diversity", "baseline"):
        line = assert_one_error_line(runner.invoke(app, [command, "--data-dir", str(a_file)]), str(a_file))
        assert line.endswith("is a file, not a folder")
    missing = tmp_path / "nowhere"
    line = assert_one_error_line(runner.invoke(app, ["stats", "--data-dir", str(missing)]), str(missing))
    assert line.endswith("does not exist")
    with pytest.raises(UcdcrError, match=f"dataset 'np4e' is not built in {missing}"):
        ucdcr.load("np4e", data_dir=missing)


def test_staging_and_old_folders_are_never_listed(data_dir: Path) -> None:
    # what an interrupted or concurrent build leaves beside the dataset: hidden ".<dataset>.<something>" folders
    tiny.write_tiny_dataset(data_dir / ".np4e.building-k2j3")
    tiny.write_tiny_dataset(data_dir / ".np4e.old-4242")
    tiny.write_tiny_dataset(data_dir / ".ecbplus.building-x")
    assert list(discover_datasets(data_dir)) == ["np4e"]
    assert ucdcr.list_datasets(data_dir, built_only=True) == ["np4e"]
    result = runner.invoke(app, ["stats", "--data-dir", str(data_dir), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [row["Dataset"] for row in json.loads(result.stdout)[0]["rows"]] == ["np4e"]
    with pytest.raises(UcdcrError, match="dataset 'ecbplus' is not built"):
        ucdcr.load("ecbplus", data_dir=data_dir)


# --- the scorer: ucdcr score KEY RESPONSE ------------------------------------------------------------------------

KEY_TEXT = (EXAMPLES / "key.conll").read_text()


@dataclass(frozen=True)
class ScoreCase:
    id: str
    category: str
    content: bytes
    problem: str
    side: str = "response"  # which file is broken; the other is examples/key.conll or examples/response.conll


SCORE_CASES = [
    ScoreCase("empty", "conll", b"", "the file is empty: not a CoNLL-2012 coreference file"),
    ScoreCase("empty-key", "conll", b"\n\n", "the file is empty", side="key"),
    ScoreCase("random-text", "conll", b"lorem ipsum\ndolor (1)\n", "no line '#begin document NAME'"),
    ScoreCase("csv", "conll", b"mention_id,cluster\nm1,1\n", "no line '#begin document NAME'", side="key"),
    ScoreCase("utf-16", "encoding", KEY_TEXT.encode("utf-16"), "UTF-16 text", side="key"),
    ScoreCase("utf-16-le", "encoding", KEY_TEXT.encode("utf-16-le"), "NUL byte"),
    ScoreCase("utf-32", "encoding", KEY_TEXT.encode("utf-32"), "UTF-32 text"),
    ScoreCase("binary", "encoding", random.Random(2).randbytes(4096), "not UTF-8 text"),
    # in a document name (a Latin-1 byte in the words alone is accepted, as v8.01: tests/scoring/test_score_word_bytes)
    ScoreCase("latin-1", "encoding", KEY_TEXT.replace("apple_1", "appl\u00e9_1").encode("latin-1"), "0xe9", "key"),
    ScoreCase("unclosed-document", "conll", KEY_TEXT.rsplit("#end document", 1)[0].encode(), "is never closed"),
    ScoreCase("unclosed-mention", "conll", KEY_TEXT.replace("2)", "-", 1).encode(), "never closed", side="key"),
    ScoreCase("close-without-open", "conll", KEY_TEXT.replace("(2\n", "-\n", 1).encode(), "has no open mention"),
    ScoreCase("bad-annotation", "conll", KEY_TEXT.replace("(3)", "(3)x", 1).encode(), "cannot parse coreference"),
    ScoreCase("end-without-begin", "conll", b"#end document\n", "#end document without a matching #begin document"),
    ScoreCase(
        "token-count",
        "conll",
        KEY_TEXT.replace("news/apple_1\t0\t16\t.\t-\n", "", 1).encode(),
        "has 16 tokens in the response but 17 in the key",
    ),
]


def _score_files(case: ScoreCase, tmp_path: Path) -> tuple[Path, Path, Path]:
    broken = tmp_path / f"{case.id}.conll"
    broken.write_bytes(case.content)
    if case.side == "key":
        return broken, EXAMPLES / "response.conll", broken
    return EXAMPLES / "key.conll", broken, broken


@pytest.mark.parametrize("case", SCORE_CASES, ids=lambda case: f"{case.category}-{case.id}")
def test_score_api_raises_one_error_naming_the_file(case: ScoreCase, tmp_path: Path) -> None:
    key, response, broken = _score_files(case, tmp_path)
    with pytest.raises(UcdcrError) as caught:
        score_files(key, response)
    assert str(broken) in str(caught.value) and case.problem in str(caught.value), str(caught.value)


@pytest.mark.parametrize("case", SCORE_CASES, ids=lambda case: f"{case.category}-{case.id}")
def test_score_cli_prints_one_error_line_naming_the_file(case: ScoreCase, tmp_path: Path) -> None:
    key, response, broken = _score_files(case, tmp_path)
    line = assert_one_error_line(runner.invoke(app, ["score", str(key), str(response)]), str(broken))
    assert case.problem in line


def test_score_api_on_missing_or_folder_paths(tmp_path: Path) -> None:
    with pytest.raises(UcdcrError, match=f"{tmp_path / 'none.conll'}: file not found"):
        score_files(tmp_path / "none.conll", EXAMPLES / "response.conll")
    with pytest.raises(UcdcrError, match=f"{tmp_path}: is a folder, expected a file"):
        score_files(EXAMPLES / "key.conll", tmp_path)


# --- the evaluation: ucdcr evaluate PREDICTIONS ------------------------------------------------------------------

EVALUATED = [tiny.mention_id(index) for index in range(8, 13)]  # tiny_dataset's test mentions (FIRE x3, CITY x2)
GOLD = dict(zip(EVALUATED, ["FIRE", "CITY", "FIRE", "CITY", "FIRE"], strict=True))


@dataclass(frozen=True)
class EvaluateCase:
    id: str
    category: str
    name: str
    content: bytes
    problem: str


def _json(data: object) -> bytes:
    return json.dumps(data).encode()


def _csv(rows: list[tuple[str, str]]) -> bytes:
    return ("mention_id,cluster\n" + "".join(f"{mention_id},{cluster}\n" for mention_id, cluster in rows)).encode()


GOLD_ROWS = list(GOLD.items())
EVALUATE_CASES = [
    EvaluateCase(
        "dup-json-key",
        "predictions",
        "p.json",
        b'{"TINY_08": 1, "TINY_09": 2, "TINY_08": 1}',
        "mention id 'TINY_08' is given twice",
    ),
    EvaluateCase(
        "dup-json-list",
        "predictions",
        "p.json",
        _json([{"mention_id": "TINY_08", "cluster": 1}] * 2),
        "item 1: mention id 'TINY_08' is given twice",
    ),
    EvaluateCase(
        "dup-csv",
        "predictions",
        "p.csv",
        _csv([*GOLD_ROWS, ("TINY_09", "CITY")]),
        "line 7: mention id 'TINY_09' is given twice (first at line 3)",
    ),
    EvaluateCase("null", "predictions", "p.json", _json({**GOLD, "TINY_08": None}), "got null"),
    EvaluateCase("nan", "predictions", "p.json", b'{"TINY_08": NaN}', "the cluster is nan, not a cluster id"),
    EvaluateCase("nan-csv", "predictions", "p.csv", _csv([("TINY_08", "nan")]), "'nan' is a missing value"),
    EvaluateCase("empty-cell", "predictions", "p.csv", _csv([("TINY_08", "")]), "'' is a missing value"),
    EvaluateCase("list-cluster", "predictions", "p.json", _json({"TINY_08": [1, 2]}), "got a list of 2 element(s)"),
    EvaluateCase("bool-cluster", "predictions", "p.json", _json({"TINY_08": False}), "got the boolean false"),
    EvaluateCase(
        "number-id",
        "predictions",
        "p.json",
        _json([{"mention_id": 8, "cluster": 1}]),
        "the mention id must be a non-empty string",
    ),
    EvaluateCase(
        "no-header",
        "predictions",
        "p.csv",
        b"TINY_08,1\nTINY_09,2\n",
        "neither JSON nor a CSV with the columns mention_id and cluster",
    ),
    EvaluateCase("plain-text", "predictions", "p.txt", b"these are my clusters\n", "neither JSON nor a CSV"),
    EvaluateCase("json-string", "predictions", "p.json", b'"TINY_08"', "neither JSON nor a CSV"),
    EvaluateCase("json-number", "predictions", "p.json", b"12", "neither JSON nor a CSV"),
    EvaluateCase("truncated-json", "json-shape", "p.json", _json(GOLD)[:-5], "invalid JSON"),
    EvaluateCase("empty", "json-shape", "p.json", b"", "the file is empty"),
    EvaluateCase("utf-16", "encoding", "p.json", _json(GOLD).decode().encode("utf-16"), "UTF-16 text"),
    EvaluateCase(
        "latin-1", "encoding", "p.csv", "mention_id,cluster\nTINY_08,caf\u00e9\n".encode("latin-1"), "not UTF-8 text"
    ),
    EvaluateCase(
        "incomplete", "predictions", "p.json", _json({"TINY_08": 1}), "4 evaluated mentions have no prediction"
    ),
    EvaluateCase(
        "conll-plain",
        "conll",
        "r.conll",
        b"#begin document d\nfire\t(1)\n#end document\n",
        "a token line must start with the document key, sentence number and token number",
    ),
    EvaluateCase(
        "conll-unclosed",
        "conll",
        "r.conll",
        b"#begin document d\n0/s2/d3\t0\t1\tfire\t(1\n#end document\n",
        "never closed",
    ),
]


@pytest.mark.parametrize("case", EVALUATE_CASES, ids=lambda case: f"{case.category}-{case.id}")
def test_evaluate_api_raises_one_error_naming_the_file(case: EvaluateCase, data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / case.name
    path.write_bytes(case.content)
    with pytest.raises(UcdcrError) as caught:
        evaluate_folders(read_predictions(path), discover_datasets(data_dir))
    assert str(path) in str(caught.value) and case.problem in str(caught.value), str(caught.value)


@pytest.mark.parametrize("case", EVALUATE_CASES, ids=lambda case: f"{case.category}-{case.id}")
def test_evaluate_cli_prints_one_error_line_naming_the_file(case: EvaluateCase, data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / case.name
    path.write_bytes(case.content)
    line = assert_one_error_line(runner.invoke(app, ["evaluate", str(path), "--data-dir", str(data_dir)]), str(path))
    assert case.problem in line


def test_evaluate_paths_and_data_dir(data_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "none.json"
    assert_one_error_line(runner.invoke(app, ["evaluate", str(missing), "--data-dir", str(data_dir)]), str(missing))
    line = assert_one_error_line(
        runner.invoke(app, ["evaluate", str(tmp_path), "--data-dir", str(data_dir)]), str(tmp_path)
    )
    assert "is a folder, expected a file" in line
    good = tmp_path / "gold.json"
    good.write_bytes(_json(GOLD))
    a_file = tmp_path / "data-file"
    a_file.write_text("")
    line = assert_one_error_line(runner.invoke(app, ["evaluate", str(good), "--data-dir", str(a_file)]), str(a_file))
    assert "is a file, not a folder" in line


def test_ids_with_brackets_from_the_file_are_printed_as_they_are(data_dir: Path, tmp_path: Path) -> None:
    # an id that is no mention of any dataset is echoed in the error (issue 20: an error, no longer a note); "[/x]"
    # must not be read as terminal markup (a crash)
    path = tmp_path / "gold.json"
    path.write_bytes(_json({**GOLD, "[/x] [bold]": "other"}))
    line = assert_one_error_line(runner.invoke(app, ["evaluate", str(path), "--data-dir", str(data_dir)]), str(path))
    assert "name no mention of any dataset" in line and ": [/x] [bold] (a typo" in line


# --- the same through real processes ------------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS.parent / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "ucdcr", *args],
        check=False,
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )


def _assert_one_error(completed: subprocess.CompletedProcess, names: Path) -> None:
    assert completed.returncode == 2, completed.stderr
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(names) in lines[0], completed.stderr
    assert "Traceback" not in completed.stderr + completed.stdout


def test_subprocess_stats_on_a_data_dir_that_is_a_file(tmp_path: Path) -> None:
    a_file = tmp_path / "data"
    a_file.write_text("")
    _assert_one_error(_run("stats", "--data-dir", str(a_file)), a_file)


def test_subprocess_score_on_a_utf16_key(tmp_path: Path) -> None:
    key = tmp_path / "key.conll"
    key.write_bytes(KEY_TEXT.encode("utf-16"))
    _assert_one_error(_run("score", str(key), str(EXAMPLES / "response.conll")), key)


def test_subprocess_evaluate_on_a_repeated_mention_id(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_bytes(_csv([*GOLD_ROWS, ("TINY_08", "FIRE")]))
    _assert_one_error(_run("evaluate", str(path), "--data-dir", str(data_dir)), path)
