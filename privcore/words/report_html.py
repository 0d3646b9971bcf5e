"""A readiness report as one self-contained HTML document — no Streamlit here.

:func:`render_html` writes a :class:`privcore.report.ReadinessReport` (codes and figures)
in English or Chinese with the words of :func:`privcore.words.catalog.texts_of`, so the document
says what the page and the command line say. Inline CSS, no script, no link, no image:
it opens anywhere and prints to PDF from a browser (A4, one topic a page). Every value
that reaches the page — column names, file names, algorithm parameters — is escaped.

Every figure is written for people, in the document's language: numbers by
:func:`privcore.words.catalog.figure` (thousands separated, no exponent below 10¹⁵), yes/no for
booleans, shares as percentages, thresholds, figures, models, distances and the
algorithm's parameters by their names in the catalogue — never a key, a JSON block or
a Python value. The columns an information-loss figure covers and the note on the
columns it leaves out both come from :func:`privcore.report.checks.loss_coverage`.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from privcore import __version__
from privcore.attacks import RISK_KEYS
from privcore.report.checks import loss_coverage
from privcore.words.catalog import (
    as_dict,
    check_language,
    figure,
    has,
    limit,
    percent,
    text,
    texts_of,
    yes_no,
)
from privcore.words.labels import figure_label, model_title, param_label, param_value, requirement
from privcore.words.risks import article29_rows, article29_warnings, control_sentence

__all__ = ["html_document", "render_html", "report_sections"]

CSS = """
@page { size: A4; margin: 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC",
  "Microsoft YaHei", "Noto Sans CJK SC", "WenQuanYi Zen Hei", sans-serif; color: #1f2328;
  margin: 0; background: #fff; line-height: 1.45; font-size: 14px; }
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
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    numeric: Sequence[int] = (),
    lang: str = "en",
) -> str:
    """A table of text cells; a number or a boolean that reaches a cell is written by
    :func:`privcore.words.catalog.figure` in ``lang``."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if isinstance(cell, _Raw):
                cells.append(f"<td>{cell.html}</td>")
            else:
                css = ' class="num"' if i in numeric else ""
                shown = cell if cell is None or isinstance(cell, str) else figure(cell, lang=lang)
                cells.append(f"<td{css}>{_e(shown)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _status(status: str, lang: str) -> _Raw:
    word = text(f"report.status.{status}", lang)
    return _Raw(f'<span class="status status-{_e(status)}">{_e(word)}</span>')


#: What an algorithm's parameters hold besides how the release was made, left to the
#: report's JSON: the trace of a lattice search (Datafly's steps, Samarati's candidate
#: and Incognito's minimal nodes) and the covariance matrix of correlated noise.
_TRACE = frozenset({"steps", "candidates", "minimal_nodes", "covariance"})
#: Parameters whose text values are choices with words of their own: name → key prefix.
_CHOICES = {"noise_kind": "an.noise_kind_", "summary": "an.summary_", "loss_metric": "metric."}


def _when(created: Any) -> str:
    """An ISO 8601 time as "2026-01-31 14:05:09 UTC" (another offset as
    "UTC+08:00"); anything else as it is."""
    try:
        moment = dt.datetime.fromisoformat(str(created))
    except ValueError:
        return "—" if not created else str(created)
    shown = f"{moment:%Y-%m-%d %H:%M:%S}"
    offset = moment.utcoffset()
    if offset is None:
        return shown
    if not offset:
        return f"{shown} UTC"
    sign = "+" if offset >= dt.timedelta(0) else "−"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{shown} UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _algorithm_title(name: Any, lang: str) -> str:
    return text(f"alg.{name}", lang) if has(f"alg.{name}") else ("—" if name is None else str(name))


def _model_words(model: Mapping[str, Any], lang: str) -> str:
    """A privacy model asked for: "k-anonymity: k ≥ 5"."""
    title = model_title(model, str(model.get("model") or "—"), lang)
    asked = requirement(model, "", lang)
    return (
        text("report.html.model_requirement", lang, model=title, requirement=asked)
        if asked
        else title
    )


def _coded_words(coded: Mapping[str, Any], lang: str) -> str:
    """Top and bottom coding per column: "weight: >=93.4 (5 records), <=49.8 (6 records)"."""
    out = []
    for column, sides in coded.items():
        sides = sides if isinstance(sides, Mapping) else {}
        said = [
            text(
                "report.param.coded.side",
                lang,
                value=sides[side],
                records=figure(sides.get(f"{side}_records"), lang=lang),
            )
            for side in ("top", "bottom")
            if sides.get(side) is not None
        ]
        out.append(f"{column}: {', '.join(said) or '—'}")
    return "; ".join(out) or "—"


def _param_label(name: str, lang: str) -> str:
    key = f"report.param.{name}"
    return text(key, lang) if has(key) else param_label(name, lang)


def _param_value(name: str, value: Any, lang: str) -> str:
    """A parameter of the algorithm in words: the models asked for, a share as a
    percentage, a choice by its words, yes/no, numbers by :func:`figure`, columns and
    per-column figures joined ("city: 8")."""
    if value is None:
        return "—"
    if name == "constraints" and isinstance(value, (list, tuple)):
        models = [_model_words(m, lang) for m in value if isinstance(m, Mapping)]
        return "; ".join(models) or "—"
    if name == "coded" and isinstance(value, Mapping):
        return _coded_words(value, lang)
    if isinstance(value, bool):
        return yes_no(value, lang)
    if name == "max_suppression" and isinstance(value, (int, float)):
        return percent(value)
    if name == "seed" and isinstance(value, int):
        return str(value)  # a seed is a name, not a quantity
    if isinstance(value, str):
        prefix = _CHOICES.get(name)
        if prefix is not None and has(prefix + value):
            return text(prefix + value, lang)
        return param_value(name, value, lang)
    if isinstance(value, (int, float)):
        return figure(value, lang=lang)
    if isinstance(value, Mapping):
        shown = [f"{k}: {_param_value(name, v, lang)}" for k, v in value.items()]
        return ", ".join(shown) or "—"
    if isinstance(value, (list, tuple)):
        shown = [
            f"({_param_value(name, v, lang)})"
            if isinstance(v, (list, tuple))
            else _param_value(name, v, lang)
            for v in value
        ]
        return ", ".join(shown) or "—"
    return str(value)


def _algorithm_rows(algorithm: Mapping[str, Any], lang: str) -> list[list[str]]:
    """How the release was made, one row per parameter: its name, then what the
    algorithm was given and found. The page gives ``{"algorithm", **params}``, the
    command line ``{"algorithm", "params", "node", "synthetic"}``; both read alike."""
    given = dict(algorithm)
    nested = given.pop("params", None)
    merged = {**(nested if isinstance(nested, Mapping) else {}), **given}
    rows = [
        [
            text("report.html.algorithm_name", lang),
            _algorithm_title(merged.pop("algorithm", None), lang),
        ]
    ]
    for name, value in merged.items():
        if str(name) in _TRACE:
            continue
        rows.append([_param_label(str(name), lang), _param_value(str(name), value, lang)])
    return rows


def _achieved(achieved: Any, lang: str) -> str:
    """What a model achieved: ``{"k": 9}`` → "k = 9"; ``{"l": {"Salary": 2}}`` →
    "l = 2 (Salary)"; the distance is said by the requirement."""
    if not isinstance(achieved, Mapping):
        return figure(achieved, lang=lang)
    parts = []
    for name, value in achieved.items():
        if name == "distance":
            continue
        shown = str(name) if len(str(name)) <= 2 else param_label(str(name), lang)
        if isinstance(value, Mapping):
            each = ", ".join(
                text("report.html.by_attribute", lang, value=figure(v, lang=lang), attribute=a)
                for a, v in value.items()
            )
            parts.append(f"{shown} = {each or '—'}")
        else:
            parts.append(f"{shown} = {figure(value, lang=lang)}")
    return "; ".join(parts) or "—"


def _distance(name: Any, lang: str) -> str:
    key = f"distance.short.{name}"
    return text(key, lang) if has(key) else ("—" if name is None else str(name))


def _loss_rows(m: Mapping[str, Any], lang: str) -> list[list[str]]:
    """Each information-loss figure with the columns it covers
    (:func:`~privcore.report.checks.loss_coverage`, the source of the report's note on
    the columns left out): discernibility and C_avg the classes of all quasi-identifiers,
    WHD and precision the columns released as hierarchy labels, GCP those and the
    columns whose cells contain their values."""
    coverage = loss_coverage(m)
    covers = {
        "discernibility": coverage["qi"],
        "c_avg": coverage["qi"],
        "whd_total": coverage["hierarchy"],
        "whd_mean": coverage["hierarchy"],
        "precision": coverage["hierarchy"],
        "gcp": coverage["gcp"],
    }
    rows = []
    for name, value in (m.get("loss") or {}).items():
        if isinstance(value, bool) or not (value is None or isinstance(value, (int, float))):
            continue  # the lists of columns and levels: said by the figures' rows
        columns = covers.get(str(name))
        rows.append(
            [
                figure_label(str(name), lang),
                figure(value, lang=lang),
                ", ".join(columns) if columns and value is not None else "—",
            ]
        )
    return rows


def _path(source: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = source
    for step in path:
        node = node.get(step) if isinstance(node, Mapping) else None
    return node


@dataclass(frozen=True)
class _Document:
    """What every section of the HTML document reads: the report as a mapping, its words
    in ``lang``, and the report's measurement and attacks."""

    data: Mapping[str, Any]
    words: Any
    lang: str

    def label(self, name: str, **params: Any) -> str:
        return text(f"report.html.{name}", self.lang, **params)

    @property
    def measurement(self) -> Mapping[str, Any]:
        return self.data.get("measurement") or {}

    @property
    def attacks(self) -> Mapping[str, Any]:
        return self.data.get("attacks") or {}

    @property
    def prints(self) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
        return (self.data.get("fingerprint") or {}, self.data.get("release_fingerprint") or {})


def _title_and_verdict(doc: _Document) -> list[str]:
    """The title, the tables' names and the verdict with its reasons and conditions."""
    data, words, label = doc.data, doc.words, doc.label
    verdict = data["verdict"] if data["verdict"] in _VERDICTS else "not_ready"
    prints = doc.prints
    parts: list[str] = []
    parts.append(f"<header><h1>{_e(label('title'))}</h1>")
    names = " · ".join(_e(p.get("name")) for p in prints if p.get("name"))
    parts.append(
        f'<p class="meta">{_e(label("created"))}: {_e(_when(data.get("created")))}'
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
    return parts


def _thresholds_and_checks(doc: _Document) -> list[str]:
    """The thresholds in force, and every check with its value and status."""
    data, words, lang, label = doc.data, doc.words, doc.lang, doc.label
    parts: list[str] = []
    parts.append(f'<section id="thresholds"><h2>{_e(label("thresholds"))}</h2>')
    rows = []
    for name, value in (data.get("thresholds") or {}).items():
        shown = label("not_required") if value is None else limit(value)
        rows.append([text(f"report.threshold.{name}", lang), shown])
    parts.append(_table([label("check"), label("threshold")], rows, lang=lang))
    parts.append("</section>")
    parts.append(f'<section id="checks"><h2>{_e(label("checks"))}</h2>')
    parts.append(
        _table(
            [label("check"), label("value"), label("threshold"), label("status"), ""],
            [
                [
                    c.label,
                    figure(raw.get("value"), lang=lang),
                    c.requirement,
                    _status(raw["status"], lang),
                    c.sentence,
                ]
                for c, raw in zip(words.checks, data.get("checks") or [], strict=True)
            ],
            numeric=(1,),
            lang=lang,
        )
    )
    parts.append("</section>")
    return parts


#: What a page of the document holds, piece by piece.
_Content = Callable[["_Document"], Iterator[str]]


def _page(name: str) -> Callable[[_Content], Callable[[_Document], list[str]]]:
    """The document's page ``name``: its section and its heading around what the
    decorated function yields."""

    def around(content: _Content) -> Callable[[_Document], list[str]]:
        @functools.wraps(content)
        def page(doc: _Document) -> list[str]:
            opening = f'<section class="page" id="{name}"><h2>{_e(doc.label(name))}</h2>'
            return [opening, *content(doc), "</section>"]

        return page

    return around


@_page("data")
def _data_roles_algorithm(doc: _Document) -> Iterator[str]:
    """The two tables (names, fingerprints, sizes), the roles and the algorithm."""
    data, lang, label = doc.data, doc.lang, doc.label
    prints = doc.prints
    yield _table(
        ["", label("name"), label("sha256"), label("rows"), label("columns")],
        [
            [
                label(which),
                p.get("name") or "—",
                _Raw(f'<span class="mono">{_e(p.get("sha256"))}</span>'),
                figure(p.get("rows"), lang=lang),
                figure(p.get("columns"), lang=lang),
            ]
            for which, p in zip(("original", "release"), prints, strict=True)
        ],
        numeric=(3, 4),
        lang=lang,
    )
    yield f"<h3>{_e(label('roles'))}</h3>"
    roles = data.get("roles") or {}
    yield _table(
        [label("roles"), label("columns")],
        [
            [label("qi"), ", ".join(map(str, roles.get("qi") or []))],
            [label("sa"), ", ".join(map(str, roles.get("sa") or []))],
            [label("key"), roles.get("key") or label("by_position")],
        ],
        lang=lang,
    )
    yield f"<h3>{_e(label('algorithm'))}</h3>"
    if data.get("algorithm"):
        rows = _algorithm_rows(data["algorithm"], lang)
        yield _table([label("name"), label("value")], rows, lang=lang)
    else:
        yield f"<p>{_e(label('unknown'))}</p>"


@_page("models")
def _privacy_models(doc: _Document) -> Iterator[str]:
    """k, l, c and t of the release, and each requested model's verdict."""
    lang, label = doc.lang, doc.label
    m = doc.measurement
    yield _table(
        ["k", label("classes"), label("rows"), label("suppressed_rows")],
        [[figure(m.get(n), lang=lang) for n in ("k", "classes", "rows", "suppressed_rows")]],
        numeric=(0, 1, 2, 3),
        lang=lang,
    )
    sa_rows = []
    for s in m.get("sa") or []:
        t = (m.get("t_closeness") or {}).get(s) or {}
        sa_rows.append(
            [
                s,
                figure((m.get("l_distinct") or {}).get(s), lang=lang),
                figure((m.get("l_entropy") or {}).get(s), lang=lang),
                figure((m.get("recursive_c") or {}).get(s), lang=lang),
                text(
                    "report.html.t_value",
                    lang,
                    t=figure(t.get("t"), lang=lang),
                    distance=_distance(t.get("distance"), lang),
                ),
            ]
        )
    yield _table(
        [
            label("attribute"),
            label("l_distinct"),
            label("l_entropy"),
            label("recursive_c"),
            label("t_closeness"),
        ],
        sa_rows,
        numeric=(1, 2, 3),
        lang=lang,
    )
    yield _table(
        [label("models"), label("requirement"), label("achieved"), label("result")],
        [
            [
                model_title(v.get("parameters"), str(v.get("model") or "—"), lang),
                requirement(v.get("parameters"), str(v.get("requirement") or "—"), lang),
                _achieved(v.get("achieved"), lang),
                _status("pass" if v.get("passed") else "fail", lang),
            ]
            for v in m.get("verdicts") or []
        ],
        lang=lang,
    )


@_page("privacy")
def _privacy_level_and_loss(doc: _Document) -> Iterator[str]:
    """PL, DR and UL (all attributes and each), and the information loss."""
    lang, label = doc.lang, doc.label
    m = doc.measurement
    pl = m.get("pl") or {}
    yield _table(
        [label("pl_all"), label("dr"), label("ul")],
        [[pl.get("all"), m.get("dr"), m.get("ul")]],
        numeric=(0, 1, 2),
        lang=lang,
    )
    yield f"<p>{_e(label('pl_explain'))}</p>"
    yield f"<h3>{_e(label('pl_attribute'))}</h3>"
    yield _table(
        [label("attribute"), "PL"],
        [[name, figure(value, lang=lang)] for name, value in pl.items() if name != "all"],
        numeric=(1,),
        lang=lang,
    )
    yield f"<h3>{_e(label('loss'))}</h3>"
    yield _table(
        [label("metric"), label("value"), label("covers")],
        _loss_rows(m, lang),
        numeric=(1,),
        lang=lang,
    )


@_page("attacks")
def _attacks(doc: _Document) -> Iterator[str]:
    """The attacks' figures before vs after, the roll, and the row order."""
    data, lang, label = doc.data, doc.lang, doc.label
    a = doc.attacks
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
    yield _table(
        [label("figure"), label("before"), label("after")],
        [[name, _path(before, p), _path(a, p)] for name, p in figures],
        (1, 2),
        lang=lang,
    )
    roll = a.get("roll") or {}
    seed = roll.get("seed")
    size = figure(roll.get("size"), lang=lang)
    yield f"<p>{_e(label('roll', size=size, seed='—' if seed is None else seed))}</p>"
    order = (data.get("findings") or {}).get("order") or {}
    if order:
        yield f"<h3>{_e(label('order'))}</h3>"
        matched = label("matched_key" if order.get("matched_by") == "key" else "matched_position")
        published = label("published_shuffled" if order.get("shuffled") else "published_as_is")
        yield _table(
            [label("figure"), label("value")],
            [
                [label("matched_by"), matched],
                [label("spearman"), figure(order.get("spearman"), lang=lang)],
                [label("rows_in_place"), figure(order.get("rows_in_place"), lang=lang)],
                [label("published"), published],
            ],
            lang=lang,
        )


def _article29(doc: _Document) -> list[str]:
    """Singling out, linkability and inference (measured unless left out)."""
    lang = doc.lang
    data = doc.data
    parts: list[str] = []
    risks = data.get("gdpr_risks")
    if risks:
        parts.append(
            f'<section class="page" id="gdpr"><h2>{_e(text("risk.attacks_title", lang))}</h2>'
        )
        parts.append(f"<p>{_e(text('risk.attacks_help', lang))}</p>")
        rows = article29_rows(risks, lang)
        parts.append(
            _table(list(rows[0]), [list(r.values()) for r in rows], numeric=(1, 3, 4), lang=lang)
        )
        parts.append(f"<p>{_e(control_sentence(risks, lang))}</p>")
        warned = article29_warnings(risks, lang)
        if warned:
            parts.append("<ul>" + "".join(f"<li>{_e(w)}</li>" for w in warned) + "</ul>")
        parts.append("</section>")
    return parts


def report_sections(report: Any, lang: str) -> tuple[Any, list[str]]:
    """The words of ``report`` in ``lang`` and its sections as HTML parts, the verdict
    first (what :func:`render_html` and the dossier's document put in their ``<main>``)."""
    check_language(lang)
    doc = _Document(as_dict(report), texts_of(report, lang), lang)
    parts: list[str] = []
    for section in (
        _title_and_verdict,
        _thresholds_and_checks,
        _data_roles_algorithm,
        _privacy_models,
        _privacy_level_and_loss,
        _attacks,
        _article29,
    ):
        parts += section(doc)
    if doc.words.notes:
        parts.append(f'<section id="notes"><h2>{_e(doc.label("notes"))}</h2><ul>')
        parts += [f"<li>{_e(n)}</li>" for n in doc.words.notes]
        parts.append("</ul></section>")
    return doc.words, parts


def html_document(title: str, parts: Sequence[str], lang: str, created: Any) -> str:
    """One self-contained HTML document: ``title`` (text, escaped here), the ``parts``
    (markup built from escaped pieces) and the footer with the version and ``created``."""
    footer = (
        f"<footer>{_e(text('report.html.generated_by', lang))} {_e(__version__)} · "
        f"{_e(_when(created))}</footer>"
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join([*parts, footer])
        + "\n</main>\n</body>\n</html>\n"
    )


def render_html(report: Any, lang: str = "en") -> str:
    """``report`` (a :class:`~privcore.report.ReadinessReport`, or its ``to_dict()``) as
    one HTML document in ``lang`` ("en" or "zh"; another raises
    :class:`~privcore.errors.ParameterError`): the verdict, the thresholds and checks,
    the data and roles, the privacy models, PL/DR/UL and loss, the attacks, singling out
    and the notes, in that order."""
    words, parts = report_sections(report, lang)
    title = f"{text('report.html.title', lang)} · {words.verdict}"
    return html_document(title, parts, lang, as_dict(report).get("created"))
