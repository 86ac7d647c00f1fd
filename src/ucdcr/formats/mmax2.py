"""MMAX2 stand-off annotation (Müller & Strube 2006), as used by NP4E and NIdent.

A corpus folder holds one MMAX2 project per document plus shared folders::

    <folder>/<doc>.mmax                      project file; <words>X_words.xml</words> names the base data
    <folder>/common_paths.xml                optional; <basedata_path>, <markable_path> (defaults Basedata/, markables/)
    <folder>/Basedata/<doc>_words.xml        <words><word id="word_1">ZAIRE</word>…</words>
    <folder>/markables/<doc>_<level>_level.xml
        <markables xmlns="www.eml.org/NameSpaces/<level>">
          <markable id="markable_0" span="word_14..word_15" mmax_level="coref" coref_set="set_13" …/>

Spans: comma-separated fragments, each a single word id (``word_7``) or an inclusive range in document order
(``word_3..word_9``); e.g. ``word_1..word_3,word_5`` is a discontinuous markable. Every other attribute of a
markable is kept as a string in :attr:`Markable.attributes` (``coref_set``, ``dir_antecedent``, ``min_ids``…).
The ``sentence`` level gives sentence boundaries: sentence k (0-based) is the k-th sentence markable in document
order; a word outside every sentence markable is an error.

Errors (unknown word ids, malformed spans, missing files, broken XML) raise
:class:`~ucdcr.errors.FormatError` naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import read_xml

DEFAULT_BASEDATA = "Basedata"
DEFAULT_MARKABLES = "markables"


@dataclass(frozen=True, slots=True)
class Word:
    """One base-data word: its MMAX2 id and text."""

    word_id: str
    text: str


@dataclass(slots=True)
class Markable:
    """One markable of a level: its id, the word ids it covers (document order) and its other attributes."""

    markable_id: str
    word_ids: tuple[str, ...]
    attributes: dict[str, str] = field(default_factory=dict)
    line: int | None = None
    fragments: int = 1  # number of comma-separated span fragments (> 1: discontinuous)


@dataclass(slots=True)
class MmaxDocument:
    """A parsed MMAX2 project: words, the sentence number of every word, and the markables of the levels read."""

    name: str  # project file stem, e.g. "381791newsML"
    words: list[Word]
    sentence_of: dict[str, int]
    levels: dict[str, list[Markable]]
    files: list[Path] = field(default_factory=list)


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def read_words(path: Path) -> list[Word]:
    """The ``<word id=…>`` elements of a base-data file, in file (= document) order."""
    root = read_xml(path)
    words: list[Word] = []
    seen: set[str] = set()
    for element in root:
        if _local(element.tag) != "word":
            continue
        word_id = element.get("id")
        if not word_id:
            raise FormatError(path, "<word> without id", element.sourceline)
        if word_id in seen:
            raise FormatError(path, f"duplicate word id {word_id!r}", element.sourceline)
        seen.add(word_id)
        words.append(Word(word_id, element.text or ""))
    if not words:
        raise FormatError(path, "no <word> elements")
    return words


def parse_span(span: str, position: dict[str, int], order: list[str], path: Path, line: int | None) -> list[str]:
    """Word ids of a span string (``word_1..word_3,word_5``), in document order, checked against the base data."""
    word_ids: list[str] = []
    for fragment in span.split(","):
        fragment = fragment.strip()
        first, sep, last = fragment.partition("..")
        last = last if sep else first
        for word_id in (first, last):
            if word_id not in position:
                raise FormatError(path, f"span {span!r} names unknown word id {word_id!r}", line)
        start, end = position[first], position[last]
        if end < start:
            raise FormatError(path, f"span {span!r} runs backwards ({first} after {last})", line)
        word_ids.extend(order[start : end + 1])
    return sorted(dict.fromkeys(word_ids), key=position.__getitem__)


def read_markables(path: Path, words: list[Word]) -> list[Markable]:
    """The markables of one level file, spans resolved to word ids (file order kept)."""
    root = read_xml(path)
    order = [w.word_id for w in words]
    position = {word_id: i for i, word_id in enumerate(order)}
    markables: list[Markable] = []
    for element in root:
        if _local(element.tag) != "markable":
            continue
        markable_id, span = element.get("id"), element.get("span")
        if not markable_id or not span:
            raise FormatError(path, "<markable> needs both id and span attributes", element.sourceline)
        word_ids = parse_span(span, position, order, path, element.sourceline)
        attributes = {k: v for k, v in element.attrib.items() if k not in ("id", "span")}
        markables.append(Markable(markable_id, tuple(word_ids), attributes, element.sourceline, span.count(",") + 1))
    return markables


def sentence_numbers(sentences: list[Markable], words: list[Word], path: Path) -> dict[str, int]:
    """Word id -> 0-based sentence number, sentences numbered in document order."""
    position = {w.word_id: i for i, w in enumerate(words)}
    ordered = sorted(sentences, key=lambda m: position[m.word_ids[0]])
    sentence_of: dict[str, int] = {}
    for number, sentence in enumerate(ordered):
        for word_id in sentence.word_ids:
            sentence_of.setdefault(word_id, number)
    missing = [w.word_id for w in words if w.word_id not in sentence_of]
    if missing:
        raise FormatError(path, f"{len(missing)} words are in no sentence markable, first {missing[0]!r}")
    return sentence_of


def _folder_paths(folder: Path) -> tuple[Path, Path]:
    common = folder / "common_paths.xml"
    basedata, markables = DEFAULT_BASEDATA, DEFAULT_MARKABLES
    if common.exists():
        root = read_xml(common)
        for element in root:
            name, text = _local(element.tag), (element.text or "").strip()
            if name == "basedata_path" and text:
                basedata = text
            elif name == "markable_path" and text:
                markables = text
    return folder / basedata, folder / markables


def words_file_of(project: Path) -> str:
    """The base-data file name a ``.mmax`` project file names in ``<words>``."""
    root = read_xml(project)
    for element in root:
        if _local(element.tag) == "words" and (element.text or "").strip():
            return (element.text or "").strip()
    raise FormatError(project, "project file has no <words> entry")


def read_project(project: Path, levels: tuple[str, ...] = ("coref",)) -> MmaxDocument:
    """Read one ``.mmax`` project: its words, sentences, and the markables of ``levels``."""
    basedata_dir, markables_dir = _folder_paths(project.parent)
    words_path = basedata_dir / words_file_of(project)
    words = read_words(words_path)
    stem = project.stem
    sentence_path = markables_dir / f"{stem}_sentence_level.xml"
    sentence_of = sentence_numbers(read_markables(sentence_path, words), words, sentence_path)
    level_markables: dict[str, list[Markable]] = {}
    files = [project, words_path, sentence_path]
    for level in levels:
        level_path = markables_dir / f"{stem}_{level}_level.xml"
        level_markables[level] = read_markables(level_path, words)
        files.append(level_path)
    return MmaxDocument(stem, words, sentence_of, level_markables, files)


def project_files(folder: Path) -> list[Path]:
    """The ``.mmax`` project files of a corpus folder, sorted by name."""
    return sorted(folder.glob("*.mmax"))
