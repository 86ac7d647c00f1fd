"""The README's Python snippets run as written.

Every ```python block of README.md is executed, in order, in one namespace, from a temporary folder holding a copy
of the repository's ``examples`` (the snippets name ``examples/...``; what they write stays in tmp), with the raw
dir and the data dir of the environment (``UCDCR_RAW_DIR``, ``UCDCR_DATA_DIR``) pointing at a tiny ECB+ raw folder
(tests/fixtures/raw/ecbplus.py) and an empty data dir in tmp, so a snippet that builds ``ecbplus`` builds that
fixture and the snippets after it load what it built.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw

REPO_ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def python_blocks() -> list[str]:
    return BLOCK.findall((REPO_ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_has_the_python_api_snippet() -> None:
    blocks = python_blocks()
    assert any("ucdcr.build(" in block and "ucdcr.load(" in block for block in blocks), blocks


def test_every_python_snippet_of_the_readme_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = write_ecbplus_raw(tmp_path / "raw")
    data = tmp_path / "data"
    monkeypatch.setenv("UCDCR_RAW_DIR", str(raw))
    monkeypatch.setenv("UCDCR_DATA_DIR", str(data))
    monkeypatch.setenv("UCDCR_CACHE_DIR", str(tmp_path / "cache"))  # `ucdcr.benchmark` stores its results there
    shutil.copytree(REPO_ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for number, block in enumerate(python_blocks(), start=1):
        exec(compile(block, f"README.md python block {number}", "exec"), namespace)
    # what the API snippet left behind: the fixture built, loaded and scored
    report, mentions, scores = namespace["report"], namespace["mentions"], namespace["scores"]
    assert report.counts["mentions_written"] == 13  # type: ignore[attr-defined]  # fixtures/raw/ecbplus.py: 13 validated
    assert mentions.num_rows == 2  # type: ignore[attr-defined]  # fixtures/raw/ecbplus.py: topic 36 (test) has 2 mentions
    assert namespace["table5"].title.startswith("Table 5")  # type: ignore[attr-defined]
    assert (data / "ecbplus" / "all_mentions.parquet").is_file()
    assert 0 < scores.conll_f1 < 1  # type: ignore[attr-defined]  # examples/response.conll differs from the key
    assert scores.conll_f1_percent == int(scores.conll_f1 * 10000) / 100  # type: ignore[attr-defined]
    benchmarked = {(run.system, run.dataset) for run in namespace["result"].runs}  # type: ignore[attr-defined]
    assert benchmarked == {("same-head-in-doc", "ecbplus"), ("head-lemma", "ecbplus")}
    assert namespace["by_type"].title.startswith("Benchmark")  # type: ignore[attr-defined]
    assert namespace["leaderboard"].title.startswith("Leaderboard")  # type: ignore[attr-defined]
    saved = tmp_path / "preds" / "ucdcr_subtopic" / "same-head-in-doc" / "ecbplus.seed0.json"
    assert saved.is_file()  # the predictions out, read back by the snippet's `ucdcr.evaluate`
    assert namespace["tables"][0].notes[-1].startswith("Signature: ucdcr:")  # type: ignore[index]
