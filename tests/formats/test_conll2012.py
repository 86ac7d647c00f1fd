"""ucdcr.formats.conll2012, the CoNLL-2012 reader and writer: bracket rules, documents, every malformed input."""

from __future__ import annotations

from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats.conll2012 import bracket_labels, parse_brackets, read_blocks, read_conll, write_conll
from ucdcr.scoring.scores import score_files


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def document(name: str, columns: list[str]) -> str:
    rows = [f"{name}\t{i}\tw{i}\t{column}" if column else "" for i, column in enumerate(columns)]
    return f"#begin document {name}\n" + "\n".join(rows) + "\n#end document\n"


def test_brackets_nesting_and_order(tmp_path: Path) -> None:
    path = write(tmp_path, "k", document("(d); part 000", ["(1|(2", "2)", "(1)|1)", "-", "(x)", "(05)|(5)"]))
    doc = read_conll(path).documents["(d); part 000"]
    assert doc.n_tokens == 6
    # chains by first appearance; one-token mentions before closes on a token; string and zero-padded ids kept
    assert doc.chains == {"1": [(2, 2), (0, 2)], "2": [(0, 1)], "x": [(4, 4)], "05": [(5, 5)], "5": [(5, 5)]}


def test_parse_brackets_gives_singles_opens_and_closes_in_column_order() -> None:
    assert parse_brackets("(10|9)|(8)", "f", 1) == (["8"], ["10"], ["9"])
    assert parse_brackets("(1(2", "f", 1) == ([], ["1", "2"], [])


class _Lines:
    """A document reader that keeps (line, number, sentence) of every token line."""

    def __init__(self, name: str, line: int) -> None:
        self.name, self.line, self.tokens = name, line, []

    def add(self, line: str, number: int, sentence: int) -> None:
        self.tokens.append((line, number, sentence))

    def finish(self, number: int) -> tuple[str, int, int, list]:
        return self.name, self.line, number, self.tokens


def test_read_blocks_numbers_sentences_and_ignores_or_refuses_lines_outside() -> None:
    lines = ["outside", "#begin document (a); part 000", "x", "", " ", "y", "# z", "#end document", "", "tail"]
    (document,) = read_blocks(lines, "f", _Lines, lines_outside="ignore")
    # two blank lines are one sentence break; a "#" line inside a document is a token
    assert document == ("(a); part 000", 2, 8, [("x", 3, 0), ("y", 6, 1), ("# z", 7, 1)])
    with pytest.raises(FormatError, match="f:1: token line outside #begin/#end document"):
        read_blocks(lines, "f", _Lines, lines_outside="refuse")
    with pytest.raises(FormatError, match="f: the file is empty: not a CoNLL-2012 coreference file"):
        read_blocks(["", " "], "f", _Lines, lines_outside="refuse")


def test_bracket_labels_open_longer_first_then_singles_then_close_shorter_first() -> None:
    # token 2: opens c (2..4), is b, closes d (1..2) before the longer a (0..2); same-span chains by id
    mentions = [(0, 2, "a"), (2, 2, "b"), (2, 4, "c"), (1, 2, "d"), (3, 3, "y"), (3, 3, "x")]
    assert bracket_labels(6, mentions) == ["(a", "(d", "(c|(b)|d)|a)", "(x)|(y)", "c)", "-"]


def test_sentence_breaks_do_not_count_and_mentions_cross_them(tmp_path: Path) -> None:
    path = write(tmp_path, "k", "#begin document d\na\t(1\n\n  \nb\t-\n\nc\t1)\n#end document\n")
    doc = read_conll(path).documents["d"]
    assert (doc.n_tokens, doc.chains) == (3, {"1": [(0, 2)]})


def test_close_then_open_of_one_chain_on_a_token(tmp_path: Path) -> None:
    # opens are handled before closes (v8.01): "1)|(1" on token 1 pairs the new open -> (1,1), then (0,2)
    path = write(tmp_path, "k", document("d", ["(1", "1)|(1", "1)"]))
    assert read_conll(path).documents["d"].chains == {"1": [(1, 1), (0, 2)]}


def test_space_separated_columns_and_unseparated_labels(tmp_path: Path) -> None:
    path = write(tmp_path, "k", "#begin document d\nd 0 0 w (1(2\nd 0 1 w 2)\nd 0 2 w 1)\n#end document\n")
    assert read_conll(path).documents["d"].chains == {"1": [(0, 2)], "2": [(0, 1)]}


def test_trailing_tab_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "k"
    path.write_bytes(b"#begin document d\r\nw\t(1)\t\r\nw\t(1)\r\n#end document\r\n")
    doc = read_conll(path).documents["d"]
    assert (doc.name, doc.chains) == ("d", {"1": [(0, 0), (1, 1)]})


def test_repeated_document_name_keeps_the_last_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "k", document("d", ["(1)"]) + document("d", ["(2)"]))
    parsed = read_conll(path)
    assert parsed.documents["d"].chains == {"2": [(0, 0)]}
    assert "occurs again" in parsed.warnings[0]


@pytest.mark.parametrize(
    "text, line, problem",
    [
        (document("d", ["(1", "-", "2)"]), 4, "closing bracket '2)'"),
        (document("d", ["(1", "-", "-"]), 5, "never closed: '(1' at line 2"),
        ("#begin document d\nw\t(1)\n", 2, "never closed: end of file"),
        ("#begin document d\nw\t(1)\n" + document("e", ["-"]), 3, "never closed: new #begin document"),
        ("w\t-\n#end document\n", 2, "#end document without a matching #begin document"),
        (document("d", ["(1)", "1)x"]), 3, "cannot parse coreference annotation"),
    ],
    ids=[
        "close-without-open",
        "unclosed-mention",
        "eof-inside-document",
        "begin-inside-document",
        "end-without-begin",
        "garbage",
    ],
)
def test_malformed_input_names_file_line_and_problem(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = write(tmp_path, "bad.conll", text)
    with pytest.raises(FormatError) as error:
        read_conll(path)
    assert error.value.path == str(path)
    assert error.value.line == line
    assert problem in error.value.problem
    assert f"bad.conll:{line}:" in str(error.value)


def test_token_counts_must_agree(tmp_path: Path) -> None:
    key = write(tmp_path, "key", document("d", ["(1)", "-", "(1)"]))
    response = write(tmp_path, "response", document("d", ["(1)", "(1)"]))
    with pytest.raises(FormatError, match="has 2 tokens in the response but 3 in the key") as error:
        score_files(key, response)
    assert (error.value.path, error.value.line) == (str(response), 1)


def test_writer_round_trip(tmp_path: Path) -> None:
    chains = {"1": [(0, 3), (0, 1), (5, 5)], "a": [(1, 2), (4, 6)], "7": [(3, 3), (3, 3)]}
    path = tmp_path / "out" / "doc.conll"
    write_conll(path, [("(doc); part 000", [["w0", "w1", "w2"], ["w3", "w 4", "w5", "w6"]], chains)])
    doc = read_conll(path).documents["(doc); part 000"]
    assert doc.n_tokens == 7
    assert {chain: sorted(spans) for chain, spans in doc.chains.items()} == {
        chain: sorted(spans) for chain, spans in chains.items()
    }
    assert not list(path.parent.glob("*.tmp"))


@pytest.mark.parametrize(
    "chains, problem",
    [
        ({"1": [(0, 2), (1, 3)]}, "crossing or touching"),
        ({"1": [(0, 1), (1, 2)]}, "crossing or touching"),
        ({"a b": [(0, 0)]}, "cannot be written"),
        ({"1": [(2, 9)]}, "outside"),
    ],
)
def test_writer_refuses_what_brackets_cannot_express(chains: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        bracket_labels(4, [(start, end, chain) for chain, spans in chains.items() for start, end in spans], check=True)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "the file is empty: not a CoNLL-2012 coreference file"),
        (b"just\nsome text\n", "no line '#begin document NAME': not a CoNLL-2012 coreference file"),
        ("#begin document d\nw\t(1)\n#end document\n".encode("utf-16"), "UTF-16 text"),
        ("#begin document d\nw\t(1)\n#end document\n".encode("utf-16-le"), ":1: NUL byte at column 2"),
        # in the annotation column (a Latin-1 byte in the words alone is accepted: tests/scoring/test_score_word_bytes)
        ("#begin document d\nw\t(1\u00e9)\n#end document\n".encode("latin-1"), ":2: not UTF-8 text: byte 0xe9"),
        (bytes(range(128, 256)), ":1: not UTF-8 text: byte 0x80"),
    ],
    ids=["empty", "random-text", "utf-16", "utf-16-without-bom", "latin-1", "binary"],
)
def test_a_file_without_documents_or_not_utf8_is_refused(tmp_path: Path, content: bytes, problem: str) -> None:
    # v8.01 would score such a key or response as 0/0 without a word
    path = tmp_path / "bad.conll"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=r"^.*bad\.conll.*") as caught:
        read_conll(path)
    assert problem in str(caught.value)


def test_a_utf8_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bom.conll"
    path.write_bytes(b"\xef\xbb\xbf" + document("d", ["(1)", "-"]).encode())
    assert read_conll(path).documents["d"].chains == {"1": [(0, 0)]}


def test_unreadable_files_are_one_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"missing.conll: file not found"):
        score_files(tmp_path / "missing.conll", tmp_path / "missing.conll")
    with pytest.raises(FormatError, match="is a folder, expected a file"):
        read_conll(tmp_path)
