"""Benchmark: peak memory of the ECB+ build on the corpus replicated x1, x2, x4, x8 (bounded memory means flat),
and of synthetic HyperCoref builds of given sizes.

Usage: python bench/memory_build.py [--raw-dir ../shared/raw] [--copies 1,8] [--jobs 1] [--work DIR]
       python bench/memory_build.py --hypercoref 1000,4000 [--outlets 4] [--jobs 2]
       python bench/memory_build.py --hypercoref-raw DIR [--jobs 2]   (a synthetic_hypercoref.py output made before)

With ``--hypercoref N,...`` the input is ``bench/synthetic_hypercoref.py``'s output with N hyperlinks over
``--outlets`` outlets, built with every outlet and every hyperlink (``--outlets all -o sample=false``), instead of
ECB+.

Each replica k > 0 of every ECB+ topic T is the same XML files under topic T + 100k (files, split file, validated
sentence list and subtopic names renamed accordingly), so ECB+ xN has N times the documents, tokens and mentions.
Each build runs in a fresh process (``python -m ucdcr build ecbplus -j N``); its peak resident memory is that
process's ``ru_maxrss`` (with ``-j 2``, the largest of the parent and its workers); the total resident memory of the
build's whole process tree (parent + workers) is sampled every second from ``/proc`` and its peak printed too. Prints
peak RSS, wall time and mentions per copy count, and the ratio of the largest to x1, with the load average.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path("ECB+_LREC2014")
OFFSET = 100


def replicate(source: Path, target: Path, copies: int) -> None:
    """ECB+ raw folder ``source`` -> ``target`` with every topic present ``copies`` times."""
    (target / CORPUS / "ECB+").mkdir(parents=True)
    (target / "ucdcr-meta").mkdir()
    topics = sorted(p.name for p in (source / CORPUS / "ECB+").iterdir() if p.is_dir())
    split = json.loads((source / "ucdcr-meta/train_val_test_split.json").read_text())
    names = json.loads((source / "ucdcr-meta/subtopic_names.json").read_text())
    rows = list(csv.reader((source / CORPUS / "ECBplus_coreference_sentences.csv").open()))
    new_split: dict[str, list[int]] = {name: [] for name in split}
    new_names: dict[str, str] = {}
    new_rows = [rows[0]]
    for k in range(copies):
        for topic in topics:
            new = str(int(topic) + OFFSET * k)
            folder = target / CORPUS / "ECB+" / new
            folder.mkdir()
            for file in (source / CORPUS / "ECB+" / topic).glob("*.xml"):
                os.symlink(file, folder / file.name.replace(f"{topic}_", f"{new}_", 1))
            for name, members in split.items():
                if int(topic) in members:
                    new_split[name].append(int(new))
        for key, value in names.items():
            topic = key.rstrip("ecbplus")
            new_names[f"{int(topic) + OFFSET * k}{key[len(topic) :]}"] = value
        new_rows += [[str(int(r[0]) + OFFSET * k), r[1], r[2]] for r in rows[1:]]
    for name in split:  # the split file's listed-but-absent topics stay listed once
        new_split[name] += [t for t in split[name] if str(t) not in topics]
    (target / "ucdcr-meta/train_val_test_split.json").write_text(json.dumps(new_split))
    (target / "ucdcr-meta/subtopic_names.json").write_text(json.dumps(new_names))
    with (target / CORPUS / "ECBplus_coreference_sentences.csv").open("w", newline="") as handle:
        csv.writer(handle).writerows(new_rows)


def measure(
    raw: Path, data: Path, jobs: int, dataset: str = "ecbplus", options: dict[str, str] | None = None
) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, mentions written) of one build in a fresh process."""
    script = (
        "import json, resource, sys\n"
        "from ucdcr.pipeline.build import build_dataset\n"
        f"report = build_dataset({dataset!r}, {str(raw)!r}, {str(data)!r}, jobs={jobs}, progress=False, "
        f"options={options!r})\n"
        "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps([max(own, children), report.counts['mentions_written']]))\n"
    )
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    tree_peak = 0
    while process.poll() is None:
        tree_peak = max(tree_peak, tree_rss_kb(process.pid))
        time.sleep(1.0)
    output = process.stdout.read() if process.stdout else ""
    if process.returncode:
        raise SystemExit(f"the build failed (exit {process.returncode})")
    seconds = time.perf_counter() - started
    peak_kb, mentions = json.loads(output.strip().splitlines()[-1])
    shutil.rmtree(data / dataset, ignore_errors=True)
    print(f"  peak total RSS of the build's process tree (sampled each second): {tree_peak / 1024:,.0f} MB")
    return peak_kb / 1024, seconds, mentions


def tree_rss_kb(root: int) -> int:
    """Resident memory (kB) of process ``root`` and all its descendants now, from /proc (0 where unreadable)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        children = [pid for pid, ppid in parents.items() if ppid in frontier and pid not in tree]
        tree.update(children)
        frontier = children
    total = 0
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--copies", default="1,8")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None, help="where the replicated raw folders go (a temp dir)")
    parser.add_argument("--hypercoref", default="", help="synthetic HyperCoref sizes in mentions, e.g. 1000,4000")
    parser.add_argument("--outlets", type=int, default=4, help="outlets of the synthetic HyperCoref")
    parser.add_argument("--hypercoref-raw", type=Path, default=None, help="a synthetic HyperCoref folder to build")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ucdcr-memory-", dir=args.work))
    print(f"cores: {os.cpu_count()}, jobs: {args.jobs}, load average at start: {load()}")
    if args.hypercoref_raw:
        try:
            options = {"outlets": "all", "sample": "false"}
            peak, seconds, mentions = measure(args.hypercoref_raw, work / "data", args.jobs, "hypercoref", options)
            print(
                f"synthetic HyperCoref {args.hypercoref_raw}: peak RSS of one process {peak:,.0f} MB, "
                f"{seconds:,.0f} s, {mentions:,} mentions written ({mentions / seconds:,.1f}/s) (load {load()})"
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    if args.hypercoref:
        try:
            hypercoref(work, [int(n) for n in args.hypercoref.split(",")], args.outlets, args.jobs)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    peaks: dict[int, float] = {}
    try:
        for copies in (int(c) for c in args.copies.split(",")):
            raw = work / f"raw{copies}"
            replicate(args.raw_dir / "ECBplus", raw / "ECBplus", copies)
            peak, seconds, mentions = measure(raw, work / "data", args.jobs)
            peaks[copies] = peak
            print(
                f"ECB+ x{copies}: peak RSS {peak:,.0f} MB, {seconds:.0f} s wall, {mentions:,} mentions "
                f"({mentions / seconds:,.0f}/s) (load {load()})"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    smallest, largest = min(peaks), max(peaks)
    print(f"peak RSS x{largest} / x{smallest}: {peaks[largest] / peaks[smallest]:.2f}")


def hypercoref(work: Path, sizes: list[int], outlets: int, jobs: int) -> None:
    """Peak RSS, wall time and mentions/s of synthetic HyperCoref builds (every outlet, every hyperlink)."""
    peaks: dict[int, float] = {}
    for size in sizes:
        raw = work / f"hypercoref{size}"
        subprocess.run(
            [sys.executable, str(REPO / "bench" / "synthetic_hypercoref.py"), str(raw), "--mentions", str(size),
             "--outlets", str(outlets)],
            check=True, capture_output=True,
        )  # fmt: skip
        options = {"outlets": "all", "sample": "false"}
        peak, seconds, mentions = measure(raw, work / "data", jobs, "hypercoref", options)
        peaks[size] = peak
        shutil.rmtree(raw, ignore_errors=True)
        print(
            f"synthetic HyperCoref {size:,} mentions, {outlets} outlets: peak RSS {peak:,.0f} MB, {seconds:.0f} s, "
            f"{mentions:,} mentions written ({mentions / seconds:,.1f}/s) (load {load()})"
        )
    smallest, largest = min(peaks), max(peaks)
    print(f"peak RSS {largest:,} / {smallest:,} mentions: {peaks[largest] / peaks[smallest]:.2f}")


if __name__ == "__main__":
    main()
