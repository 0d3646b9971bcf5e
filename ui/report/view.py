"""The Streamlit rendering of a readiness report: verdict, reasons with what would fix
them, conditions, every check, the figures it rests on and its notes; and the report's
HTML document to download.

The words come from :func:`privcore.words.catalog.texts_of`, the same sentences the HTML
document (:mod:`privcore.words.report_html`) and the command line print. The page calls
:func:`show_report`; it returns the action of a "Try …" button pressed on this run
(``{"action": "anonymize", "k": 10}``, ``{"action": "shuffle"}``, ``{"action":
"drop_columns", "columns": [...]}``; see :mod:`privcore.report.checks`) for the page to
carry out.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import streamlit as st

from privcore.words.catalog import figure, texts_of
from privcore.words.labels import dataset_name
from privcore.words.report_html import render_html
from privcore.words.risks import article29_rows, article29_warnings, control_sentence
from ui.common.i18n import current_language, escape_md, t, t_plain
from ui.common.state import ShelfRelease
from ui.common.workspace.results import result_header

__all__ = ["html_bytes", "html_download", "recorded_caption", "show_report"]

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
    return render_html(report, lang=lang).encode("utf-8")


def recorded_caption(report: Any, seconds: float) -> None:
    """The runs the report was recorded as, and how long it took."""
    st.caption(
        t(
            "rp.recorded",
            ids=", ".join(f"#{i}" for i in report.run_ids) or "—",
            seconds=f"{seconds:.1f}",
        )
    )


def show_kept(
    stored: Mapping[str, Any],
    entry: ShelfRelease | None,
    params: Mapping[str, Any],
    *,
    shown: tuple[str, ...],
    actions: bool,
) -> tuple[Any, bool, dict | None]:
    """The report kept on the page (``stored``: its parameters and its ``value``, the
    report and the seconds it took), of the release ``entry`` (None: a release file):
    its header (:func:`result_header`, naming the report's own run and the parameters
    ``shown``), the runs it was recorded as, and the report, with its "Try …" actions
    when ``actions`` and the report is current. Returns the report, whether it is
    current, and the action pressed on this run (else None)."""
    report = stored["value"]["report"]
    current = result_header(
        stored,
        entry,
        params,
        run_id=report.run_ids[-1] if report.run_ids else None,
        shown=shown,
    )
    recorded_caption(report, stored["value"]["seconds"])
    chosen = show_report(report, key="rp", actions=actions and current)
    return report, current, chosen


def html_download(report: Any, stem: str, *, current: bool) -> None:
    """The report's HTML document (``<stem>_readiness_report.html``, built on click;
    offered only while the report is ``current``) and how to print it."""
    st.download_button(
        t("rp.download_html"),
        data=functools.partial(html_bytes, report, current_language()),  # built on click
        file_name=f"{stem}_readiness_report.html",
        mime="text/html",
        on_click="ignore",
        type="primary",
        key="rp_download",
        disabled=not current,
    )
    st.caption(t("rp.print_hint"))
