"""Render a :class:`~ucdcr.report.model.Report` as ``index.html`` and ``report.md``.

Both list the same content in the same order: the datasets, the table sections (each table with its notes),
then the figures with captions; a figure that was not drawn shows the reason instead of an image. The HTML page
has inline CSS, no script and no external resource other than the PNG files in ``figures/``.
"""

from __future__ import annotations

import html
import re

from ucdcr.report.model import Report
from ucdcr.report.tables import ResultTable, format_cell, to_markdown
from ucdcr.version import __version__

TITLE = "uCDCR dataset report"
_CODE_SPAN = re.compile(r"`([^`]+)`")


def render_markdown(report: Report) -> str:
    """The report as GitHub-flavoured Markdown (figures as relative image links)."""
    lines = [f"# {TITLE}", "", f"Datasets: {', '.join(report.datasets)}. Made by ucdcr {__version__}.", ""]
    for section in report.sections:
        lines += [f"## {section.title}", ""]
        lines += [to_markdown(table) for table in section.tables]
    lines += ["## Figures", ""]
    for figure in report.figures:
        lines += [f"### {figure.title}", ""]
        if figure.file:
            lines += [f"![{figure.title}]({figure.file})", ""]
        else:
            lines += [f"*Not drawn: {figure.missing}.*", ""]
        lines += [figure.caption, ""]
    return "\n".join(lines)


def render_html(report: Report) -> str:
    """The report as one HTML page with a table of contents."""
    toc: list[str] = []
    body: list[str] = []
    for index, section in enumerate(report.sections):
        anchor = f"s{index}"
        toc.append(f'<li><a href="#{anchor}">{_inline(section.title)}</a></li>')
        body.append(f'<h2 id="{anchor}">{_inline(section.title)}</h2>')
        body += [_table_html(table) for table in section.tables]
    toc.append('<li><a href="#figures">Figures</a></li>')
    body.append('<h2 id="figures">Figures</h2>')
    for figure in report.figures:
        body.append(f"<figure><h3>{html.escape(figure.title)}</h3>")
        if figure.file:
            body.append(f'<img src="{html.escape(figure.file)}" alt="{html.escape(figure.title)}">')
        else:
            body.append(f'<p class="missing">Not drawn: {_inline(figure.missing or "")}.</p>')
        body.append(f"<figcaption>{_inline(figure.caption)}</figcaption></figure>")
    return _PAGE.format(
        title=TITLE,
        datasets=html.escape(", ".join(report.datasets)),
        version=html.escape(__version__),
        toc="".join(toc),
        body="\n".join(body),
        css=_CSS,
    )


def _inline(text: str) -> str:
    """Escaped text with Markdown code spans (`...`) shown as <code>, as report.md shows them."""
    return _CODE_SPAN.sub(r"<code>\1</code>", html.escape(text))


def _table_html(table: ResultTable) -> str:
    numeric = {
        column: all(isinstance(row.get(column), int | float) or row.get(column) is None for row in table.rows)
        for column in table.columns
    }
    head = "".join(f"<th>{html.escape(column)}</th>" for column in table.columns)
    rows = []
    for row in table.rows:
        cells = "".join(
            f"<td{' class=n' if numeric[column] else ''}>{html.escape(format_cell(row.get(column), table.digits))}</td>"
            for column in table.columns
        )
        rows.append(f"<tr>{cells}</tr>")
    notes = "".join(f'<p class="note">{_inline(note)}</p>' for note in table.notes)
    return (
        f'<h3>{html.escape(table.title)}</h3><div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>{notes}"
    )


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:75em;padding:1em 2em;
color:#222}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}h3{margin:1.4em 0 .4em}
nav ul{columns:2;font-size:.95em}.meta{color:#666}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.85em;margin:.3em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;white-space:nowrap}th{background:#f0f0f0;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums}tbody tr:nth-child(even){background:#fafafa}
.note{color:#555;font-size:.85em;margin:.2em 0}.missing{color:#a33;font-style:italic}
code{font-size:.92em;background:#f3f3f3;padding:0 .2em;border-radius:3px}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{color:#555;font-size:.9em}
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{css}</style></head>
<body><h1>{title}</h1><p class="meta">Datasets: {datasets}. Made by ucdcr {version}.</p>
<nav><ul>{toc}</ul></nav>
{body}
</body></html>
"""
