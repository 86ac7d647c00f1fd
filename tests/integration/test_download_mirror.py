"""`ucdcr download all --mirror ../shared/raw` on the shared mirror (issue 54): every dataset the mirror allows is
fetched, the network is never asked, the exit code is 0, one line a dataset and one summary line saying what can
and cannot be built and why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_download_all_from_the_mirror_exits_0_with_its_summary(raw_dir: Path, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    command = [sys.executable, "-m", "ucdcr", "download", "all", "--mirror", str(raw_dir), "--raw-dir", str(raw)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 12 and all(" -> " in line for line in lines)  # one line per dataset
    assert f"ecbplus -> {(raw / 'ECBplus').resolve()}: " in done.stdout
    [summary] = done.stderr.splitlines()
    assert summary.startswith("can build: cd2cr, ecbplus, meantime, np4e; can build some splits: cerec (val, test;")
    assert f"cannot build (not in the mirror {raw_dir}): ecbplus_metam (needs ecbplus_metam.json)" in summary
    assert "URLError" not in done.stdout + done.stderr and "manual steps" not in done.stderr
