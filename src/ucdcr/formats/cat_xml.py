"""Reader for CAT XML (the CROMER / CAT annotation tool format of ECB+ and MEANTIME).

One file is one document::

    <Document doc_name="1_10ecb.xml" doc_id="DOC15653231646358310" [lang=... url=...]>
      <token t_id="1" sentence="0" number="0">Perennial</token>      # number: index in the sentence (optional)
      ...
      <Markables>
        <ACTION_OCCURRENCE m_id="31"><token_anchor t_id="86"/></ACTION_OCCURRENCE>   # a mention: has anchors
        <HUMAN_PART_PER m_id="43" TAG_DESCRIPTOR="t1b_tara_reid" instance_id="HUM1623..."/>  # an instance: no anchors
      </Markables>
      <Relations>
        <CROSS_DOC_COREF r_id="37612" note="ACT1623..."><source m_id="34"/><target m_id="41"/></CROSS_DOC_COREF>
        <INTRA_DOC_COREF r_id="22159"><source m_id="20"/><target m_id="24"/></INTRA_DOC_COREF>
      </Relations>
    </Document>

The tag of a markable is its type (ECB+: ACTION_*, NEG_*, HUMAN_PART_*, ...; MEANTIME: ENTITY_MENTION,
EVENT_MENTION, ...); the tag of a relation is its kind. :func:`read_cat_xml` returns these three layers as plain
records and checks that they are consistent (unique ids, anchors pointing at existing tokens, relations pointing
at existing markables). Dataset rules (chains, types, splits) live in the dataset modules.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, NoReturn

from lxml import etree

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import decode_text, parse_xml, read_bytes


class CatToken(NamedTuple):
    """A ``<token>``: its id, text, sentence number and in-sentence number (if given)."""

    t_id: str
    text: str
    sentence: int
    number: int | None


class CatTokens(NamedTuple):
    """A document's ``<token>`` s as columns (one tuple per :class:`CatToken` field), in file order."""

    t_ids: tuple[str, ...]
    texts: tuple[str, ...]
    sentences: tuple[int, ...]
    numbers: tuple[int | None, ...]

    @classmethod
    def of(cls, tokens: list[CatToken]) -> CatTokens:
        return cls(*zip(*tokens, strict=True)) if tokens else cls((), (), (), ())


@dataclass(frozen=True, slots=True)
class CatMarkable:
    """A child of ``<Markables>``: a mention (``token_ids`` non-empty) or an instance (no anchors)."""

    m_id: str
    tag: str
    token_ids: tuple[str, ...]
    attributes: dict[str, str]
    line: int

    @property
    def is_instance(self) -> bool:
        return not self.token_ids


@dataclass(frozen=True, slots=True)
class CatRelation:
    """A child of ``<Relations>``: source markable ids -> target markable ids."""

    r_id: str
    tag: str
    sources: tuple[str, ...]
    targets: tuple[str, ...]
    attributes: dict[str, str]
    line: int


@dataclass(slots=True)
class CatDocument:
    """One CAT XML file: document attributes, tokens in file order (as columns), markables by id, relations in
    file order."""

    path: str
    attributes: dict[str, str]
    columns: CatTokens
    markables: dict[str, CatMarkable] = field(default_factory=dict)
    relations: list[CatRelation] = field(default_factory=list)
    position: dict[str, int] = field(init=False, repr=False)  # t_id -> index in tokens

    def __post_init__(self) -> None:
        self.position = dict(zip(self.columns.t_ids, range(len(self.columns.t_ids)), strict=True))

    @property
    def tokens(self) -> list[CatToken]:
        """The tokens as records (made at each call; :attr:`columns` holds them)."""
        return list(map(CatToken._make, zip(*self.columns, strict=True)))

    def mentions(self) -> list[CatMarkable]:
        """Markables anchored to tokens, in file order."""
        return [m for m in self.markables.values() if not m.is_instance]

    def anchored_tokens(self, markable: CatMarkable) -> tuple[str, ...]:
        """The token ids a mention is anchored to, each once, in document order (gaps, if any, stay gaps)."""
        t_ids = self.columns.t_ids
        return tuple(t_ids[i] for i in sorted({self.position[t_id] for t_id in markable.token_ids}))

    def filled_span(self, markable: CatMarkable) -> tuple[tuple[str, ...], bool]:
        """The token ids from the first to the last anchored token of a mention, in document order, and whether
        that filled a gap (the anchors were discontinuous)."""
        positions = sorted({self.position[t_id] for t_id in markable.token_ids})
        span = self.columns.t_ids[positions[0] : positions[-1] + 1]
        return span, len(span) != len(positions)

    def coref_links(self, tags: Collection[str]) -> CorefLinks:
        """Source mention id -> target instance markable over the relations whose tag is in ``tags``: the first
        relation of a source wins; a later one to another target is listed in ``ignored``. A coreference
        relation with other than one target is a FormatError naming its line."""
        links = CorefLinks()
        for relation in self.relations:
            if relation.tag not in tags:
                continue
            if len(relation.targets) != 1:
                raise FormatError(
                    self.path,
                    f"relation {relation.r_id} <{relation.tag}> has {len(relation.targets)} targets, expected one",
                    relation.line,
                )
            target = self.markables[relation.targets[0]]
            for source in relation.sources:
                kept = links.target.setdefault(source, target)
                if kept.m_id != target.m_id:
                    links.ignored.append((source, kept, target))
        return links


@dataclass(slots=True)
class CorefLinks:
    """What :meth:`CatDocument.coref_links` found: each source's target, and the later links that were ignored as
    ``(source m_id, kept target, ignored target)``."""

    target: dict[str, CatMarkable] = field(default_factory=dict)
    ignored: list[tuple[str, CatMarkable, CatMarkable]] = field(default_factory=list)


def read_cat_xml(source: str | Path | bytes, name: str | None = None) -> CatDocument:
    """Read one CAT XML document from a path or from bytes (e.g. a zip member; ``name`` is used in errors)."""
    path = name or (str(source) if not isinstance(source, bytes) else "<bytes>")
    data = source if isinstance(source, bytes) else read_bytes(Path(source))
    root, columns = _parse(data, path)
    token_ids = set(columns.t_ids)
    if len(token_ids) < len(columns.t_ids):
        _duplicate_token(data, path)
    markables = _read_markables(root, path, token_ids)
    relations = _read_relations(root, path, markables)
    return CatDocument(path, dict(root.attrib), columns, markables, relations)


def _parse(data: bytes, path: str) -> tuple[etree._Element, CatTokens]:
    """The root element and the tokens. Where the tokens are plain (:func:`_plain_tokens`), they are read from
    the text and the parser reads the rest (the tokens' part of the document given as its line breaks alone, so
    every other element keeps its line); else the parser reads the whole document and the tokens are its
    ``<token>`` children. A document that is not well-formed gets the error of the whole document's parse."""
    plain = _plain_tokens(decode_text(data, path), data)
    if plain is not None:
        try:
            return _root(plain.without_tokens, path), plain.columns
        except FormatError:
            pass  # the whole document's parse below names what is wrong, where
    root = _root(data, path)
    tokens = _tokens_one_by_one(root, path)
    if not tokens:
        raise FormatError(path, "document has no <token> elements")
    return root, CatTokens.of(tokens)


def _root(data: bytes, path: str) -> etree._Element:
    root = parse_xml(data, path)
    if root.tag != "Document":
        raise FormatError(path, f"root element is <{root.tag}>, expected <Document>", root.sourceline)
    return root


def _duplicate_token(data: bytes, path: str) -> NoReturn:
    """The FormatError of a token id given twice, naming the second one's line."""
    seen: set[str] = set()
    for element in _root(data, path).iterchildren("token"):
        t_id = str(element.get("t_id"))
        if t_id in seen:
            raise FormatError(path, f"duplicate token t_id {t_id!r}", element.sourceline)
        seen.add(t_id)
    raise AssertionError("no duplicate token id")


def _required(element: etree._Element, attribute: str, path: str) -> str:
    value = element.get(attribute)
    if value is None:
        raise FormatError(path, f"<{element.tag}> has no {attribute} attribute", element.sourceline)
    return value


def _as_int(value: str, what: str, element: etree._Element, path: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise FormatError(path, f"{what} {value!r} of <{element.tag}> is not an integer", element.sourceline) from None


_get = etree._Element.get
_ATTRIBUTE = (
    r'"([^"<&\t\n\r]*)"'  # a value the parser gives as it is written (no reference, no whitespace to normalize)
)
_PLAIN_TOKENS = (  # the attributes in ECB+'s order and in MEANTIME's; the groups: t_id, sentence, number, text
    re.compile(rf"<token t_id={_ATTRIBUTE} sentence={_ATTRIBUTE} number={_ATTRIBUTE}>([^<\r]*)</token>"),
    re.compile(rf"<token number={_ATTRIBUTE} sentence={_ATTRIBUTE} t_id={_ATTRIBUTE}>([^<\r]*)</token>"),
)
_TOKENS_END = "</token>"
# What may come before the tokens: an XML declaration and the root's start tag (not an empty element)
_BEFORE_TOKENS = re.compile(r"\s*(?:<\?xml\s[^<>]*\?>\s*)?<Document(?:\s[^<>]*)?(?<!/)>\s*")
_NOT_XML_CHARACTER = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_XML_BYTES = b"\t\n\r" + bytes(range(0x20, 0x100))  # UTF-8 of the characters XML allows, but U+FFFE and U+FFFF
_NOT_XML_UTF8 = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")  # U+FFFE, U+FFFF
_REFERENCE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


class _PlainTokens(NamedTuple):
    """A document's tokens read from its text, and the document without them (UTF-8)."""

    columns: CatTokens
    without_tokens: bytes


def _plain_tokens(text: str, data: bytes) -> _PlainTokens | None:
    """The tokens read from the document's text (``data`` decoded) when they are plain, else None
    (:func:`_tokens_one_by_one` reads the parsed elements, and names what is wrong). Plain: every ``<token`` of the
    text (but ``<token_anchor``) is written ``<token t_id="1" sentence="0" number="0">word</token>`` (attributes
    in ECB+'s or MEANTIME's order, the word escaped by the XML character references at most), and they come one
    after another, nothing but whitespace between them, right after the root's start tag (and an XML
    declaration): they are the root's ``<token>`` children, with the words and attributes the parser would give,
    and no other markup, reference, ``]]>`` or character XML forbids is among them (none is in the document).
    Read so, they cost a third of the parser's time."""
    if data.translate(None, _XML_BYTES) or any(map(data.__contains__, _NOT_XML_UTF8)):
        return None  # a character XML forbids: the parser names it
    ecb_order, meantime_order = _PLAIN_TOKENS
    pattern, found = ecb_order, ecb_order.findall(text)
    if not found:
        pattern, found = meantime_order, meantime_order.findall(text)
    if not found or len(found) != text.count("<token") - text.count("<token_anchor"):
        return None
    start = pattern.search(text).start()  # type: ignore[union-attr]  # (found)
    end = text.rindex(_TOKENS_END) + len(_TOKENS_END)
    if pattern is ecb_order:
        ids, sentences, numbers, texts = zip(*found, strict=True)
    else:
        numbers, sentences, ids, texts = zip(*found, strict=True)
    if not (_BEFORE_TOKENS.fullmatch(text, 0, start) and _only_tokens(text, start, end, len(found), texts)):
        return None
    try:
        words = list(map(_unescape, texts)) if "&" in text else texts
        if words is not texts and _NOT_XML_CHARACTER.search("".join(words)):
            return None  # a character reference to a character XML forbids
        columns = CatTokens(ids, tuple(words), tuple(map(int, sentences)), tuple(map(int, numbers)))
    except (ValueError, OverflowError):  # a number that is not an integer, an entity reference, a reference to no
        return None  # character: the parser's tokens say which
    without = text[:start] + "\n" * text.count("\n", start, end) + text[end:]
    return _PlainTokens(columns, without.encode())


def _only_tokens(text: str, start: int, end: int, count: int, texts: tuple[str, ...]) -> bool:
    """``text[start:end]`` is ``count`` plain tokens (whose words are ``texts``) and whitespace: no other markup
    (each token has two ``<``), no reference outside a word and no ``]]>``; no carriage return (the line breaks
    are kept as line feeds)."""
    return (
        text.count("<", start, end) == 2 * count
        and text.find("\r", start, end) < 0
        and text.find("]]>", start, end) < 0
        and (text.find("&", start, end) < 0 or text.count("&", start, end) == sum(word.count("&") for word in texts))
    )


def _unescape(text: str) -> str:
    """Text content with its XML character references replaced (another entity reference is a ValueError)."""
    if "&" not in text:
        return text
    replaced = _REFERENCE.sub(_character, text)
    if "&" in _REFERENCE.sub("", text):
        raise ValueError(text)
    return replaced


def _character(match: re.Match[str]) -> str:
    name, decimal, hexadecimal = match.groups()
    return _PREDEFINED[name] if name else chr(int(decimal) if decimal else int(hexadecimal, 16))


def _tokens_one_by_one(root: etree._Element, path: str) -> list[CatToken]:
    tokens: list[CatToken] = []
    for element in root.iterchildren("token"):
        attributes = element.attrib
        t_id, sentence, number = attributes.get("t_id"), attributes.get("sentence"), attributes.get("number")
        if t_id is None or sentence is None:
            _check_token(element, path)
        try:
            numbers = int(str(sentence)), None if number is None else int(number)
            tokens.append(CatToken(str(t_id), element.text or "", *numbers))
        except ValueError:  # the element's line is looked up only here (sourceline costs per token)
            _check_token(element, path)
            raise
    return tokens


def _check_token(element: etree._Element, path: str) -> None:
    """The FormatError of a ``<token>`` without t_id or sentence, or with a non-integer sentence or number."""
    _required(element, "t_id", path)
    _as_int(_required(element, "sentence", path), "sentence", element, path)
    number = element.get("number")
    if number is not None:
        _as_int(number, "number", element, path)


def _read_markables(root: etree._Element, path: str, token_ids: set[str]) -> dict[str, CatMarkable]:
    markables: dict[str, CatMarkable] = {}
    for container in root.iterchildren("Markables"):
        for element in container.iterchildren(tag=etree.Element):
            m_id = _get(element, "m_id")
            if m_id is None:
                m_id = _required(element, "m_id", path)
            if m_id in markables:
                raise FormatError(path, f"duplicate markable m_id {m_id!r}", element.sourceline)
            anchors = tuple([_get(a, "t_id") for a in element.iterchildren("token_anchor")])
            if None in anchors:
                anchors = tuple(_required(a, "t_id", path) for a in element.iterchildren("token_anchor"))
            if not token_ids.issuperset(anchors):
                t_id = next(t_id for t_id in anchors if t_id not in token_ids)
                raise FormatError(
                    path, f"markable {m_id} <{element.tag}> points at missing token t_id {t_id!r}", element.sourceline
                )
            attributes = dict(element.attrib)
            del attributes["m_id"]
            markables[m_id] = CatMarkable(m_id, element.tag, anchors, attributes, element.sourceline or 0)
    return markables


def _read_relations(root: etree._Element, path: str, markables: dict[str, CatMarkable]) -> list[CatRelation]:
    relations: list[CatRelation] = []
    for container in root.iterchildren("Relations"):
        for element in container.iterchildren(tag=etree.Element):
            r_id = element.get("r_id", "")
            ends: dict[str, list[str]] = {"source": [], "target": []}
            for end in element.iterchildren("source", "target"):
                m_id = _required(end, "m_id", path)
                if m_id not in markables:
                    raise FormatError(
                        path,
                        f"relation {r_id} <{element.tag}> points at missing markable m_id {m_id!r}",
                        end.sourceline,
                    )
                ends[end.tag].append(m_id)
            attributes = {k: v for k, v in element.attrib.items() if k != "r_id"}
            relations.append(
                CatRelation(
                    r_id, element.tag, tuple(ends["source"]), tuple(ends["target"]), attributes, element.sourceline or 0
                )
            )
    return relations
