"""Raw-file manifests, typed: what a dataset's raw files are, where they come from, how each is verified, and
which are missing from a folder.

Each dataset ships ``ucdcr/manifests/<id>.json`` (a dataset declared outside ucdcr names its own file,
:attr:`~ucdcr.registry.DatasetSpec.manifest_file`)::

    {"dataset": "ecbplus", "licence": "...", "citation": ["reference", ...], "homepage": "...",
     "manual_steps": null | "text", ["pinned_commit": "sha"],
     "files": [{"path": "ECB+_LREC2014/ECBplus_coreference_sentences.csv", "url": "https://...", "size": 23008,
                "sha256": "...", "git_blob": null, "required": true, "note": "", ["alternative_urls": [...]],
                ["one_of": "group"], ["alternatives": [paths]], ["unless_option": "name"], ["part": true]},
               {"path": "ECB+_LREC2014/ECB+", "kind": "tree", "tree_sha256": "...", "files": 982, "url": null | zip URL,
                "required": false, ["one_of": "group"], ["archive": "name.zip"], "note": "extracted ECB+.zip"}]}

Rule: a manifest is parsed ONCE into a :class:`Manifest` of :class:`ManifestEntry` records
(:meth:`Manifest.parse`); a key this module does not know, a value of the wrong type, or an entry path given twice
is a :class:`~ucdcr.errors.FormatError` naming the manifest file, the entry and the key. Everything else (the
registry, the downloader, ``ucdcr datasets``, the readers) reads the records, never the JSON.

Paths are relative to ``<raw-dir>/<DatasetSpec.raw_folder>/``. Entries sharing a ``one_of`` group are alternatives
(ECB+.zip or its extracted tree): one of them is enough. What counts as missing (:meth:`Manifest.missing`,
existence only): every required entry and every one_of group with no entry there. An entry also counts as there
when one of its ``alternatives`` exists (other places or stand-ins the reader accepts; it says which it used), or
when the reader option its ``unless_option`` names is given (NewsWCL50r's texts from ``--texts``). An entry marked
``part`` (one topic's annotations) is left to the reader, which checks the parts against the structure the
dataset declares (its split file). :meth:`Manifest.missing_message` is what ``download``, ``build`` and the readers
say when raw files are missing: the names, what failed, the manual steps, licence and homepage, every expected
file with its URL and hashes, and where to put the files by hand.

This module reads no raw file's content: hashing and fetching are :mod:`ucdcr.sources.download`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from ucdcr.errors import FormatError

EntryKind = Literal["file", "tree"]
DOWNLOAD_DOES = "fetches and verifies what has a URL (--mirror DIR: from a local copy)"


@dataclass(frozen=True)
class ManifestEntry:
    """One raw file (``kind="file"``) or folder of files (``kind="tree"``) of a dataset.

    path: relative to the dataset's raw folder. url: where it is fetched from (for a tree: a zip holding it);
    alternative_urls: tried after ``url``. size, sha256, git_blob: a file's checks (git_blob where only the blob id
    is known); tree_sha256, files: a tree's hash and number of files. required: the reader needs it. one_of: the
    group of alternatives it belongs to. alternatives: other places the reader accepts. unless_option: a reader
    option that supplies it instead. part: one part of the dataset the reader checks itself. archive: the file name
    a tree's zip is saved under. members / stands_in_for: names inside an archive (the final files, and the stand-ins
    an archive holds for them: CEREC). note: what it is.
    """

    path: str
    kind: EntryKind = "file"
    url: str | None = None
    alternative_urls: tuple[str, ...] = ()
    size: int | None = None
    sha256: str | None = None
    git_blob: str | None = None
    tree_sha256: str | None = None
    files: int | None = None
    required: bool = False
    one_of: str | None = None
    alternatives: tuple[str, ...] = ()
    unless_option: str | None = None
    part: bool = False
    archive: str | None = None
    members: Mapping[str, str] = field(default_factory=dict, hash=False)
    stands_in_for: Mapping[str, str] = field(default_factory=dict, hash=False)
    note: str = ""

    @property
    def is_tree(self) -> bool:
        return self.kind == "tree"

    @property
    def urls(self) -> list[str]:
        """``url``, then the alternative URLs."""
        return [url for url in [self.url, *self.alternative_urls] if url]

    def expected_line(self) -> str:
        """The entry as the missing-files message lists it: path, checks, group, URL."""
        checks = [
            f"{name} {value}"
            for name, value in (
                ("size", self.size),
                ("sha256", self.sha256),
                ("git_blob", self.git_blob),
                ("tree_sha256", self.tree_sha256),
                ("files", self.files),
            )
            if value
        ]
        if self.one_of:
            checks.append(f"or another of group {self.one_of!r}")
        if self.url:
            checks.append(f"from {self.url}")
        return f"  {self.path}" + (f" ({', '.join(checks)})" if checks else "")


@dataclass(frozen=True)
class Manifest:
    """The raw-file manifest of one dataset (see the module docstring)."""

    dataset: str
    files: tuple[ManifestEntry, ...]
    licence: str = "not stated"
    citation: tuple[str, ...] = ()
    homepage: str = ""
    manual_steps: str | None = None
    pinned_commit: str | None = None

    @classmethod
    def parse(cls, data: object, source: str | Path = "<manifest>") -> Manifest:
        """The manifest from its JSON value; anything malformed is a FormatError naming ``source`` and the key."""
        top = _object(data, source, "the manifest")
        _known_keys(top, _MANIFEST_KEYS, source, "the manifest")
        entries = [_entry(item, source, index) for index, item in enumerate(_required(top, "files", list, source))]
        seen: set[str] = set()
        for entry in entries:
            if entry.path in seen:
                raise FormatError(source, f"entry {entry.path!r} is listed twice")
            seen.add(entry.path)
        return cls(
            dataset=_required(top, "dataset", str, source),
            files=tuple(entries),
            licence=_optional(top, "licence", str, source) or "not stated",
            citation=tuple(_strings(top, "citation", source, "the manifest")),
            homepage=_optional(top, "homepage", str, source) or "",
            manual_steps=_optional(top, "manual_steps", str, source) or None,
            pinned_commit=_optional(top, "pinned_commit", str, source),
        )

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """The manifest in the JSON file ``path`` (FileNotFoundError when there is none)."""
        return cls.parse(_json(Path(path).read_text(encoding="utf-8"), path), path)

    @classmethod
    def packaged(cls, dataset_id: str) -> Manifest:
        """The manifest shipped as ``ucdcr/manifests/<dataset_id>.json`` (FileNotFoundError when there is none)."""
        item = resources.files("ucdcr").joinpath("manifests", f"{dataset_id}.json")
        source = f"ucdcr/manifests/{dataset_id}.json"
        return cls.parse(_json(item.read_text(encoding="utf-8"), source), source)

    def entry(self, path: str) -> ManifestEntry:
        """The entry of ``path`` (KeyError when there is none)."""
        for entry in self.files:
            if entry.path == path:
                return entry
        raise KeyError(path)

    def missing(
        self, folder: Path, options_given: Collection[str] = (), only: Collection[str] | None = None
    ) -> list[str]:
        """The required entries (``only``: of these paths) not in ``folder``, each one_of group as ``a | b``;
        ``["the whole folder"]`` when the folder is not there. ``options_given``: the reader options set (an entry
        whose ``unless_option`` is among them counts as there)."""
        if not folder.is_dir():
            return ["the whole folder"]
        entries = [e for e in self.files if only is None or e.path in only]

        def there(entry: ManifestEntry) -> bool:
            if entry.unless_option in options_given:
                return True
            return any((folder / path).exists() for path in (entry.path, *entry.alternatives))

        lacking = [e.path for e in entries if e.required and not e.one_of and not e.part and not there(e)]
        lacking += [" | ".join(e.path for e in group) for group in _groups(entries) if not any(map(there, group))]
        return lacking

    def missing_message(
        self,
        dataset_id: str,
        folder: Path,
        missing: list[str],
        failures: list[str] | None = None,
        hint: str | None = None,
    ) -> str:
        """What ``download``, ``build`` and the readers say when raw files of ``dataset_id`` are missing in
        ``folder``: the names, what failed, the manual steps, licence and homepage, every expected file with its URL
        and hashes (sha256, or the git blob id where only that is known), then ``hint`` (default: what
        ``ucdcr download`` would do)."""
        lines = [f"{dataset_id}: raw files missing in {folder}: {', '.join(missing)}."]
        if failures:
            lines += ["What failed:", *(f"  {failure}" for failure in failures)]
        if self.manual_steps:
            lines += ["Manual steps:", self.manual_steps]
        lines.append(f"Licence: {self.licence}" + (f"; homepage: {self.homepage}" if self.homepage else ""))
        expected = [entry.expected_line() for entry in self.files if entry.required or entry.one_of]
        if expected:
            lines += [f"Expected under {folder}:", *expected]
        download = (
            f"`ucdcr download {dataset_id}` fetches and verifies what has a URL (--mirror DIR: from a local copy)."
        )
        lines.append(hint or download)
        return "\n".join(lines)


def _groups(entries: tuple[ManifestEntry, ...] | list[ManifestEntry]) -> list[list[ManifestEntry]]:
    """The entries of each one_of group, in manifest order."""
    found: dict[str, list[ManifestEntry]] = {}
    for entry in entries:
        if entry.one_of:
            found.setdefault(entry.one_of, []).append(entry)
    return list(found.values())


# --- parsing -------------------------------------------------------------------------------------------------

_MANIFEST_KEYS = frozenset({"dataset", "licence", "citation", "homepage", "manual_steps", "pinned_commit", "files"})


def _string_map(value: object) -> dict[str, str] | None:
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return dict(value)
    return None


def _string_list(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return None


def _exactly(kind: type) -> Callable[[object], Any]:
    """A converter accepting values of ``kind`` only (an int is no bool, a bool no int)."""
    return lambda value: value if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)) else None


def _count(value: object) -> int | None:
    """A whole number >= 0 (never a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


# key -> (converter returning None for a wrong value, what the value must be); None is always allowed
_ENTRY_FIELDS: dict[str, tuple[Callable[[object], Any], str]] = {
    "path": (_exactly(str), "a string"),
    "kind": (lambda value: value if value in ("file", "tree") else None, '"file" or "tree"'),
    "url": (_exactly(str), "a string"),
    "alternative_urls": (_string_list, "a list of strings"),
    "size": (_count, "a number of bytes"),
    "sha256": (_exactly(str), "a string"),
    "git_blob": (_exactly(str), "a string"),
    "tree_sha256": (_exactly(str), "a string"),
    "files": (_count, "a number of files"),
    "required": (_exactly(bool), "true or false"),
    "one_of": (_exactly(str), "a string"),
    "alternatives": (_string_list, "a list of strings"),
    "unless_option": (_exactly(str), "a string"),
    "part": (_exactly(bool), "true or false"),
    "archive": (_exactly(str), "a string"),
    "members": (_string_map, "an object of strings"),
    "stands_in_for": (_string_map, "an object of strings"),
    "note": (_exactly(str), "a string"),
}


def _entry(item: object, source: str | Path, index: int) -> ManifestEntry:
    where = f"files[{index}]"
    data = _object(item, source, where)
    path = data.get("path")
    if not isinstance(path, str) or not path:
        raise FormatError(source, f"{where}: no path (a string)")
    where = f"entry {path!r}"
    _known_keys(data, _ENTRY_FIELDS, source, where)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if value is None:
            continue
        convert, expected = _ENTRY_FIELDS[key]
        converted = convert(value)
        if converted is None:
            raise FormatError(source, f"{where}: {key} must be {expected}, not {value!r}")
        values[key] = converted
    return ManifestEntry(**values)


def _json(text: str, source: str | Path) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(source, f"not valid JSON ({exc})") from None


def _object(value: object, source: str | Path, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(source, f"{where} must be a JSON object, not {type(value).__name__}")
    return value


def _known_keys(data: Mapping[str, object], known: Collection[str], source: str | Path, where: str) -> None:
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise FormatError(source, f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")


def _required(data: Mapping[str, object], key: str, kind: type, source: str | Path) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise FormatError(source, f"the manifest's {key} must be {_KIND_NAMES[kind]}, not {value!r}")
    return value


def _optional(data: Mapping[str, object], key: str, kind: type, source: str | Path) -> Any:
    return None if data.get(key) is None else _required(data, key, kind, source)


def _strings(data: Mapping[str, object], key: str, source: str | Path, where: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    strings = _string_list(value)
    if strings is None:
        raise FormatError(source, f"{where}: {key} must be a list of strings, not {value!r}")
    return strings


_KIND_NAMES: dict[type, str] = {str: "a string", list: "a list"}
