"""NIdent-EN XML (Recasens, Martí & Orasan 2012; http://clic.ub.edu/corpus/en/nident), one file per document.

Not MMAX2: the English NIdent files are AnCora-style inline XML (as read by uCDCR's parse_nident.py), e.g.
``english-corpus/20111107.near2_381791newsML.xml``::

    <document>
      <sentence>
        <sn markerid="m1" entity="entity3" identdegree="3">
          <w wd="The" wdid="w1"/> <w wd="rebels" wdid="w2"/>
        </sn>
        <w wd="captured" wdid="w3"/> ...
      </sentence>
      ...
    </document>

- Every child of the root is a sentence (numbered 0.. in file order); the tag names of the root, sentences and
  words are not fixed.
- A word is an element without children that has a ``wd`` attribute (its text) and normally a ``wdid`` (its id;
  a word without one gets ``P<n>``, as in uCDCR).
- A mention is an ``sn`` element at any depth (mentions nest); its tokens are the words below it.
  ``markerid`` = mention id, ``entity`` = within-document chain, ``identdegree`` = the relation to the chain:
  ``3`` identity (the default when absent), ``2`` near-identity, ``1`` non-identity.
- An ``sn`` without words (an empty, elliptical mention) is reported, not read as a token.

The document id is the number in the last ``_``-separated part of the file name (``381791``), which is the
NP4E document id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import read_xml

MENTION_TAG = "sn"
IDENTITY_DEGREES = {"3": "IDENTITY", "2": "NEAR_IDENTITY", "1": "NON_IDENTITY"}
DEFAULT_DEGREE = "3"


@dataclass(frozen=True, slots=True)
class NidentWord:
    word_id: str
    text: str
    sentence: int


@dataclass(frozen=True, slots=True)
class NidentMention:
    marker_id: str
    entity: str | None  # within-document chain; None if the mention has no entity attribute
    degree: str  # "3", "2" or "1"
    word_ids: tuple[str, ...]
    sentence: int
    line: int | None


@dataclass(slots=True)
class NidentDocument:
    path: Path
    doc_id: str
    words: list[NidentWord] = field(default_factory=list)
    mentions: list[NidentMention] = field(default_factory=list)


def document_id(path: Path) -> str:
    """``20111107.near2_381791newsML.xml`` -> ``381791``."""
    digits = re.sub(r"\D+", "", path.name.split("_")[-1])
    if not digits:
        raise FormatError(path, "file name has no document number after its last '_'")
    return digits


def read_nident_xml(path: Path) -> NidentDocument:
    """Parse one NIdent XML file (raises FormatError with the line of the problem)."""
    root = read_xml(path)
    document = NidentDocument(path, document_id(path))
    sentences = [child for child in root if isinstance(child.tag, str)]
    if not sentences:
        raise FormatError(path, "the document has no sentences", root.sourceline)
    word_ids = _read_words(path, document, sentences)
    for number, sentence in enumerate(sentences):
        for element in sentence.iter(MENTION_TAG):
            document.mentions.append(_mention(path, element, number, word_ids))
    return document


def _is_word(element: etree._Element) -> bool:
    return isinstance(element.tag, str) and len(element) == 0 and element.get("wd") is not None


def _read_words(path: Path, document: NidentDocument, sentences: list[etree._Element]) -> dict[etree._Element, str]:
    """All words in document order; returns element -> word id (``P<n>`` where ``wdid`` is missing)."""
    word_ids: dict[etree._Element, str] = {}
    seen: set[str] = set()
    synthetic = 0
    for number, sentence in enumerate(sentences):
        for element in sentence.iter():
            if not _is_word(element):
                continue
            word_id = element.get("wdid")
            if not word_id:
                word_id, synthetic = f"P{synthetic}", synthetic + 1
            if word_id in seen:
                raise FormatError(path, f"word id {word_id!r} occurs twice", element.sourceline)
            seen.add(word_id)
            word_ids[element] = word_id
            document.words.append(NidentWord(word_id, element.get("wd"), number))
    if not document.words:
        raise FormatError(path, "the document has no words (elements with a wd attribute)")
    return word_ids


def _mention(path: Path, element: etree._Element, sentence: int, word_ids: dict[etree._Element, str]) -> NidentMention:
    marker_id = element.get("markerid")
    if not marker_id:
        raise FormatError(path, "an sn element has no markerid", element.sourceline)
    degree = element.get("identdegree", DEFAULT_DEGREE)
    if degree not in IDENTITY_DEGREES:
        raise FormatError(path, f"mention {marker_id}: identdegree {degree!r} is not 1, 2 or 3", element.sourceline)
    words = tuple(word_ids[e] for e in element.iter() if _is_word(e))
    return NidentMention(marker_id, element.get("entity"), degree, words, sentence, element.sourceline)
