"""HTML building blocks for a self-contained page: no scripts, no CDN, figures inline.

Hovering works without a script: every figure's marks carry SVG <title> tooltips
(`figures.tip`), which browsers show on their own.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING

from rpcarena.report.figures import with_tooltips

if TYPE_CHECKING:
    from matplotlib.figure import Figure

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:1300px;color:#222;
 padding:0 1rem;line-height:1.4}
h1{font-size:1.6rem}h2{margin-top:2.5rem;border-bottom:1px solid #ccc}h3{margin-top:1.5rem}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right;vertical-align:top}
th{background:#f4f4f4}td.l,th.l{text-align:left}
.warn{color:#9a5b00;font-size:.8rem;text-align:left}.ok{color:#276b2e}.bad{color:#a61b1b}.na{color:#666}
.part{color:#9a5b00}
.note{color:#555;font-size:.9rem}figure{margin:1rem 0}figure svg{max-width:100%;height:auto}
ul.warn{padding-left:1.2rem;max-width:70rem}ul.warn li{margin:.15rem 0}
.verdict{font-weight:bold;white-space:nowrap}
.wide{overflow-x:auto}.numbers td{white-space:nowrap}
.summary{border:1px solid #ccc;border-radius:6px;padding:.25rem 1.25rem 1rem;background:#fcfcfc}
.summary h2{margin-top:.75rem}.summary td{white-space:nowrap}.summary .claims td:first-child{white-space:normal}
.summary ul{padding-left:1.2rem;margin:.3rem 0}
.heatmap text{font-size:12px;fill:#222}.heatmap a:hover rect,svg g:has(>title):hover{opacity:.7}
nav.contents ul{columns:2;padding-left:1.2rem}.answer{display:flex;flex-wrap:wrap;gap:0 2rem;align-items:flex-start}
.answer .map{max-width:100%}.answer .map .note{max-width:30rem}
.headline{font-size:1.1rem;margin:.5rem 0 .75rem}.headline ul{list-style:none;padding-left:0;margin:0}
.headline li{margin:.2rem 0;font-weight:600}
ul.causes{list-style:none;padding-left:0}ul.causes summary{cursor:pointer}
ul.causes details ul{color:#555;font-size:.8rem}
"""


def svg(fig: Figure) -> str:
    """The figure as an inline <svg> element (text drawn as paths, so no fonts are needed)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    text = with_tooltips(buffer.getvalue())
    return text[text.index("<svg"):]


def figure(fig: Figure, caption: str) -> str:
    return f'<figure class="chart">{svg(fig)}<figcaption class="note">{escape(caption)}</figcaption></figure>'


def cell(value: object, css: str = "") -> str:
    attr = f' class="{css}"' if css else ""
    return f"<td{attr}>{value if isinstance(value, Markup) else escape(str(value))}</td>"


class Markup(str):
    """Text already escaped; inserted as is."""


def table(headers: Iterable[str], rows: Iterable[Iterable[object]], left: int = 1, css: str = "") -> str:
    """A table whose first `left` columns are left-aligned."""
    head = "".join(f'<th class="{"l" if i < left else ""}">{escape(h)}</th>' for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(cell(v, "l" if i < left else "") for i, v in enumerate(row)) + "</tr>"
                   for row in rows)
    attr = f' class="{css}"' if css else ""
    return f'<div class="wide"><table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def warnings(items: list[str]) -> Markup:
    return Markup("<br>".join(f"⚠ {escape(w)}" for w in items))


def section(title: str, body: str, level: int = 2, anchor: str = "", css: str = "") -> str:
    """A <section> with its heading; `anchor` is its id, for the table of contents."""
    ident = f' id="{escape(anchor)}"' if anchor else ""
    attr = f' class="{css}"' if css else ""
    return f"<section{ident}{attr}><h{level}>{escape(title)}</h{level}>\n{body}\n</section>\n"


def slug(text: str) -> str:
    """Text as a safe file name or anchor: letters, digits, '.', '_' and '-' only (a method or URL
    brings '/', spaces and worse), never empty, never '.' or '..'."""
    cleaned = re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-.")[:80]
    return cleaned or "x"


def slugs(texts: Sequence[str]) -> dict[str, str]:
    """A distinct slug for each distinct text: 'a/b' and 'a b' both clean to 'a-b', so the second
    gets '-2' (case is folded for the test, as on case-insensitive file systems)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for text in dict.fromkeys(texts):
        base = candidate = slug(text)
        n = 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate.lower())
        out[text] = candidate
    return out


def contents(entries: Iterable[tuple[str, str]]) -> str:
    """The table of contents: (anchor, title) links."""
    items = "".join(f'<li><a href="#{escape(a)}">{escape(t)}</a></li>' for a, t in entries)
    return f'<nav class="contents" id="contents"><h2>Contents</h2><ul>{items}</ul></nav>\n'


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>\n{body}</body></html>\n")
