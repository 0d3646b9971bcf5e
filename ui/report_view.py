"""The Streamlit rendering of a readiness report: verdict, reasons with what would fix
them, conditions, every check, the figures it rests on and its notes; the thresholds'
controls of the Report page, and the page on a table opened in an engine
(:func:`table_page`).

The words come from :func:`privcore.words.catalog.texts_of`, the same sentences the HTML document
(:mod:`privcore.words.report_html`) and the command line print. The page calls :func:`show_report`;
it returns the action of a "Try …" button pressed on this run (``{"action":
"anonymize", "k": 10}``, ``{"action": "shuffle"}``, ``{"action": "drop_columns",
"columns": [...]}``; see :mod:`privcore.report.checks`) for the page to carry out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from privcore.report import Thresholds
from privcore.report.thresholds import k_for_risk
from privcore.words.catalog import figure, texts_of
from privcore.words.labels import dataset_name
from privcore.words.risks import article29_rows, article29_warnings, control_sentence
from ui.i18n import current_language, escape_md, t, t_plain
from ui.state import Workbench, keep

__all__ = ["html_bytes", "show_report", "table_page", "threshold_controls"]

#: Session key: engine table → its last report, the parameters and the release's name.
TABLE_REPORTED = "rp_table_reported"

_STYLE = {
    "ready": ("green", ":material/verified:"),
    "ready_with_conditions": ("orange", ":material/rule:"),
    "not_ready": ("red", ":material/block:"),
}


def _path(source: Mapping[str, Any], *path: str) -> Any:
    node: Any = source
    for step in path:
        node = node.get(step) if isinstance(node, Mapping) else None
    return node


def _button(label: str | None, action: Any, key: str, chosen: list) -> None:
    # a label may name columns of the data: shown as text, never as Markdown
    if label and action and st.button(escape_md(label), key=key, icon=":material/build:"):
        chosen.append(dict(action))


def _figures(report: Any) -> None:
    """The figures the verdict rests on: the release's measurement, and the attacks on
    the original table and on the release."""
    m, a = report.measurement or {}, report.attacks or {}
    before = a.get("before") or {}
    measured = [
        ("k", m.get("k")),
        (t_plain("report.html.classes"), m.get("classes")),
        (t_plain("report.html.suppressed_rows"), m.get("suppressed_rows")),
        (t_plain("report.html.pl_all"), _path(m, "pl", "all")),
        (t_plain("report.html.dr"), m.get("dr")),
        (t_plain("report.html.ul"), m.get("ul")),
    ]
    for column, (label, value) in zip(st.columns(len(measured)), measured, strict=True):
        column.metric(label, figure(value))
    rows = [
        ("targets", ("linkage", "targets")),
        ("reidentified", ("linkage", "reidentified")),
        ("homogeneous_records", ("homogeneity", "records_exposed")),
        ("prosecutor_max", ("risk", "prosecutor_max")),
        ("journalist_max", ("risk", "journalist_max")),
        ("marketer", ("risk", "marketer")),
    ]
    table = [
        {
            t_plain("report.html.figure"): t_plain(f"report.html.{name}"),
            t_plain("report.html.before"): figure(_path(before, *path)),
            t_plain("report.html.after"): figure(_path(a, *path)),
        }
        for name, path in rows
    ]
    for attribute, count in (_path(a, "linkage", "attribute_disclosed") or {}).items():
        name = t_plain("report.html.disclosed", attribute=attribute)
        was = _path(before, "linkage", "attribute_disclosed", attribute)
        table.append(
            {
                t_plain("report.html.figure"): name,
                t_plain("report.html.before"): figure(was),
                t_plain("report.html.after"): figure(count),
            }
        )
    st.dataframe(table, hide_index=True, width="stretch")
    roll = a.get("roll") or {}
    st.caption(t("report.html.roll", size=figure(roll.get("size")), seed=roll.get("seed")))


def _article29(risks: Mapping[str, Any]) -> None:
    """Singling out, linkability and inference of the release, with their intervals, the
    naive attacker's baselines, the control set and the attacks' warnings."""
    lang = current_language()
    st.caption(t("risk.attacks_help"))
    st.dataframe(article29_rows(risks, lang), hide_index=True, width="stretch")
    st.caption(escape_md(control_sentence(risks, lang)))
    for warning in article29_warnings(risks, lang):  # about the figures, not the release
        st.caption(":material/info: " + escape_md(warning))


def show_report(report: Any, *, key: str = "report", actions: bool = True) -> dict | None:
    """Show ``report`` (a :class:`~privcore.report.ReadinessReport`) in the session's
    language. With ``actions``, every reason and condition that has a fix gets a
    "Try …" button (and several fixes one button trying them all); the action of the
    button pressed on this run is returned, else None. ``key`` prefixes the widget
    keys (one report per ``key`` on a page)."""
    words = texts_of(report, current_language())
    colour, icon = _STYLE.get(report.verdict, _STYLE["not_ready"])
    st.markdown(f"## :{colour}[{icon} {escape_md(words.verdict)}]")
    st.caption(escape_md(words.summary))
    names = [p.get("name") for p in (report.release_fingerprint, report.fingerprint)]
    if all(names):
        lang = current_language()
        st.caption(
            t(
                "report.view.about",
                release=dataset_name(names[0], lang),
                original=dataset_name(names[1], lang),
            )
        )
    chosen: list[dict] = []

    if words.reasons:
        st.markdown(f"**{t('report.html.reasons')}**")
    for index, (reason, said) in enumerate(zip(report.reasons, words.reasons, strict=True)):
        advice = f"  \n{escape_md(said.advice)}" if said.advice else ""
        st.error(escape_md(said.sentence) + advice, icon=":material/block:")
        if actions:
            _button(said.button, reason.get("action"), f"{key}_reason_{index}", chosen)
    if actions and words.fix:
        _button(words.fix, report.fix, f"{key}_fix_all", chosen)

    if words.conditions:
        st.markdown(f"**{t('report.html.conditions')}**")
    for index, (condition, said) in enumerate(
        zip(report.conditions, words.conditions, strict=True)
    ):
        st.warning(escape_md(said.sentence), icon=":material/rule:")
        if actions:
            _button(said.button, condition.get("action"), f"{key}_condition_{index}", chosen)

    with st.expander(t("report.html.checks"), expanded=not report.ready):
        st.dataframe(
            [
                {
                    t_plain("report.html.check"): said.label,
                    t_plain("report.html.value"): figure(check.get("value")),
                    t_plain("report.html.threshold"): said.requirement,
                    t_plain("report.html.status"): said.status,
                    "": said.sentence,
                }
                for check, said in zip(report.checks, words.checks, strict=True)
            ],
            hide_index=True,
            width="stretch",
        )
    with st.expander(t("report.view.figures")):
        _figures(report)
    if report.gdpr_risks:
        with st.expander(t("risk.attacks_title")):
            _article29(report.gdpr_risks)
    for note in words.notes:
        st.caption(escape_md(note))
    return chosen[0] if chosen else None


def html_bytes(report: Any, lang: str) -> bytes:
    """The report as the HTML document the page offers for download."""
    from privcore.words.report_html import render_html

    return render_html(report, lang=lang).encode("utf-8")


def threshold_controls() -> dict[str, Any]:
    """The Report page's thresholds (defaults: :class:`~privcore.report.Thresholds`),
    as the mapping a :class:`~privcore.runs.ReportRequest` takes. An empty prosecutor
    limit is 1/k, the risk a class of k records allows; an empty singling-out,
    linkability or inference limit is not required."""
    st.markdown(f"**{t('rp.thresholds')}**")
    defaults = Thresholds()
    c1, c2 = st.columns(2)
    min_k = c1.number_input(t("rp.min_k"), 1, 1000, defaults.min_k, key=keep("rp_min_k"))
    min_l = c2.number_input(
        t("rp.min_l"), 1.0, 50.0, float(defaults.min_l), 1.0, key=keep("rp_min_l")
    )
    max_pl = c1.number_input(
        t("rp.max_pl"), 0.0, 1.0, float(defaults.max_pl), 0.05, key=keep("rp_max_pl")
    )
    # empty: 1/k, the risk a class of k records allows (one requirement, said twice)
    max_prosecutor = c2.number_input(
        t("rp.max_prosecutor"),
        0.001,
        1.0,
        None,
        0.05,
        placeholder=t("rp.from_k", risk=f"{1 / int(min_k):.3f}"),
        help=t("rp.max_prosecutor_help"),
        key=keep("rp_max_pros"),
    )
    # empty: the prosecutor limit, as the three Article 29 risks below
    follows = t(
        "rp.from_k", risk=f"{(1 / int(min_k)) if max_prosecutor is None else max_prosecutor:.3f}"
    )
    max_journalist = c1.number_input(
        t("rp.max_journalist"),
        0.001,
        1.0,
        None,
        0.05,
        placeholder=follows,
        help=t("rp.max_journalist_help"),
        key=keep("rp_max_jour"),
    )
    max_reid = c2.number_input(
        t("rp.max_reidentified"),
        0.0,
        1.0,
        float(defaults.max_reidentified_share),
        0.01,
        key=keep("rp_max_reid"),
    )
    max_disclosed = c1.number_input(
        t("rp.max_disclosed"),
        0.0,
        1.0,
        float(defaults.max_disclosed_share),
        0.01,
        key=keep("rp_max_disc"),
    )
    max_suppressed = c2.number_input(
        t("rp.max_suppressed"),
        0.0,
        1.0,
        float(defaults.max_suppressed_share),
        0.01,
        key=keep("rp_max_sup"),
    )
    use_t = c1.toggle(t("rp.use_t"), key=keep("rp_use_t"))
    max_t = c2.number_input("t", 0.0, 1.0, 0.3, 0.05, key=keep("rp_max_t"), disabled=not use_t)
    # the Article 29 risks (singling out, linkability, inference): empty, the prosecutor
    # limit; the toggle (on by default) waives the three at once
    check_article29 = c2.toggle(
        t("rp.check_article29"),
        value=True,
        help=t("rp.check_article29_help"),
        key=keep("rp_check_a29"),
    )
    gdpr_limits: dict[str, float | None] = {}
    for column, (name, widget_key) in zip(
        (c1, c2, c1),
        (
            ("max_singling_out", "rp_max_so"),
            ("max_linkability", "rp_max_link"),
            ("max_inference", "rp_max_inf"),
        ),
        strict=True,
    ):
        value = column.number_input(
            t(f"report.threshold.{name}"),
            0.0,
            1.0,
            None,
            0.05,
            placeholder=follows if check_article29 else t("report.html.not_required"),
            help=t(f"report.threshold.{name}.help"),
            key=keep(widget_key),
            disabled=not check_article29,
        )
        if not check_article29:
            gdpr_limits[name] = None  # waived: measured and shown, not checked
        elif value is not None:  # left empty: the default, the prosecutor limit
            gdpr_limits[name] = float(value)
    for_k = int(min_k) if max_prosecutor is None else k_for_risk(float(max_prosecutor))
    if max_journalist is not None and k_for_risk(float(max_journalist)) > for_k:
        st.caption(
            t(
                "rp.journalist_needs_k",
                risk=f"{float(max_journalist):g}",
                k=k_for_risk(float(max_journalist)),
            )
        )
    return {
        "min_k": int(min_k),
        "min_l": float(min_l),
        "max_t": float(max_t) if use_t else None,
        "max_pl": float(max_pl),
        "max_prosecutor": None if max_prosecutor is None else float(max_prosecutor),
        **({} if max_journalist is None else {"max_journalist": float(max_journalist)}),
        "max_reidentified_share": float(max_reid),
        "max_disclosed_share": float(max_disclosed),
        "max_suppressed_share": float(max_suppressed),
        **gdpr_limits,
    }


def table_page(wb: Workbench) -> None:
    """The Report page on a table opened in an engine: a release file (by default the
    last one the Anonymize page wrote from it in this session; a file written shuffled
    is not paired by position), its rows paired with the table's by position or by a key
    column, the thresholds — and Generate: the readiness report computed in the engine
    (:func:`ui.large_table.report`; recorded as its measure, attack and report runs),
    shown as on a table in memory (verdict, reasons, conditions, checks, figures, notes)
    with its HTML document. The "Try …" actions act on releases in memory: not offered."""
    from ui import large_table
    from ui.workspace import file_stem, result_header

    key = wb.active
    table = wb.table(key)
    schema = wb.schema(key)
    if schema is None or not schema.quasi_identifiers or not schema.sensitive:
        st.warning(t("an.schema_first"), icon=":material/warning:")
        st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
        st.stop()
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    st.markdown(f"**{t('pl.original')}**: {escape_md(key)}")
    st.caption(t("an.columns_used", qi=", ".join(qi), sa=", ".join(sa)))
    left, right = st.columns([1, 1], gap="large")
    with left:
        release_path, key_column = large_table.release_file_input(table, key, page="rp")
        st.caption(t("rp.engine_roll"))
    with right:
        thresholds = threshold_controls()
    values = {"qi": qi, "sa": sa, "key": key_column, "thresholds": thresholds}
    params = {"release_file": str(release_path or "").strip(), "key": key_column, **thresholds}
    reported = st.session_state.setdefault(TABLE_REPORTED, {})
    outcome = large_table.run_buttons(
        go_label=t("rp.generate"),
        go_key="rp_go",
        cancel_key="rp_cancel",
        cancelled=t("rp.cancelled"),
        working=t("rp.working"),
        call=lambda bar: large_table.report(wb, key, schema, values, release_path, progress=bar),
    )
    if outcome is not None:
        made = outcome.result.recorded(outcome.summary, outcome.run_id)
        reported[key] = {
            "params": params,
            "name": large_table.file_name(release_path),
            "value": {"report": made, "seconds": outcome.seconds},
        }
    stored = reported.get(key)
    if stored is None:
        return
    made = stored["value"]["report"]
    current = result_header(
        stored,
        None,
        params,
        run_id=made.run_ids[-1] if made.run_ids else None,
        shown=("release_file", "key", "min_k", "min_l", "max_pl", "max_t"),
    )
    st.caption(
        t(
            "rp.recorded",
            ids=", ".join(f"#{i}" for i in made.run_ids) or "—",
            seconds=f"{stored['value']['seconds']:.1f}",
        )
    )
    show_report(made, key="rp", actions=False)
    st.download_button(
        t("rp.download_html"),
        data=functools.partial(html_bytes, made, current_language()),  # built on click
        file_name=f"{file_stem(Path(stored['name']).stem or 'release')}_readiness_report.html",
        mime="text/html",
        on_click="ignore",
        type="primary",
        key="rp_download",
        disabled=not current,
    )
    st.caption(t("rp.print_hint"))
