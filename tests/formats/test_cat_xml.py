"""CAT XML reader on tiny documents written in the original format (see ucdcr.formats.cat_xml)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats import cat_xml
from ucdcr.formats.cat_xml import read_cat_xml
from ucdcr.formats.inputs import parse_xml, parse_xml_text

DOCUMENT = """<Document doc_name="1_10ecb.xml" doc_id="DOC1">
<token t_id="1" sentence="0" number="0">Tara</token>
<token t_id="2" sentence="0" number="1">Reid</token>
<token t_id="3" sentence="0" number="2">checked</token>
<token t_id="4" sentence="0" number="3">herself</token>
<token t_id="5" sentence="0" number="4">into</token>
<token t_id="6" sentence="0" number="5">rehab</token>
<token t_id="7" sentence="1" number="0">.</token>
<Markables>
<HUMAN_PART_PER m_id="20"><token_anchor t_id="1"/><token_anchor t_id="2"/></HUMAN_PART_PER>
<ACTION_OCCURRENCE m_id="32"><token_anchor t_id="3"/><token_anchor t_id="5"/></ACTION_OCCURRENCE>
<HUMAN_PART_PER m_id="43" RELATED_TO="" TAG_DESCRIPTOR="t1b_tara_reid" instance_id="HUM1"/>
</Markables>
<Relations>
<CROSS_DOC_COREF r_id="1" note="HUM1"><source m_id="20"/><target m_id="43"/></CROSS_DOC_COREF>
</Relations>
</Document>
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "1_10ecb.xml"
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_tokens_markables_and_relations(tmp_path: Path) -> None:
    doc = read_cat_xml(write(tmp_path, DOCUMENT))
    assert doc.attributes["doc_name"] == "1_10ecb.xml"
    assert [(t.t_id, t.text, t.sentence, t.number) for t in doc.tokens[:2]] == [
        ("1", "Tara", 0, 0),
        ("2", "Reid", 0, 1),
    ]
    assert len(doc.tokens) == 7
    mentions = doc.mentions()
    assert [(m.m_id, m.tag, m.token_ids) for m in mentions] == [
        ("20", "HUMAN_PART_PER", ("1", "2")),
        ("32", "ACTION_OCCURRENCE", ("3", "5")),  # discontinuous anchors are kept as given
    ]
    instance = doc.markables["43"]
    assert instance.is_instance and instance.attributes["instance_id"] == "HUM1"
    relation = doc.relations[0]
    assert (relation.tag, relation.sources, relation.targets, relation.attributes["note"]) == (
        "CROSS_DOC_COREF",
        ("20",),
        ("43",),
        "HUM1",
    )


def test_reads_bytes_with_a_name() -> None:
    doc = read_cat_xml(DOCUMENT.encode(), name="ECB+.zip:ECB+/1/1_10ecb.xml")
    assert doc.path == "ECB+.zip:ECB+/1/1_10ecb.xml" and len(doc.tokens) == 7


def test_truncated_xml_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, DOCUMENT[: DOCUMENT.index("<Markables>")])
    with pytest.raises(FormatError) as error:
        read_cat_xml(path)
    assert str(path) in str(error.value) and "malformed XML" in str(error.value)
    assert error.value.line is not None


def test_markable_pointing_at_missing_token(tmp_path: Path) -> None:
    path = write(tmp_path, DOCUMENT.replace('<token_anchor t_id="2"/>', '<token_anchor t_id="99"/>'))
    with pytest.raises(FormatError, match=r"markable 20 <HUMAN_PART_PER> points at missing token t_id '99'") as error:
        read_cat_xml(path)
    assert error.value.line == 10  # the line of <HUMAN_PART_PER m_id="20"> in DOCUMENT


def test_relation_pointing_at_missing_markable(tmp_path: Path) -> None:
    path = write(tmp_path, DOCUMENT.replace('<target m_id="43"/>', '<target m_id="44"/>'))
    with pytest.raises(FormatError, match="relation 1 <CROSS_DOC_COREF> points at missing markable m_id '44'"):
        read_cat_xml(path)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('t_id="2" sentence="0"', 't_id="1" sentence="0"', "duplicate token t_id '1'"),
        ('t_id="2" sentence="0"', 't_id="2" sentence="x"', "sentence 'x' of <token> is not an integer"),
        ('t_id="2" sentence="0"', 't_id="2"', "<token> has no sentence attribute"),
        ("<Document", "<Doc", "root element is <Doc>"),
    ],
)
def test_malformed_attributes(tmp_path: Path, old: str, new: str, message: str) -> None:
    text = DOCUMENT.replace(old, new, 1)
    if new == "<Doc":
        text = text.replace("</Document>", "</Doc>")
    with pytest.raises(FormatError, match=message):
        read_cat_xml(write(tmp_path, text))


def test_empty_document_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no <token> elements"):
        read_cat_xml(write(tmp_path, '<Document doc_name="x"></Document>'))


ECB_ATTRIBUTES = r't_id="(\d+)" sentence="(\d+)" number="(\d+)"'
MEANTIME_ORDER = re.sub(ECB_ATTRIBUTES, r'number="\3" sentence="\2" t_id="\1"', DOCUMENT)
ELSEWHERE = '<token t_id="9" sentence="1" number="1">x</token>'


@pytest.mark.parametrize(
    ("document", "read_from_text"),
    [
        (DOCUMENT, True),  # ECB+'s attribute order
        (MEANTIME_ORDER, True),
        (DOCUMENT.replace(">Reid<", ">R&amp;D &lt;&#233;&#x41;&gt;<"), True),  # character references
        (DOCUMENT.replace("<Markables>", f"<!-- {ELSEWHERE} -->\n<Markables>"), False),  # in a comment: no token
        (DOCUMENT.replace("<Markables>", f"<Extra>{ELSEWHERE}</Extra>\n<Markables>"), False),  # not the root's child
        (DOCUMENT.replace('number="2">checked', 'number="2" lang="en">checked'), False),  # another attribute
        (DOCUMENT.replace("</token>\n<token", "</token><!-- x --><token", 1), False),  # other markup between them
        (DOCUMENT.replace("</token>\n<token", "</token> &amp; <token", 1), False),  # a reference between them
        (DOCUMENT.replace("</token>\n<token", "</token>\r\n<token", 1), False),  # a carriage return
        (DOCUMENT.replace("<Document", '<?xml version="1.0"?>\n<Document'), True),  # an XML declaration
        (DOCUMENT.replace("<Document", "<!DOCTYPE Document>\n<Document"), False),  # anything else before them
        (DOCUMENT.replace(">Reid<", ">Re]]id<"), True),
    ],
)
def test_tokens_read_from_the_text_are_the_parsers(document: str, read_from_text: bool) -> None:
    # the tokens are read from the text where they are plain, one after another right after the root's start tag
    # (the parser reads the rest), else from the parsed elements; either way they are the parser's, and so are
    # the markables' lines
    root, text = parse_xml_text(document.encode(), "doc.xml")
    plain = cat_xml._plain_tokens(text, document.encode())
    assert (plain is not None) is read_from_text
    read = read_cat_xml(document.encode())
    assert read.tokens == cat_xml._tokens_one_by_one(root, "doc.xml")
    assert [m.line for m in read.markables.values()] == [m.sourceline for m in root.find("Markables")]
    if plain is not None:
        assert parse_xml(plain.without_tokens, "doc.xml").find("token") is None


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (">Reid<", ">Re&#1;id<", "malformed XML"),  # a reference to a character XML forbids
        (">Reid<", ">Re\x01id<", "malformed XML"),  # a character XML forbids
        (">Reid<", ">Re]]>id<", "malformed XML"),
        (">Reid<", ">Re&nbsp;id<", "malformed XML"),  # an entity the document does not declare
        ("<Markables>", "<Markables", "malformed XML"),  # after the tokens
    ],
)
def test_malformed_tokens_are_the_parsers_errors(old: str, new: str, message: str) -> None:
    document = DOCUMENT.replace(old, new, 1).encode()
    with pytest.raises(FormatError, match=message) as error:
        read_cat_xml(document, name="doc.xml")
    with pytest.raises(FormatError) as parsers:
        parse_xml_text(document, "doc.xml")
    assert (str(error.value), error.value.line) == (str(parsers.value), parsers.value.line)
