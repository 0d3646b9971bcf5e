"""A release dossier (:func:`privcore.report.dossier.build_dossier`) as one HTML document.

The verdict comes first, then what a reviewer reads before signing — the context and
the thresholds it chose, the sign-off, the evidence of each Article 29 criterion, the
motivated intruder record, the register of earlier releases — then the whole readiness
report (:func:`~privcore.words.report_html.report_sections`), the fingerprints and how
to redo the release. Every section has a stable ``id`` (:data:`SECTIONS`): the checklist
of ``docs/dossier-checklist.md`` points at them. Every value is escaped; every figure
is written by :func:`~privcore.words.catalog.figure` in the document's language, every
code by its words in the catalogue (``dossier.*``).
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from privcore.words.catalog import check_language, error_words, figure, has, percent, text
from privcore.words.report_html import html_document, report_sections

__all__ = ["SECTIONS", "render_dossier_html"]

#: The sections of a dossier's document, by ``id``, in order (those of the readiness
#: report in between: verdict, thresholds, checks, data, models, privacy, attacks, gdpr).
SECTIONS = (
    "context",
    "thresholds-chosen",
    "signoff",
    "evidence",
    "evidence-singling_out",
    "evidence-linkability",
    "evidence-inference",
    "evidence-population",
    "evidence-reconstruction",
    "intruder",
    "register",
    "fingerprints",
    "reproduction",
)


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _w(key: str, lang: str, **params: Any) -> str:
    return text(f"dossier.{key}", lang, **params)


def _code(prefix: str, code: Any, lang: str) -> str:
    """The words of a code (``dossier.<prefix>.<code>``), the code itself when the
    catalogue has none (a newer file read by an older version)."""
    key = f"dossier.{prefix}.{code}"
    return text(key, lang) if has(key) else str(code)


def _rows(rows: Sequence[tuple[str, Any]], lang: str) -> str:
    body = "".join(
        f"<tr><th>{_e(name)}</th><td>{_e(_shown(value, lang))}</td></tr>" for name, value in rows
    )
    return f"<table><tbody>{body}</tbody></table>"


def _shown(value: Any, lang: str) -> str:
    if value is None or value == [] or value == "":
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown(v, lang) for v in value)
    if isinstance(value, str):
        return value
    return figure(value, lang=lang)


def _interval(bounds: Any, lang: str, *, as_percent: bool = False) -> str:
    if not bounds or len(bounds) != 2 or None in bounds:
        return "—"
    low, high = (
        (percent(b, 1) for b in bounds) if as_percent else (figure(b, lang=lang) for b in bounds)
    )
    return f"[{low}, {high}]"


def _section(name: str, lang: str, body: Sequence[str], level: int = 2) -> list[str]:
    heading = f"<h{level}>{_e(_w('section.' + name, lang))}</h{level}>"
    return [f'<section id="{_e(name)}">', heading, *body, "</section>"]


def _context(dossier: Mapping[str, Any], lang: str) -> list[str]:
    context = dossier.get("context") or {}
    rows = []
    for key in (
        "recipient",
        "access",
        "purpose",
        "attacker_knowledge",
        "jurisdiction",
        "review_date",
        "expiry_date",
        "reviewers",
    ):
        value = context.get(key)
        if key in ("access", "jurisdiction") and value:
            value = _code(key, value, lang)
        rows.append((_w("context." + key, lang), value))
    return _section("context", lang, [_rows(rows, lang)])


def _thresholds_chosen(dossier: Mapping[str, Any], lang: str) -> list[str]:
    body = []
    for choice in dossier.get("thresholds_chosen") or []:
        name = text(f"report.threshold.{choice['name']}", lang)
        value = figure(choice.get("value"), lang=lang)
        if choice.get("reason"):
            said = _w("threshold_reason", lang, name=name, value=value, reason=choice["reason"])
        else:
            said = _w("threshold_source", lang, name=name, value=value, source=choice["source"])
        body.append(f"<p>{_e(said)}</p>")
    return _section("thresholds-chosen", lang, body)


def _sign_off(dossier: Mapping[str, Any], lang: str) -> list[str]:
    sign = dossier.get("sign_off") or {}
    decision = sign.get("decision")
    rows = [
        (_w("signoff.reviewers", lang), sign.get("reviewers")),
        (_w("signoff.decision", lang), _code("decision", decision or "pending", lang)),
        (_w("signoff.conditions", lang), sign.get("conditions")),
        (_w("signoff.signed", lang), sign.get("signed")),
    ]
    body = [_rows(rows, lang)]
    if dossier.get("decision_against_verdict"):
        body.append(f"<p><strong>{_e(_w('signoff.against', lang))}</strong></p>")
    return _section("signoff", lang, body)


def _criterion_rows(found: Mapping[str, Any], lang: str) -> list[tuple[str, Any]]:
    if found.get("status") == "not_measured":
        return [(_w("evidence.status", lang), _status_words(found, lang))]
    rows = [
        (_w("evidence.attack", lang), _code("attack", found.get("attack"), lang)),
        (_w("evidence.risk", lang), found.get("risk")),
        (_w("evidence.ci", lang, confidence=percent(found.get("confidence"))), None),
        (_w("evidence.baseline", lang), found.get("baseline")),
        (_w("evidence.threshold", lang), found.get("threshold")),
        (_w("evidence.status", lang), _status_words(found, lang)),
        (_w("evidence.attacks_run", lang), found.get("attacks_run")),
    ]
    rows[2] = (rows[2][0], _interval(found.get("ci"), lang))
    for item in found.get("supporting") or []:
        value = _shown(item.get("value"), lang)
        if item.get("interval"):
            value += " " + _interval(item["interval"], lang)
        rows.append((_code("figure", item.get("figure"), lang), value))
    for code in found.get("warnings") or []:
        key = f"gdpr_risk.warning.{code}"
        rows.append((_w("evidence.warning", lang), text(key, lang) if has(key) else str(code)))
    return rows


def _status_words(found: Mapping[str, Any], lang: str) -> str:
    status = found.get("status")
    said = _code("status", status, lang)
    note = found.get("note") or {}
    if status == "not_measured" and note.get("note"):
        said += " — " + _code("note", note["note"], lang)
    elif status == "not_measured" and note.get("error"):
        said += " — " + error_words(note, lang)  # the error that kept it from running
    return said


def _evidence(dossier: Mapping[str, Any], lang: str) -> list[str]:
    found = dossier.get("evidence") or {}
    body = [f"<p>{_e(_w('evidence.help', lang))}</p>"]
    for name in ("singling_out", "linkability"):
        rows = _criterion_rows(found.get(name) or {}, lang)
        body += _section(f"evidence-{name}", lang, [_rows(rows, lang)], level=3)
    inference = []
    for attribute, item in (found.get("inference") or {}).items():
        inference.append(f"<h4>{_e(attribute)}</h4>")
        inference.append(_rows(_criterion_rows(item, lang), lang))
    body += _section("evidence-inference", lang, inference, level=3)
    body += _section("evidence-population", lang, _population(found.get("population"), lang), 3)
    body += _section(
        "evidence-reconstruction", lang, _rebuilt(found.get("reconstruction"), lang), 3
    )
    return _section("evidence", lang, body)


def _population(found: Mapping[str, Any] | None, lang: str) -> list[str]:
    found = found or {}
    if found.get("status") != "measured":
        return [f"<p>{_e(_status_words(found, lang))}</p>"]
    rows = [
        (_w("population.share", lang), found.get("uniqueness_share")),
        (_w("population.model", lang), found.get("uniqueness_model")),
        (_w("population.range", lang), _interval(found.get("models_range"), lang)),
        (_w("population.expected", lang), found.get("expected_reidentifications")),
        (_w("population.max", lang), found.get("individual_max")),
        (_w("population.fraction", lang), found.get("sampling_fraction")),
    ]
    return [_rows(rows, lang), f"<p>{_e(_w('population.no_interval', lang))}</p>"]


def _rebuilt(found: Mapping[str, Any] | None, lang: str) -> list[str]:
    found = found or {}
    if found.get("status") == "not_measured":
        return [f"<p>{_e(_status_words(found, lang))}</p>"]
    tables = "; ".join(" × ".join(map(str, t)) for t in found.get("tables") or [])
    rows = [
        (_w("reconstruction.tables", lang), tables or None),
        (_w("reconstruction.exact", lang), found.get("exact_share")),
        (_w("reconstruction.reidentified", lang), found.get("reidentified_share")),
        (_w("evidence.threshold", lang), found.get("threshold")),
        (_w("evidence.status", lang), _status_words(found, lang)),
    ]
    return [_rows(rows, lang)]


def _intruder(dossier: Mapping[str, Any], lang: str) -> Iterator[str]:
    record = dossier.get("intruder") or {}
    yield f"<p>{_e(_w('intruder.help', lang))}</p>"
    yield _rows(
        [
            (
                _w("intruder.knowledge", lang),
                record.get("knowledge") or _w("intruder.qi_only", lang),
            ),
            (_w("intruder.qi", lang), record.get("qi")),
            (_w("intruder.registers", lang), record.get("registers")),
        ],
        lang,
    )
    if record.get("knowledge_not_qi"):
        missing = ", ".join(map(str, record["knowledge_not_qi"]))
        yield f"<p><strong>{_e(_w('intruder.not_qi', lang, columns=missing))}</strong></p>"
    head = "".join(
        f"<th>{_e(_w('intruder.' + h, lang))}</th>"
        for h in ("attack", "knowledge_used", "achieved")
    )
    body = []
    for run in record.get("attacks") or []:
        known = run.get("knowledge")
        if run.get("attack") == "reconstruction":  # tables of columns
            known = "; ".join(" × ".join(map(str, t)) for t in known or [])
        body.append(
            "<tr>"
            f"<td>{_e(_attack_name(run, lang))}</td>"
            f"<td>{_e(_shown(known, lang))}</td>"
            f"<td>{_e(_achieved(run, lang))}</td>"
            "</tr>"
        )
    yield f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _attack_name(run: Mapping[str, Any], lang: str) -> str:
    """The attack in words, with the file name of the intruder's register it used."""
    name = _code("attack", run.get("attack"), lang)
    if run.get("attack") == "linkage_register" and run.get("register"):
        name += f" ({run['register']})"
    return name


def _achieved(run: Mapping[str, Any], lang: str) -> str:
    """What one attack achieved, in words: records and share (with its interval)."""
    if run.get("attack") == "earlier_releases":
        return _code("register_status", run.get("status"), lang)
    if run.get("note"):
        return _code("status", "not_measured", lang) + " — " + _code("note", run["note"], lang)
    if run.get("attack") == "linkage_register":
        return _register_achieved(run, lang)
    share = run.get("share")
    params = {
        "records": figure(run.get("achieved"), lang=lang),
        "share": "—" if share is None else percent(share, 1),
        "interval": _interval(run.get("interval"), lang),
    }
    key = "intruder.achieved_interval" if run.get("interval") else "intruder.achieved_records"
    return _w(key, lang, **params)


def _register_achieved(run: Mapping[str, Any], lang: str) -> str:
    """The intruder register's linkage in words: re-identifications checked by the row
    key, or — without it — unique matches that are claims, said to be so."""
    params = {
        "unique": figure(run.get("unique_matches"), lang=lang),
        "size": figure(run.get("register_size"), lang=lang),
        "unique_share": percent(run.get("unique_share") or 0.0, 1),
        "unique_interval": _interval(run.get("unique_interval"), lang, as_percent=True),
    }
    if run.get("truth") != "key":
        return _w("intruder.register_claimed", lang, **params)
    share = run.get("reidentified_share")
    params.update(
        records=figure(run.get("reidentified"), lang=lang),
        targets=figure(run.get("targets"), lang=lang),
        share="—" if share is None else percent(share, 1),
        interval=_interval(run.get("reidentified_interval"), lang, as_percent=True),
        false=figure(run.get("false_matches"), lang=lang),
    )
    return _w("intruder.register_verified", lang, **params)


def _register(dossier: Mapping[str, Any], lang: str) -> list[str]:
    found = dossier.get("register") or {}
    body = [f"<p>{_e(_code('register_status', found.get('status'), lang))}</p>"]
    rows = []
    for item in found.get("checked") or []:
        rows.append(
            "<tr>"
            f"<td>{_e(item.get('entry'))}</td><td>{_e(item.get('recipient'))}</td>"
            f"<td>{_e(item.get('created'))}</td>"
            f"<td>{_e(_code('register_status', item.get('status'), lang))}</td>"
            f"<td>{_e(figure(item.get('min_effective_k'), lang=lang))}</td>"
            f"<td>{_e(figure(item.get('records_below_k'), lang=lang))}</td>"
            "</tr>"
        )
    if rows:
        names = ("entry", "recipient", "created", "status", "min_effective_k", "records_below_k")
        head = "".join(f"<th>{_e(_w('register.' + n, lang))}</th>" for n in names)
        body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    return _section("register", lang, body)


def _fingerprints(dossier: Mapping[str, Any], lang: str) -> list[str]:
    prints = dict(dossier.get("fingerprints") or {})
    prints["dossier"] = dossier.get("dossier_sha256")
    body = [f"<p>{_e(_w('fingerprints.help', lang))}</p>"]
    rows = "".join(
        f'<tr><th>{_e(_code("file", name, lang))}</th><td><span class="mono">{_e(sha)}</span>'
        "</td></tr>"
        for name, sha in prints.items()
    )
    body.append(f"<table><tbody>{rows}</tbody></table>")
    return _section("fingerprints", lang, body)


def _reproduction(dossier: Mapping[str, Any], lang: str) -> list[str]:
    script = (dossier.get("reproduction") or {}).get("script")
    key = "reproduction.script" if script else "reproduction.none"
    return _section("reproduction", lang, [f"<p>{_e(_w(key, lang, script=script or ''))}</p>"])


def render_dossier_html(dossier: Mapping[str, Any], lang: str = "en") -> str:
    """``dossier`` (the mapping of :func:`~privcore.report.dossier.build_dossier`) as one
    HTML document in ``lang`` ("en" or "zh")."""
    check_language(lang)
    words, report = report_sections(dossier["report"], lang)
    verdict_end = report.index("</section>") + 1  # the title and the verdict come first
    report[0] = f"<header><h1>{_e(_w('title', lang))}</h1>"
    parts = [
        *report[:verdict_end],
        *_context(dossier, lang),
        *_thresholds_chosen(dossier, lang),
        *_sign_off(dossier, lang),
        *_evidence(dossier, lang),
        *_section("intruder", lang, list(_intruder(dossier, lang))),
        *_register(dossier, lang),
        *report[verdict_end:],
        *_fingerprints(dossier, lang),
        *_reproduction(dossier, lang),
    ]
    title = f"{_w('title', lang)} · {words.verdict}"
    return html_document(title, parts, lang, (dossier["report"] or {}).get("created"))
