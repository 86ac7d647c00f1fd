"""Raw input files: bytes, text, zip members, XML and CSV, each failure one FormatError naming the file.

Every format reader reads its files through these helpers (JSON: :mod:`ucdcr.formats.json_files`), so whatever
goes wrong underneath -- the operating system, an encoding, ``zipfile`` / ``zlib``, lxml or the ``csv`` module --
reaches the user as one :class:`~ucdcr.errors.FormatError` that names the file (``archive.zip:member`` for a zip
member), the line where it is known, and what is wrong. No reader needs its own ``try``/``except``.

Encoding rule (text, CSV, JSON and XML alike):

- Raw files are UTF-8, read by :mod:`ucdcr.io.text` (the one implementation of the rule): a leading UTF-8
  byte-order mark is removed (MAXQDA and many Windows tools write one); UTF-16/UTF-32 text and bytes that are
  not UTF-8 are errors giving the line and column. Nothing is guessed or replaced.
- XML is held to the same rule: its bytes must be UTF-8 and are parsed as UTF-8 whatever the XML declaration says.

Lines are split at ``\\n``, ``\\r\\n`` and ``\\r`` only (:func:`text_lines`), as Python's text files do;
other Unicode line separators stay inside their line.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from lxml import etree

from ucdcr.errors import FormatError
from ucdcr.io.text import LINE_BREAK, decode_text, file_errors, read_bytes, read_text

__all__ = [
    "ZipInput",
    "csv_records",
    "csv_rows",
    "decode_text",
    "open_zip",
    "parse_xml",
    "parse_xml_text",
    "read_bytes",
    "read_text",
    "read_xml",
    "text_lines",
]

_XML_POSITION = re.compile(r",? line \d+, column \d+$")  # lxml repeats the position at the end of its message
_ZIP_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError, ValueError)


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` without their line breaks (``\\n``, ``\\r\\n`` or ``\\r``)."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class ZipInput:
    """An open zip archive whose member reads fail with a FormatError naming ``archive:member``."""

    def __init__(self, path: Path, bundle: zipfile.ZipFile) -> None:
        self.path = path
        self._bundle = bundle

    def names(self) -> list[str]:
        """Member names in archive order."""
        return self._bundle.namelist()

    def label(self, member: str) -> str:
        """``<archive>:<member>``, the name used in errors."""
        return f"{self.path}:{member}"

    def read_bytes(self, member: str) -> bytes:
        """The bytes of one member (a corrupt, truncated or CRC-failing member is a FormatError)."""
        try:
            return self._bundle.read(member)
        except KeyError:
            raise FormatError(self.label(member), "no such member in the archive") from None
        except _ZIP_READ_ERRORS as exc:
            raise FormatError(
                self.label(member), f"corrupt zip member ({_reason(exc)}); download the archive again"
            ) from None

    def read_text(self, member: str) -> str:
        """One member as UTF-8 text (encoding rule in the module docstring)."""
        return decode_text(self.read_bytes(member), self.label(member))


@contextmanager
def open_zip(path: Path) -> Iterator[ZipInput]:
    """Open a zip archive; a file that is not a readable zip (truncated, corrupt, a folder) is a FormatError."""
    with ExitStack() as stack:
        with file_errors(path, "a zip file"):
            handle = stack.enter_context(Path(path).open("rb"))
        try:
            bundle = stack.enter_context(zipfile.ZipFile(handle))
        except _ZIP_READ_ERRORS as exc:
            raise FormatError(
                path, f"not a readable zip archive ({_reason(exc)}); it may be truncated or corrupt: download it again"
            ) from None
        yield ZipInput(Path(path), bundle)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "its data ends early: the archive is truncated"
    if isinstance(exc, zlib.error):
        return f"its compressed data is corrupt: {exc}"
    return str(exc) or type(exc).__name__


def parse_xml(data: bytes, name: str | Path) -> etree._Element:
    """The root element of an XML document given as bytes (UTF-8 by the encoding rule; no entities, no network)."""
    return parse_xml_text(data, name)[0]


def parse_xml_text(data: bytes, name: str | Path) -> tuple[etree._Element, str]:
    """:func:`parse_xml`, and the document's text (``data`` decoded by the encoding rule)."""
    text = decode_text(data, name)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, encoding="utf-8")
    try:
        root = etree.fromstring(data.removeprefix(codecs.BOM_UTF8), parser)
    except etree.XMLSyntaxError as exc:
        message = _XML_POSITION.sub("", exc.msg or "syntax error")
        column = f" (column {exc.position[1]})" if exc.position and exc.position[1] else ""
        raise FormatError(name, f"malformed XML{column}: {message}", exc.lineno) from None
    except etree.LxmlError as exc:
        raise FormatError(name, f"malformed XML: {exc}") from None
    if root is None:
        raise FormatError(name, "malformed XML: no root element")
    return root, text


def read_xml(path: Path) -> etree._Element:
    """The root element of an XML file."""
    return parse_xml(read_bytes(path), path)


def csv_rows(text: str, name: str | Path) -> Iterator[tuple[int, list[str]]]:
    """``(line, cells)`` of every CSV row of ``text`` (the line where the row ends); blank lines skipped."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if row:
                yield reader.line_num, row
    except csv.Error as exc:
        raise FormatError(name, f"malformed CSV: {exc}", reader.line_num) from None


def csv_records(text: str, name: str | Path, required: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line, {column: cell})`` of a CSV with a header row that holds every ``required`` column.

    A row with more or fewer cells than the header is an error naming its line (no cell is invented or dropped).
    """
    rows = csv_rows(text, name)
    first = next(rows, None)
    header = [cell.strip() for cell in first[1]] if first else []
    missing = [column for column in required if column not in header]
    if missing:
        raise FormatError(name, f"missing column(s) {', '.join(missing)}; header is {','.join(header)!r}", 1)
    for line, row in rows:
        if len(row) != len(header):
            raise FormatError(name, f"expected {len(header)} fields (as the header), found {len(row)}", line)
        yield line, dict(zip(header, row, strict=True))


def read_csv_records(path: Path, required: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """:func:`csv_records` of a UTF-8 CSV file."""
    return csv_records(read_text(path), path, required)


def csv_integer(path: Path, line: int, row: dict[str, str], column: str, minimum: int, what: str = "an integer") -> int:
    """The integer in ``row[column]``; not an integer (``what`` names the expected value) or below ``minimum`` is a
    FormatError naming the file, line and column."""
    try:
        value = int(row[column].strip())
    except ValueError:
        raise FormatError(path, f"column {column!r} must be {what}, got {row[column]!r}", line) from None
    if value < minimum:
        raise FormatError(path, f"column {column!r} must be >= {minimum}, got {value}", line)
    return value
