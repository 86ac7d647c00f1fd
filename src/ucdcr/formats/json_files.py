"""JSON inputs shared by several readers: loading, and checking shapes and value types (the uCDCR split file is
read by :mod:`ucdcr.formats.split_file`).

- Any JSON file is read as UTF-8 text (the rule of :mod:`ucdcr.formats.inputs`); malformed JSON becomes a
  :class:`~ucdcr.errors.FormatError` naming the file and line.
- Shapes: :func:`expect` checks that a value is of a JSON kind (object, list, string, integer, id = string or
  integer, ...) and :func:`field` that a record has a field of a kind; :func:`list_of` checks every element. A
  wrong shape is one FormatError saying where (``record 3: field 'sentence_id'``), what was expected and what was
  found (``must be an integer, got the string 'first'``). Booleans are never integers; ``null`` is never a value
  of a required field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import read_text

JsonKind = Literal["object", "list", "string", "integer", "number", "id", "boolean"]
_KIND_NAMES: dict[str, str] = {
    "object": "an object",
    "list": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "id": "an id (a string or an integer)",
    "boolean": "true or false",
}


def parse_json(text: str, name: str | Path) -> Any:
    """JSON text -> value, with a FormatError naming ``name`` and the line when it is malformed."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(name, f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise FormatError(name, "invalid JSON: nested too deeply") from None


def read_json(path: Path) -> Any:
    """A JSON file, with a FormatError naming file and line when it is missing, unreadable or malformed."""
    return parse_json(read_text(path), path)


def describe(value: Any) -> str:
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


def _is(value: Any, kind: JsonKind) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    return {
        "object": isinstance(value, dict),
        "list": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int),
        "number": isinstance(value, (int, float)),
        "id": isinstance(value, (int, str)),
        "boolean": False,
    }[kind]


def expect(value: Any, kind: JsonKind, path: str | Path, where: str, of: str = "") -> Any:
    """``value`` if it is of the JSON ``kind``, else a FormatError: ``<where> must be <kind> [<of>], got <value>``
    (e.g. ``the file must be a list of mention records, got an object with 2 field(s)``)."""
    if not _is(value, kind):
        raise FormatError(path, f"{where} must be {_KIND_NAMES[kind]}{' ' + of if of else ''}, got {describe(value)}")
    return value


def field(record: dict[str, Any], name: str, kind: JsonKind, path: str | Path, where: str) -> Any:
    """The field ``name`` of a JSON object, checked to be of ``kind`` (a missing field is an error)."""
    if name not in record:
        raise FormatError(path, f"{where} has no field {name!r}")
    return expect(record[name], kind, path, f"{where}: field {name!r}")


def list_of(value: Any, kind: JsonKind, path: str | Path, where: str) -> list[Any]:
    """``value`` checked to be a list whose elements are all of ``kind``."""
    expect(value, "list", path, where)
    for index, element in enumerate(value):
        expect(element, kind, path, f"{where}, element {index}")
    return value


def int_of(value: Any, path: str | Path, where: str) -> int:
    """An integer given as a JSON integer or as a string of digits (``"3"``, ``"-1"``); anything else is an error."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return int(expect(value, "integer", path, where))
