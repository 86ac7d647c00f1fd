"""A self-contained HTML page of one document with its mentions highlighted and coloured by chain.

Input: the mention table (MENTION_SCHEMA) and the token table (DOCUMENT_SCHEMA) of one dataset, and a
``conll_doc_key``. A mention is placed by ``(sent_id, tokens_number)`` on the document's tokens; the text is rebuilt
from the tokens and their ``whitespace_after``. Where texts are not shared (no token table), the page is rebuilt
from the mentions' context windows (document-global ids ``context_start_end_global_id``), with a gap mark where
no window covers the text. Every mention becomes a ``<span class="m" id="m-<mention_id>">``
whose hover title gives chain id, type, head and mention id; nested mentions nest. Mentions that overlap without
nesting are drawn in pieces: the first piece carries the id, the others ``data-part``. A side list shows each
chain of the document with its colour, size and the other documents (of the subtopic first) where the chain
continues: a link where that document's page exists (the caller says which, ``linked``), else its key with the
command that writes its page. The page has no external resources: inline CSS and a few lines of inline script
(clicking a chain in the list highlights its mentions).

Colours are deterministic: chains are numbered by first appearance in the document and take evenly spaced hues.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.schema import DOC_KEY_COLUMN

_GOLDEN_ANGLE = 137.508


@dataclass(frozen=True, slots=True)
class PlacedMention:
    """A mention on document token indices (inclusive)."""

    mention_id: str
    start: int
    end: int
    chain: str
    full_type: str
    head: str
    description: str
    text: str


@dataclass(frozen=True, slots=True)
class Token:
    """One token of the page; ``sent_id`` None where the sentence is unknown (context-only pages)."""

    sent_id: int | None
    text: str
    space_after: bool
    gap: bool = False  # stands for text left out between two context windows


def page_name(doc_key: str) -> str:
    """The file name of a document's page, used for links between pages."""
    return "view_" + re.sub(r"[^A-Za-z0-9._-]", "_", doc_key) + ".html"


def chain_colour(index: int) -> str:
    """The colour of the index-th chain of a page (HSL, evenly spaced hues)."""
    return f"hsl({(index * _GOLDEN_ANGLE) % 360:.0f} 75% 80%)"


def document_tokens(documents: pa.Table, doc_key: str) -> tuple[list[Token], dict[tuple[int, int], int]]:
    """The tokens of one document in order and the position of each (sent_id, token_id); an unknown key is an
    error naming a few known ones."""
    rows = documents.filter(pc.equal(documents[DOC_KEY_COLUMN], doc_key))
    if rows.num_rows == 0:
        known = documents[DOC_KEY_COLUMN].unique().to_pylist()[:5]
        raise UcdcrError(f"document {doc_key!r} is not in the document table; keys look like: {', '.join(known)}")
    # A document copied into several splits (docs/reproducing.md#document-copies) is shown once.
    first_split = rows["split"][0].as_py()
    rows = rows.filter(pc.equal(rows["split"], first_split)).sort_by("token_id_global")
    sents, token_ids = rows["sent_id"].to_pylist(), rows["token_id"].to_pylist()
    tokens = [
        Token(sent, text, space)
        for sent, text, space in zip(
            sents, rows["token"].to_pylist(), rows["whitespace_after"].to_pylist(), strict=True
        )
    ]
    return tokens, {
        (sent, token): position for position, (sent, token) in enumerate(zip(sents, token_ids, strict=True))
    }


def place_mentions(records: list[dict], index: dict[tuple[int, int], int], doc_key: str) -> list[PlacedMention]:
    """Mention records of one document on the token positions given by ``index`` ((sent_id, token_id) -> position)."""
    placed = []
    for record in records:
        numbers = record["tokens_number"]
        try:
            start, end = index[(record["sent_id"], min(numbers))], index[(record["sent_id"], max(numbers))]
        except (KeyError, ValueError):
            raise FormatError(
                None,
                f"mention {record['mention_id']}: tokens {numbers} of sentence {record['sent_id']} "
                f"are not in document {doc_key!r}",
            ) from None
        placed.append(_placed(record, start, end))
    return sorted(placed, key=lambda m: (m.start, -m.end, m.mention_id))


def context_tokens(records: list[dict]) -> tuple[list[Token], list[PlacedMention]]:
    """Where texts are not shared: the tokens of the mentions' context windows, in document order, with a gap
    token where text is missing, and the mentions placed on them.

    A window covers document-global ids ``context_start_end_global_id``; the mention's sentence is
    ``mention_sentence_start_end`` inside it (end exclusive) and its tokens ``tokens_number_context``.
    """
    text: dict[int, str] = {}
    sentence: dict[int, int] = {}
    for record in records:
        first = record["context_start_end_global_id"][0]
        for offset, token in enumerate(record["mention_context"]):
            text[first + offset] = token
        begin, end = record["mention_sentence_start_end"]
        for global_id in range(first + begin, first + end):
            sentence[global_id] = record["sent_id"]
    tokens: list[Token] = []
    position: dict[int, int] = {}
    previous = None
    for global_id in sorted(text):
        if previous is not None and global_id != previous + 1:
            tokens.append(Token(None, "…", True, gap=True))
        position[global_id] = len(tokens)
        tokens.append(Token(sentence.get(global_id), text[global_id], True))
        previous = global_id
    placed = []
    for record in records:
        first = record["context_start_end_global_id"][0]
        numbers = record["tokens_number_context"]
        placed.append(_placed(record, position[first + min(numbers)], position[first + max(numbers)]))
    return tokens, sorted(placed, key=lambda m: (m.start, -m.end, m.mention_id))


def _placed(record: dict, start: int, end: int) -> PlacedMention:
    return PlacedMention(
        record["mention_id"],
        start,
        end,
        record["coref_chain"],
        record["mention_full_type"] or "",
        record["mention_head"] or "",
        record["description"] or "",
        record["tokens_str"] or " ".join(record["tokens_text"]),
    )


def chain_documents(mentions: pa.Table) -> dict[str, list[str]]:
    """Chain id -> the doc keys it occurs in, sorted."""
    docs: dict[str, set[str]] = defaultdict(set)
    for chain, doc_key in zip(mentions["coref_chain"].to_pylist(), mentions["conll_doc_key"].to_pylist(), strict=True):
        docs[chain].add(doc_key)
    return {chain: sorted(keys) for chain, keys in docs.items()}


def render_document(
    dataset: str,
    mentions: pa.Table,
    documents: pa.Table | None,
    doc_key: str,
    linked: Collection[str] = frozenset(),
) -> str:
    """The HTML page of one document (see the module docstring); without a document table (texts not shared)
    the page shows the mentions' context windows. ``linked``: the doc keys whose pages sit beside this one."""
    records = mentions.filter(pc.equal(mentions["conll_doc_key"], doc_key)).to_pylist()
    if documents is not None:
        tokens, index = document_tokens(documents, doc_key)
        placed = place_mentions(records, index, doc_key)
        note = ""
    elif records:
        tokens, placed = context_tokens(records)
        note = (
            '<p class="note">The texts of this dataset are not shared: the page shows the context windows of '
            "its mentions; … marks text that is not in any window.</p>"
        )
    else:
        known = sorted(set(mentions["conll_doc_key"].to_pylist()))[:5]
        raise UcdcrError(f"document {doc_key!r} has no mentions; keys look like: {', '.join(known)}")
    chains = list(dict.fromkeys(m.chain for m in placed))
    colours = {chain: index for index, chain in enumerate(chains)}
    meta = records[0] if records else {}
    body = _text_html(tokens, placed, colours)
    side = _chain_list_html(placed, colours, chain_documents(mentions), doc_key, dataset, linked)
    title = f"{dataset} · {doc_key}"
    facts = (
        f"topic {html.escape(str(meta.get('topic', '')))} · subtopic {html.escape(str(meta.get('subtopic', '')))} · "
        f"document {html.escape(str(meta.get('doc', doc_key)))} · split {html.escape(str(meta.get('split', '')))} · "
        f"{sum(not token.gap for token in tokens)} tokens · {len(placed)} mentions · {len(chains)} chains"
    )
    palette = "\n".join(f".c{i}{{--c:{chain_colour(i)}}}" for i in range(len(chains)))
    return _PAGE.format(
        title=html.escape(title),
        facts=facts,
        note=note,
        body=body,
        side=side,
        palette=palette,
        css=_CSS,
        script=_SCRIPT,
    )


def _text_html(tokens: list[Token], placed: list[PlacedMention], colours: dict[str, int]) -> str:
    starts: dict[int, list[PlacedMention]] = defaultdict(list)
    for mention in placed:
        starts[mention.start].append(mention)
    out: list[str] = []
    stack: list[PlacedMention] = []
    previous_sent = None
    paragraph_open = False
    for position, token in enumerate(tokens):
        if token.gap:
            out.append('</p>\n<p class="gap">…</p>\n' if paragraph_open else '<p class="gap">…</p>\n')
            paragraph_open, previous_sent = False, None
            continue
        if not paragraph_open or (token.sent_id != previous_sent and not stack):
            if paragraph_open:
                out.append("</p>\n")
            label = "" if token.sent_id is None else token.sent_id
            out.append(f'<p class="s" data-sent="{label}"><span class="sn">{label}</span>')
            paragraph_open, previous_sent = True, token.sent_id
        for mention in starts.get(position, []):
            out.append(_open_tag(mention, colours, first=True))
            stack.append(mention)
        out.append(html.escape(token.text))
        ending = [m for m in stack if m.end == position]
        for mention in reversed(ending):  # innermost first, so nothing needs reopening
            _close(mention, stack, out, colours)
        if token.space_after:
            out.append(" ")
    if paragraph_open:
        out.append("</p>")
    return "".join(out)


def _close(mention: PlacedMention, stack: list[PlacedMention], out: list[str], colours: dict[str, int]) -> None:
    """Close ``mention``; spans opened after it that go on are closed and reopened as further pieces."""
    reopen = []
    while stack:
        top = stack.pop()
        out.append("</span>")
        if top is mention:
            break
        reopen.append(top)
    for other in reversed(reopen):
        out.append(_open_tag(other, colours, first=False))
        stack.append(other)


def _open_tag(mention: PlacedMention, colours: dict[str, int], first: bool) -> str:
    hover = f"chain {mention.chain} | type {mention.full_type} | head {mention.head} | {mention.mention_id}"
    ident = f'id="m-{html.escape(mention.mention_id)}"' if first else f'data-part="{html.escape(mention.mention_id)}"'
    index = colours[mention.chain]
    return f'<span class="m c{index}" {ident} data-chain="{index}" title="{html.escape(hover)}">'


def _chain_list_html(
    placed: list[PlacedMention],
    colours: dict[str, int],
    docs_of_chain: dict[str, list[str]],
    doc_key: str,
    dataset: str,
    linked: Collection[str],
) -> str:
    by_chain: dict[str, list[PlacedMention]] = defaultdict(list)
    for mention in placed:
        by_chain[mention.chain].append(mention)
    subtopic = doc_key.rsplit("/", 1)[0]
    items = []
    for chain, index in colours.items():
        first = by_chain[chain][0]
        others = [key for key in docs_of_chain.get(chain, []) if key != doc_key]
        others.sort(key=lambda key: (key.rsplit("/", 1)[0] != subtopic, key))
        links = "".join(
            f"<li>{_document_link(key, dataset, linked)}"
            f"{'' if key.rsplit('/', 1)[0] == subtopic else ' <small>(other subtopic)</small>'}</li>"
            for key in others
        )
        continues = f'<ul class="docs">{links}</ul>' if links else '<div class="docs">only in this document</div>'
        items.append(
            f'<li class="chain c{index}" data-chain="{index}"><span class="sw"></span>'
            f"<b>{html.escape(chain)}</b> <small>{html.escape(first.full_type)} · "
            f'{len(by_chain[chain])} here</small><div class="desc">{html.escape(first.description)}</div>'
            f"{continues}</li>"
        )
    return '<ol class="chains">' + "".join(items) + "</ol>"


def _document_link(key: str, dataset: str, linked: Collection[str]) -> str:
    """A link to a document's page if it was written, else its key and how to write the page."""
    if key in linked:
        return f'<a href="{html.escape(page_name(key))}">{html.escape(key)}</a>'
    how = f"no page written; `ucdcr view {dataset} {key}` writes it"
    return f'<span class="nopage" title="{html.escape(how)}">{html.escape(key)}</span>'


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;display:flex;color:#222}
main{flex:3;padding:1.2em 2em;line-height:2.1;max-width:60em}
aside{flex:1.3;padding:1em;background:#f6f6f6;border-left:1px solid #ddd;height:100vh;overflow:auto;
position:sticky;top:0;font-size:.9em;line-height:1.4}
h1{font-size:1.2em;margin:.2em 0}.facts{color:#666;font-size:.85em;margin-bottom:1em}
p.s{margin:.3em 0}.sn{color:#aaa;font-size:.7em;margin-right:.6em;user-select:none}
.m{background:var(--c);border:1px solid rgba(0,0,0,.35);border-radius:3px;padding:1px 2px;cursor:help}
.m .m{padding:0 1px}p.gap{color:#999;margin:.3em 0}.note{color:#a60;font-size:.9em}
body.focus .m{opacity:.25}body.focus .m.on{opacity:1;outline:2px solid #000}
ol.chains{padding-left:1.2em}li.chain{margin-bottom:.7em;cursor:pointer}
.sw{display:inline-block;width:.9em;height:.9em;background:var(--c);border:1px solid #888;margin-right:.3em;
vertical-align:middle}.desc{color:#555}ul.docs{margin:.1em 0;padding-left:1.1em}div.docs{color:#999}
.nopage{color:#777;cursor:help}
"""

_SCRIPT = """
document.querySelectorAll('li.chain').forEach(function (item) {
  item.addEventListener('click', function (event) {
    if (event.target.tagName === 'A') { return; }
    var chain = item.getAttribute('data-chain');
    var active = document.body.getAttribute('data-focus') === chain;
    document.body.classList.toggle('focus', !active);
    document.body.setAttribute('data-focus', active ? '' : chain);
    document.querySelectorAll('.m').forEach(function (span) {
      span.classList.toggle('on', !active && span.getAttribute('data-chain') === chain);
    });
  });
});
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{css}{palette}</style></head>
<body><main><h1>{title}</h1><div class="facts">{facts}</div>{note}
{body}
</main><aside><h2>Chains</h2><p><small>Hover a mention for chain, type and head; click a chain to highlight it.
</small></p>{side}</aside>
<script>{script}</script></body></html>
"""
