"""Render the report's index.html and a viewer page in headless Chromium to PNG; print console messages.

Usage::

    apt-get update && apt-get install -y chromium        # once (Debian package)
    python bench/render_in_chromium.py DATASET_FOLDER [--doc DOC_KEY] [--out DIR]
    python bench/render_in_chromium.py --html PAGE.html [PAGE.html ...] [--out DIR]

With a dataset folder (a built dataset or any folder in the uCDCR layout with all_documents.parquet) it first
writes ``ucdcr report`` and ``ucdcr view`` output into DIR, then renders both. Every console message of a page
(errors, failed loads, uncaught exceptions) is printed; the exit code is 1 if there was any, or if a page did not
render. Chromium runs offline-safe: no background networking, no component updates, a throw-away profile.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
)
_CONSOLE = re.compile(r":CONSOLE(?::\d+)?\]\s*(.*)$")


def chromium_binary() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("chromium not found: apt-get update && apt-get install -y chromium")


def render(page: Path, png: Path, height: int = 1000) -> tuple[list[str], float]:
    """Screenshot ``page`` to ``png`` (1400 px wide); returns the page's console messages and the seconds it took."""
    with tempfile.TemporaryDirectory(prefix="ucdcr-chromium-") as profile:
        command = [
            chromium_binary(),
            *CHROMIUM_FLAGS,
            f"--window-size=1400,{height}",
            f"--user-data-dir={profile}",
            f"--screenshot={png.resolve()}",
            page.resolve().as_uri(),
        ]
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        elapsed = time.perf_counter() - start
    messages = [m.group(1) for line in result.stderr.splitlines() if (m := _CONSOLE.search(line))]
    if result.returncode != 0:
        messages.append(f"chromium exited with {result.returncode}")
    return messages, elapsed


def make_pages(folder: Path, doc_key: str | None, out: Path) -> list[Path]:
    """Write a report and one viewer page (with its subtopic pages) for a dataset folder."""
    from ucdcr.api import load
    from ucdcr.report.build_report import build_report
    from ucdcr.report.viewer import page_name

    start = time.perf_counter()
    report = build_report({folder.name: folder}, out / "report")
    print(f"report written in {time.perf_counter() - start:.1f} s")
    for figure in report.figures:
        if figure.missing:
            print(f"  figure not drawn: {figure.title}: {figure.missing}")
    documents = load(folder, kind="documents")
    key = doc_key or min(documents["topic/subtopic_name/doc"].to_pylist())
    view = out / "view" / page_name(key)
    subprocess.run([sys.executable, "-m", "ucdcr", "view", str(folder), key, "--out", str(view)], check=True)
    return [out / "report" / "index.html", view]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, help="a dataset folder in the uCDCR layout")
    parser.add_argument("--doc", help="conll_doc_key of the viewer page (default: the first document)")
    parser.add_argument("--html", nargs="+", type=Path, default=[], help="render these pages instead")
    parser.add_argument("--out", type=Path, default=Path("chromium-check"), help="output folder")
    parser.add_argument("--height", type=int, default=1000, help="window height in px (taller shows more)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    pages = list(args.html)
    if args.folder:
        pages += make_pages(args.folder, args.doc, args.out)
    if not pages:
        parser.error("give a dataset folder or --html pages")
    failed = False
    for page in pages:
        png = args.out / (page.stem + ".png")
        messages, seconds = render(page, png, args.height)
        ok = png.is_file() and png.stat().st_size > 0
        print(
            f"{page}: {'rendered' if ok else 'NOT rendered'} -> {png} "
            f"({png.stat().st_size if ok else 0} bytes, {seconds:.1f} s), console messages: {len(messages)}"
        )
        for message in messages:
            print(f"  console: {message}")
        failed |= bool(messages) or not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
