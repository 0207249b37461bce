"""What ``rdmasim reproduce`` leaves for a reader: the per-study count, every row as CSV, and one
static page with each study's headline, rows and plots.

The page is one file with the plots inlined (as data URIs) and no script: it opens from disk in
any browser, copied anywhere, with no server and nothing fetched from the network.
"""
from __future__ import annotations

import base64
import csv
import html
import io
import json
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence

from . import KINDS, ROW_KEYS, _cell, range_cell
from ..plots import artifact

__all__ = ["summary", "format_summary", "write_csv", "write_index", "reproduce_outputs"]

Rows = Sequence[Mapping[str, Any]]


def summary(results: Mapping[str, Rows]) -> List[Dict[str, Any]]:
    """Per study: reproduced rows ok and in all (the only ones that count), then the rows of each
    other kind apart (with how many of them are ok, which counts for nothing)."""
    out = []
    for name, rows in results.items():
        s: Dict[str, Any] = {"study": name}
        for k in KINDS:
            of_kind = [r for r in rows if r["kind"] == k]
            s[k] = len(of_kind)
            s[f"{k}_ok"] = sum(1 for r in of_kind if r["ok"])
        out.append(s)
    return out


def format_summary(results: Mapping[str, Rows]) -> str:
    """The per-study table ``rdmasim reproduce`` ends with."""
    table = summary(results)
    head = ["study", "reproduced ok", "fit", "arithmetic", "sensitivity"]
    body = [[s["study"], f"{s['reproduced_ok']} / {s['reproduced']}", str(s["fit"]), str(s["arithmetic"]),
             str(s["sensitivity"])] for s in table]
    if len(table) > 1:
        tot = {k: sum(s[k] for s in table) for k in ("reproduced_ok", "reproduced", "fit", "arithmetic", "sensitivity")}
        body.append(["all", f"{tot['reproduced_ok']} / {tot['reproduced']}", str(tot["fit"]), str(tot["arithmetic"]),
                     str(tot["sensitivity"])])
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _csv_cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return json.dumps(v)
    return v


def write_csv(results: Mapping[str, Rows], path: Path) -> None:
    """Every row of every study: a ``study`` column, then :data:`ROW_KEYS`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("study",) + ROW_KEYS)
    for name, rows in results.items():
        for r in rows:
            w.writerow([name] + [_csv_cell(r[k]) for k in ROW_KEYS])
    path.write_text(buf.getvalue())


_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
tr.miss td.ok { color: #b00; font-weight: bold; }
tr.kind-fit, tr.kind-arithmetic, tr.kind-sensitivity { color: #666; }
img { max-width: 100%; border: 1px solid #ddd; margin: .5em 0; }
.basis { font-size: 90%; color: #555; }
"""

_IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _figure(path: Path) -> str:
    """An image inlined as a data URI; any other artifact named by its path."""
    kind = _IMAGE_TYPES.get(path.suffix.lower())
    if kind is None or not path.is_file():
        return f"<li><code>{html.escape(str(path))}</code></li>"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{html.escape(path.name)}" src="data:{kind};base64,{data}">'
            f"<figcaption><code>{html.escape(str(path))}</code></figcaption></figure>")


def _row_html(study: str, r: Mapping[str, Any]) -> str:
    cls = f"kind-{r['kind']}" + ("" if r["ok"] else " miss")
    basis = f'<div class="basis">{html.escape(r["basis"])}</div>' if r.get("basis") else ""
    check = f'<div class="basis">check: {html.escape(r["check"])}</div>' if r.get("check") else ""
    cells = [
        f"<td><code>{html.escape(str(r['id']))}</code></td>",
        f"<td>{html.escape(str(r['metric']))}{check}</td>",
        f"<td>{html.escape(_cell(r['published']))}</td>",
        f'<td class="num">{html.escape(_cell(r["simulated"]))}</td>',
        f'<td class="num">{html.escape(range_cell(r))}</td>',
        f"<td>{html.escape(str(r['unit']))}</td>",
        f"<td>{html.escape(r['kind'])}{basis}</td>",
        f'<td class="ok">{_cell(r["ok"])}</td>',
    ]
    return f'<tr id="row-{html.escape(study)}-{html.escape(str(r["id"]))}" class="{cls}">' + "".join(cells) + "</tr>"


def write_index(results: Mapping[str, Rows], titles: Mapping[str, str], artifacts: Mapping[str, Sequence[Path]],
                path: Path) -> None:
    """The static page: the summary, then per study its headline, its rows and its plots."""
    counts = {s["study"]: s for s in summary(results)}
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>rdmasim reproduce</title>", f"<style>{_STYLE}</style></head><body>",
             "<h1>rdmasim reproduce</h1>",
             "<p>Only <b>reproduced</b> rows count: a simulated mechanism produced the figure and no parameter was "
             "derived from it. A <b>fit</b> row agrees by construction (its basis names the parameter derived from "
             "its published figure), an <b>arithmetic</b> row ran no simulation, a <b>sensitivity</b> row is a "
             "what-if under the stated assumption.</p>",
             f"<pre>{html.escape(format_summary(results))}</pre>"]
    for name, rows in results.items():
        c = counts[name]
        parts.append(f'<section id="study-{html.escape(name)}"><h2>{html.escape(name)}</h2>')
        parts.append(f"<p>{html.escape(titles.get(name, ''))}</p>")
        parts.append(f"<p><b>{c['reproduced_ok']} of {c['reproduced']} reproduced rows ok</b>; "
                     f"{c['fit']} fit, {c['arithmetic']} arithmetic, {c['sensitivity']} sensitivity.</p>")
        parts.append("<table><tr><th>id</th><th>metric</th><th>published</th><th>simulated</th><th>range</th>"
                     "<th>unit</th><th>kind</th><th>ok</th></tr>")
        parts += [_row_html(name, r) for r in rows]
        parts.append("</table>")
        files = list(dict.fromkeys(artifacts.get(name, ())))
        images = [p for p in files if p.suffix.lower() in _IMAGE_TYPES and p.is_file()]
        others = [p for p in files if p not in images]
        parts += [_figure(p) for p in images]
        if others:
            parts.append("<p>Other artifacts:</p><ul>" + "".join(_figure(p) for p in others) + "</ul>")
        parts.append("</section>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts) + "\n")


def reproduce_outputs(results: Mapping[str, Rows], titles: Mapping[str, str], artifacts: Mapping[str, Sequence[Path]],
                      out: Path) -> List[Path]:
    """Writes ``out/rows.csv`` and ``out/index.html``; returns the paths written (one that cannot
    be written is named on stderr and left out, see :func:`._plots.artifact`)."""
    written = [artifact(out / "rows.csv", lambda p: write_csv(results, p)),
               artifact(out / "index.html", lambda p: write_index(results, titles, artifacts, p))]
    return [p for p in written if p is not None]
