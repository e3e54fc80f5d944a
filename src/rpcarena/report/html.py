"""HTML building blocks for a self-contained page: no scripts, no CDN, figures inline."""

from __future__ import annotations

import io
from collections.abc import Iterable
from html import escape

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
.numbers td:last-child{min-width:14rem;text-align:left;color:#9a5b00;font-size:.8rem}
.verdict{font-weight:bold;white-space:nowrap}
"""


def svg(fig: Figure) -> str:
    """The figure as an inline <svg> element (text drawn as paths, so no fonts are needed)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    text = buffer.getvalue()
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
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def warnings(items: list[str]) -> Markup:
    return Markup("<br>".join(f"⚠ {escape(w)}" for w in items))


def section(title: str, body: str, level: int = 2, anchor: str = "") -> str:
    ident = f' id="{escape(anchor)}"' if anchor else ""
    return f"<h{level}{ident}>{escape(title)}</h{level}>\n{body}\n"


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>\n{body}</body></html>\n")
