"""A readiness report as one self-contained HTML document — no Streamlit here.

:func:`render_html` writes a :class:`privcore.report.ReadinessReport` (codes and figures)
in English or Chinese with the words of :func:`ui.catalog.texts_of`, so the document
says what the page and the command line say. Inline CSS, no script, no link, no image:
it opens anywhere and prints to PDF from a browser (A4, one topic a page). Every value
that reaches the page — column names, file names, algorithm parameters — is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from privcore import __version__
from privcore.attacks import RISK_KEYS
from privcore.core.jsonsafe import dumps
from ui.catalog import as_dict, check_language, figure, limit, text, texts_of
from ui.risk_words import article29_rows, article29_warnings, control_sentence

__all__ = ["render_html"]

CSS = """
@page { size: A4; margin: 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC",
  "Microsoft YaHei", sans-serif; color: #1f2328; margin: 0; background: #fff;
  line-height: 1.45; font-size: 14px; }
main { max-width: 920px; margin: 0 auto; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 10px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.meta { color: #57606a; margin: 0 0 18px; }
section { margin: 0 0 26px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 12px; word-break: break-all; }
.verdict { border: 2px solid; border-radius: 8px; padding: 14px 18px; }
.verdict h2 { border: none; font-size: 24px; margin: 0 0 6px; padding: 0; }
.verdict-ready { background: #dafbe1; border-color: #1a7f37; color: #0f5323; }
.verdict-ready_with_conditions { background: #fff8c5; border-color: #bf8700; color: #6b4700; }
.verdict-not_ready { background: #ffebe9; border-color: #cf222e; color: #82071e; }
.verdict ul { margin: 6px 0 0 0; padding-left: 20px; }
.advice { display: block; color: #1f2328; }
.status { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px;
  font-weight: 600; }
.status-pass { background: #dafbe1; color: #0f5323; }
.status-fail { background: #ffebe9; color: #82071e; }
.status-warn { background: #fff8c5; color: #6b4700; }
footer { color: #57606a; font-size: 12px; border-top: 1px solid #d0d7de; padding-top: 8px; }
@media print {
  main { max-width: none; padding: 0; }
  body { font-size: 11pt; }
  .page { break-before: page; page-break-before: always; }
  .verdict, .status, th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  table, .verdict { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
}
"""

_VERDICTS = ("ready", "ready_with_conditions", "not_ready")


def _e(value: Any) -> str:
    """Escaped text of anything (every value that reaches the page passes here)."""
    return html.escape("" if value is None else str(value), quote=True)


@dataclass(frozen=True)
class _Raw:
    """Markup built here from escaped parts (never user text as is)."""

    html: str


def _table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[int] = ()
) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if isinstance(cell, _Raw):
                cells.append(f"<td>{cell.html}</td>")
            else:
                css = ' class="num"' if i in numeric else ""
                cells.append(f"<td{css}>{_e(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _status(status: str, lang: str) -> _Raw:
    word = text(f"report.status.{status}", lang)
    return _Raw(f'<span class="status status-{_e(status)}">{_e(word)}</span>')


def _shown(value: Any) -> str:
    """A value as short text (JSON for containers); escaped later by the table."""
    if isinstance(value, (dict, list, tuple)):
        return dumps(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return figure(value)
    return "—" if value is None else str(value)


def _flatten(value: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Nested mappings as ``("params.k", 10)`` rows."""
    out: list[tuple[str, Any]] = []
    for k, v in value.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out += _flatten(v, name + ".")
        else:
            out.append((name, v))
    return out


def _path(source: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = source
    for step in path:
        node = node.get(step) if isinstance(node, Mapping) else None
    return node


def render_html(report: Any, lang: str = "en") -> str:
    """``report`` (a :class:`~privcore.report.ReadinessReport`, or its ``to_dict()``) as
    one HTML document in ``lang`` ("en" or "zh"; another raises
    :class:`~privcore.errors.ParameterError`)."""
    check_language(lang)
    words = texts_of(report, lang)
    data = as_dict(report)

    def label(name: str, **params: Any) -> str:
        return text(f"report.html.{name}", lang, **params)

    m = data.get("measurement") or {}
    a = data.get("attacks") or {}
    verdict = data["verdict"] if data["verdict"] in _VERDICTS else "not_ready"
    parts: list[str] = []

    # Title and verdict.
    parts.append(f"<header><h1>{_e(label('title'))}</h1>")
    prints = (data.get("fingerprint") or {}, data.get("release_fingerprint") or {})
    names = " · ".join(_e(p.get("name")) for p in prints if p.get("name"))
    parts.append(
        f'<p class="meta">{_e(label("created"))}: {_e(data.get("created"))}'
        + (f" · {names}" if names else "")
        + "</p></header>"
    )
    box = [
        f'<section class="verdict verdict-{_e(verdict)}" id="verdict">',
        f"<h2>{_e(label('verdict'))}: {_e(words.verdict)}</h2>",
        f"<p>{_e(words.summary)}</p>",
    ]
    if words.reasons:
        box.append(f"<h3>{_e(label('reasons'))}</h3><ul>")
        for reason in words.reasons:
            advice = f'<span class="advice">{_e(reason.advice)}</span>' if reason.advice else ""
            box.append(f"<li>{_e(reason.sentence)}{advice}</li>")
        box.append("</ul>")
    if words.conditions:
        box.append(f"<h3>{_e(label('conditions'))}</h3><ul>")
        box += [f"<li>{_e(c.sentence)}</li>" for c in words.conditions]
        box.append("</ul>")
    box.append("</section>")
    parts += box

    # Thresholds and checks.
    parts.append(f'<section id="thresholds"><h2>{_e(label("thresholds"))}</h2>')
    rows = []
    for name, value in (data.get("thresholds") or {}).items():
        shown = label("not_required") if value is None else limit(value)
        rows.append(
            [text(f"report.threshold.{name}", lang), _Raw(f"<code>{_e(name)}</code>"), shown]
        )
    parts.append(_table([label("check"), "", label("threshold")], rows))
    parts.append("</section>")
    parts.append(f'<section id="checks"><h2>{_e(label("checks"))}</h2>')
    parts.append(
        _table(
            [label("check"), label("value"), label("threshold"), label("status"), ""],
            [
                [
                    c.label,
                    figure(raw.get("value")),
                    c.requirement,
                    _status(raw["status"], lang),
                    c.sentence,
                ]
                for c, raw in zip(words.checks, data.get("checks") or [], strict=True)
            ],
            numeric=(1,),
        )
    )
    parts.append("</section>")

    # Data, roles, algorithm.
    parts.append(f'<section class="page" id="data"><h2>{_e(label("data"))}</h2>')
    parts.append(
        _table(
            ["", label("name"), label("sha256"), label("rows"), label("columns")],
            [
                [
                    label(which),
                    p.get("name") or "—",
                    _Raw(f'<span class="mono">{_e(p.get("sha256"))}</span>'),
                    figure(p.get("rows")),
                    figure(p.get("columns")),
                ]
                for which, p in zip(("original", "release"), prints, strict=True)
            ],
            numeric=(3, 4),
        )
    )
    parts.append(f"<h3>{_e(label('roles'))}</h3>")
    roles = data.get("roles") or {}
    parts.append(
        _table(
            [label("roles"), label("columns")],
            [
                [label("qi"), ", ".join(map(str, roles.get("qi") or []))],
                [label("sa"), ", ".join(map(str, roles.get("sa") or []))],
                [label("key"), roles.get("key") or label("by_position")],
            ],
        )
    )
    parts.append(f"<h3>{_e(label('algorithm'))}</h3>")
    if data.get("algorithm"):
        parts.append(
            _table(
                [label("name"), label("value")],
                [[k, _shown(v)] for k, v in _flatten(data["algorithm"])],
            )
        )
    else:
        parts.append(f"<p>{_e(label('unknown'))}</p>")
    parts.append("</section>")

    # Privacy models.
    parts.append(f'<section class="page" id="models"><h2>{_e(label("models"))}</h2>')
    parts.append(
        _table(
            ["k", label("classes"), label("rows"), label("suppressed_rows")],
            [[figure(m.get(n)) for n in ("k", "classes", "rows", "suppressed_rows")]],
            numeric=(0, 1, 2, 3),
        )
    )
    sa_rows = []
    for s in m.get("sa") or []:
        t = (m.get("t_closeness") or {}).get(s) or {}
        sa_rows.append(
            [
                s,
                figure((m.get("l_distinct") or {}).get(s)),
                figure((m.get("l_entropy") or {}).get(s)),
                figure((m.get("recursive_c") or {}).get(s)),
                f"{figure(t.get('t'))} ({t.get('distance', '—')})",
            ]
        )
    parts.append(
        _table(
            [
                label("attribute"),
                label("l_distinct"),
                label("l_entropy"),
                label("recursive_c"),
                label("t_closeness"),
            ],
            sa_rows,
            numeric=(1, 2, 3),
        )
    )
    parts.append(
        _table(
            [label("models"), label("requirement"), label("achieved"), label("result")],
            [
                [
                    v.get("model"),
                    v.get("requirement"),
                    _shown(v.get("achieved")),
                    _status("pass" if v.get("passed") else "fail", lang),
                ]
                for v in m.get("verdicts") or []
            ],
        )
    )
    parts.append("</section>")

    # PL, DR, UL and information loss.
    parts.append(f'<section class="page" id="privacy"><h2>{_e(label("privacy"))}</h2>')
    pl = m.get("pl") or {}
    parts.append(
        _table(
            [label("pl_all"), label("dr"), label("ul")],
            [[figure(pl.get("all")), figure(m.get("dr")), figure(m.get("ul"))]],
            numeric=(0, 1, 2),
        )
    )
    parts.append(f"<p>{_e(label('pl_explain'))}</p>")
    parts.append(f"<h3>{_e(label('pl_attribute'))}</h3>")
    parts.append(
        _table(
            [label("attribute"), "PL"],
            [[name, figure(value)] for name, value in pl.items() if name != "all"],
            numeric=(1,),
        )
    )
    parts.append(f"<h3>{_e(label('loss'))}</h3>")
    parts.append(
        _table(
            [label("metric"), label("value")],
            [[name, _shown(value)] for name, value in (m.get("loss") or {}).items()],
        )
    )
    parts.append("</section>")

    # Attacks before vs after.
    parts.append(f'<section class="page" id="attacks"><h2>{_e(label("attacks"))}</h2>')
    before = a.get("before") or {}
    figures: list[tuple[str, tuple[str, ...]]] = [
        (label("targets"), ("linkage", "targets")),
        (label("unique_matches"), ("linkage", "unique_matches")),
        (label("reidentified"), ("linkage", "reidentified")),
        (label("false_matches"), ("linkage", "false_matches")),
    ]
    for s in (a.get("linkage") or {}).get("attribute_disclosed") or {}:
        figures.append((label("disclosed", attribute=s), ("linkage", "attribute_disclosed", s)))
    figures += [
        (label("homogeneous_classes"), ("homogeneity", "classes_exposed")),
        (label("homogeneous_records"), ("homogeneity", "records_exposed")),
    ]
    figures += [(label(name), ("risk", name)) for name in RISK_KEYS]
    parts.append(
        _table(
            [label("figure"), label("before"), label("after")],
            [[name, figure(_path(before, p)), figure(_path(a, p))] for name, p in figures],
            (1, 2),
        )
    )
    roll = a.get("roll") or {}
    parts.append(
        f"<p>{_e(label('roll', size=figure(roll.get('size')), seed=roll.get('seed')))}</p>"
    )
    order = (data.get("findings") or {}).get("order") or {}
    if order:
        parts.append(f"<h3>{_e(label('order'))}</h3>")
        matched = label("matched_key" if order.get("matched_by") == "key" else "matched_position")
        published = label("published_shuffled" if order.get("shuffled") else "published_as_is")
        parts.append(
            _table(
                [label("figure"), label("value")],
                [
                    [label("matched_by"), matched],
                    [label("spearman"), figure(order.get("spearman"))],
                    [label("rows_in_place"), figure(order.get("rows_in_place"))],
                    [label("published"), published],
                ],
            )
        )
    parts.append("</section>")

    # Singling out, linkability and inference (measured unless left out).
    risks = data.get("gdpr_risks")
    if risks:
        parts.append(
            f'<section class="page" id="gdpr"><h2>{_e(text("risk.attacks_title", lang))}</h2>'
        )
        parts.append(f"<p>{_e(text('risk.attacks_help', lang))}</p>")
        rows = article29_rows(risks, lang)
        parts.append(_table(list(rows[0]), [list(r.values()) for r in rows], numeric=(1, 3, 4)))
        parts.append(f"<p>{_e(control_sentence(risks, lang))}</p>")
        warned = article29_warnings(risks, lang)
        if warned:
            parts.append("<ul>" + "".join(f"<li>{_e(w)}</li>" for w in warned) + "</ul>")
        parts.append("</section>")

    if words.notes:
        parts.append(f'<section id="notes"><h2>{_e(label("notes"))}</h2><ul>')
        parts += [f"<li>{_e(n)}</li>" for n in words.notes]
        parts.append("</ul></section>")
    parts.append(
        f"<footer>{_e(label('generated_by'))} {_e(__version__)} · {_e(data.get('created'))}"
        "</footer>"
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(label('title'))} · {_e(words.verdict)}</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(parts)
        + "\n</main>\n</body>\n</html>\n"
    )
