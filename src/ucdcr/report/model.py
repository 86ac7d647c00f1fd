"""What a report holds (:class:`Report`: its sections of tables and its figures), as plain records below both the
code that fills them (:mod:`ucdcr.report.build_report`) and the code that renders them (:mod:`ucdcr.report.html`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ucdcr.report.tables import ResultTable


@dataclass
class Section:
    """A group of tables under one heading."""

    title: str
    tables: list[ResultTable] = field(default_factory=list)


@dataclass
class FigureEntry:
    """One figure: its file (relative to the report folder) or the reason it was not drawn."""

    title: str
    caption: str
    file: str | None = None
    missing: str | None = None


@dataclass
class Report:
    """What a report holds and where it was written."""

    out_dir: Path
    datasets: list[str]
    sections: list[Section] = field(default_factory=list)
    figures: list[FigureEntry] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        """Every file the report wrote."""
        written = [self.out_dir / name for name in ("index.html", "report.md", "tables.json")]
        return written + [self.out_dir / f.file for f in self.figures if f.file]
