"""CEREC e-mail CoNLL reader on tiny files written by the tests (double-tab 7-column format of data/COLING).

Blocks and brackets follow ucdcr.formats.conll2012 (tests/formats/test_conll2012.py), so its errors are CEREC's."""

from __future__ import annotations

import pytest
from tests.fixtures.raw.cerec import THREAD, line

from ucdcr.errors import FormatError
from ucdcr.formats.cerec_conll import read_cerec_conll


def test_reads_threads_tokens_and_mentions() -> None:
    (thread,) = read_cerec_conll(THREAD, "val.conll")
    assert thread.name == "allen-p_inbox_1.txt" and thread.stem == "allen-p_inbox_1"
    assert [t.text for t in thread.tokens] == ["Message", "rita", "wynne", "wrote", "we", "thank", "you"]
    assert [t.sentence for t in thread.tokens] == [0, 1, 1, 1, 2, 2, 2]
    assert thread.tokens[4].speaker == "Phillip" and thread.tokens[4].message_id == "2"
    spans = [(m.chain, m.first, m.last) for m in thread.mentions]
    # sorted by start, longer first: "rita wynne" (16), "we" (3, 5), "thank you" (7, 8: nested same span)
    assert spans == [("16", 1, 2), ("3", 4, 4), ("5", 4, 4), ("7", 5, 6), ("8", 5, 6)]
    assert thread.mentions[0].line == 4


def test_mentions_of_one_span_are_numbered_by_column_order_not_by_chain() -> None:
    # "we" is in chains 3 and 5, "thank you" in 7 and 8: the number (hashed into the mention id instead of the
    # chain) follows the labels' order in the column, so renaming the chains keeps it
    numbers = [(m.chain, m.number) for m in read_cerec_conll(THREAD, "val.conll")[0].mentions]
    assert numbers == [("16", 0), ("3", 0), ("5", 1), ("7", 0), ("8", 1)]
    renamed = THREAD.replace("(3)|(5)", "(9)|(1)")
    assert [(m.chain, m.number) for m in read_cerec_conll(renamed, "val.conll")[0].mentions] == [
        ("16", 0),
        ("1", 1),
        ("9", 0),
        ("7", 0),
        ("8", 1),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "#begin document a.txt\n" + line("x", coref="4)") + "\n#end document\n",
            r"val\.conll:2: closing bracket '4\)' in document 'a\.txt' has no open mention of chain '4'",
        ),
        (
            "#begin document a.txt\n" + line("x", coref="(4") + "\n#end document\n",
            r"val\.conll:3: document 'a\.txt' ends with mention\(s\) never closed: '\(4' at line 2",
        ),
        (
            "#begin document a.txt\n" + line("x", coref="((4") + "\n#end document\n",
            "cannot parse coreference annotation",
        ),
        (
            "#begin document a.txt\nx\t1\t1\tRita\t-\t-\t-\n#end document\n",
            r"val\.conll:2: expected 7 columns separated by double tabs, found 1",
        ),
        (line("x") + "\n", "token line outside #begin/#end document"),
        ("#begin document a.txt\n" + line("x") + "\n", "is never closed: end of file reached"),
        ("", "no documents"),
    ],
)
def test_malformed(text: str, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        read_cerec_conll(text, "val.conll")
