"""Reading a file's bytes and its UTF-8 text: every failure is one FormatError naming the file (and line).

Used by the format readers (:mod:`ucdcr.formats.inputs`), the loader of built datasets, the scorer's CoNLL reader
and the predictions reader of ``ucdcr evaluate``;
light on purpose (standard library only), since ``ucdcr score`` imports it at start-up.

Encoding rule:

- Text is UTF-8. A UTF-8 byte-order mark at the very start is accepted and removed: it carries no content, and
  many Windows tools write one.
- UTF-16 and UTF-32 text (recognised by its byte-order mark, or by NUL bytes, which UTF-8 text never holds) is an
  error saying UTF-8 is expected; so is any byte sequence that is not UTF-8 (the error gives the line and column
  of the first bad byte). Nothing is guessed or replaced.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError

_WIDE_BOMS = (  # UTF-32 first: the UTF-32-LE mark begins with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
LINE_BREAK = re.compile(r"\r\n|\r|\n")


@contextmanager
def file_errors(path: str | Path, expected: str = "a file") -> Iterator[None]:
    """Inside it, opening or reading ``path`` fails with one FormatError naming it: not found, a folder (where
    ``expected`` belongs), permission denied, or the system's reason. Before it, ``path`` must be a regular file (or
    not exist yet: the open says so): a device, a named pipe or a socket is refused at once, since reading one may
    never end (``/dev/zero``) or never start (a pipe nobody writes to)."""
    check_regular(path, expected)
    try:
        yield
    except FileNotFoundError:
        raise FormatError(path, "file not found") from None
    except IsADirectoryError:
        raise FormatError(path, f"is a folder, expected {expected}") from None
    except PermissionError:
        raise FormatError(path, "cannot read the file: permission denied") from None
    except OSError as exc:
        raise FormatError(path, f"cannot read the file: {exc.strerror or exc}") from None


_SPECIAL_FILES = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def check_regular(path: str | Path, expected: str = "a file") -> None:
    """Refuse a path that exists and is neither a regular file nor a folder (folders are told apart by the open),
    with one FormatError naming it and what it is."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # missing, unreadable or not a path: the open that follows names the reason
        return
    for test, kind in _SPECIAL_FILES:
        if test(mode):
            raise FormatError(path, f"is {kind}, not a regular file; expected {expected}")


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a file; a missing file, a folder or an unreadable file is a FormatError naming it."""
    with file_errors(path):
        return Path(path).read_bytes()
    raise AssertionError("unreachable")  # for type checkers: file_errors re-raises every failure


def parse_json(text: str, name: str | Path, object_pairs_hook: Callable[[list[Any]], Any] | None = None) -> Any:
    """JSON text -> value, with a FormatError naming ``name`` and the line when it is malformed
    (``object_pairs_hook`` as in :func:`json.loads`)."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise FormatError(name, f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise FormatError(name, "invalid JSON: nested too deeply") from None


def decode_text(data: bytes, name: str | Path) -> str:
    """``data`` as UTF-8 text by the encoding rule of this module (a leading UTF-8 BOM removed)."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            raise FormatError(
                name,
                f"the file is {encoding} text (it starts with a {encoding} byte-order mark); "
                "expected UTF-8: save it as UTF-8",
            )
    data = data.removeprefix(codecs.BOM_UTF8)
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _line_and_column(data, nul)
        raise FormatError(
            name,
            f"NUL byte at column {column}: this is UTF-16 text or a binary file, not UTF-8 text; expected UTF-8",
            line,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _line_and_column(data, exc.start)
        raise FormatError(
            name,
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} is not valid "
            "UTF-8; expected UTF-8 (the file may be Latin-1, Windows-1252 or binary)",
            line,
        ) from None


def read_text(path: str | Path) -> str:
    """A UTF-8 text file (encoding rule in the module docstring)."""
    return decode_text(read_bytes(path), path)


def _line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line (lines end at ``\\n``, ``\\r\\n`` or ``\\r``) and column of a byte offset."""
    line_start = max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1
    return len(LINE_BREAK.findall(data[:offset].decode("utf-8", "replace"))) + 1, offset - line_start + 1


def describe_json(value: Any) -> str:
    """A JSON value for an error message: its kind and, for a scalar, the value (``the string 'first'``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return f"an object with {len(value)} field(s)"
    if isinstance(value, list):
        return f"a list of {len(value)} element(s)"
    kind = "string" if isinstance(value, str) else "integer" if isinstance(value, int) else "number"
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    return f"the {kind} {shown}"
