"""The release dossier on the Report page: the context of the release (entered once per
release, kept with it for the session), the thresholds it chooses, and — once the report
is made — the sign-off and the dossier's downloads (HTML, PDF, JSON)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

import streamlit as st

from privcore.config import history_scope
from privcore.data import Schema
from privcore.errors import PrivcoreError
from privcore.report.context import (
    ACCESS,
    JURISDICTIONS,
    ContextThresholds,
    ReleaseContext,
    context_thresholds,
)
from privcore.report.dossier import DECISIONS, SignOff, dossier_of
from privcore.words.dossier_html import render_dossier_html
from ui.common.errors import guard, show_error
from ui.common.i18n import current_language, error_text, escape_md, labels, t, t_plain
from ui.common.state import ShelfRelease, keep, load_upload, session_owner
from ui.common.workspace.shelf import RELEASE_TYPES
from ui.report.reproduce import dossier_files, page_reproduction

#: The context's limits a reason must explain when the page's own are kept.
_OWN_LIMITS = ("min_k", "max_prosecutor")
#: The dossier's files, each with its MIME type, as their download buttons stand.
_DOSSIER_FILES = {"html": "text/html", "pdf": "application/pdf", "json": "application/json"}


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.replace("\n", ",").split(",") if n.strip()]


def _date(column: Any, label: str, key: str) -> str | None:
    chosen = column.date_input(label, value=None, key=keep(key), format="YYYY-MM-DD")
    return None if chosen is None else chosen.isoformat()


def context_form(entry: ShelfRelease, columns: list[str]) -> ReleaseContext | None:
    """The context of ``entry`` (None while the dossier is off or the context incomplete;
    a wrong value is shown in words). Its widgets' values are kept per release."""
    scope = f"rp_ctx_{entry.id}"
    on = st.toggle(t("rp.dossier.on"), key=keep(f"{scope}_on"), help=t("rp.dossier.on_help"))
    if not on:
        return None
    c1, c2 = st.columns(2)
    recipient = c1.text_input(t("dossier.context.recipient"), key=keep(f"{scope}_recipient"))
    access = c2.selectbox(
        t("dossier.context.access"),
        ACCESS,
        format_func=labels(ACCESS, lambda a: t_plain(f"dossier.access.{a}")),
        key=keep(f"{scope}_access"),
    )
    purpose = c1.text_input(t("dossier.context.purpose"), key=keep(f"{scope}_purpose"))
    jurisdiction = c2.selectbox(
        t("dossier.context.jurisdiction"),
        (None, *JURISDICTIONS),
        format_func=labels(
            (None, *JURISDICTIONS),
            lambda j: "—" if j is None else t_plain(f"dossier.jurisdiction.{j}"),
        ),
        key=keep(f"{scope}_jurisdiction"),
    )
    known = c1.multiselect(
        t("dossier.context.attacker_knowledge"), columns, key=keep(f"{scope}_known")
    )
    registers = c2.text_input(t("rp.dossier.registers"), key=keep(f"{scope}_registers"))
    review = _date(c1, t("dossier.context.review_date"), f"{scope}_review")
    expiry = _date(c2, t("dossier.context.expiry_date"), f"{scope}_expiry")
    reviewers = st.text_input(t("rp.dossier.reviewers"), key=keep(f"{scope}_reviewers"))
    tables = st.text_area(
        t("rp.dossier.published_tables"),
        key=keep(f"{scope}_tables"),
        help=t("rp.dossier.published_tables_help"),
    )
    if not recipient.strip():
        st.info(t("rp.dossier.needs_recipient"), icon=":material/info:")
        return None
    given = {
        "recipient": recipient,
        "access": access,
        "purpose": purpose or None,
        "attacker_knowledge": [*known, *_names(registers)],
        "jurisdiction": jurisdiction,
        "review_date": review,
        "expiry_date": expiry,
        "reviewers": _names(reviewers),
        "published_tables": [
            [c.strip() for c in line.replace("×", ",").replace("*", ",").split(",") if c.strip()]
            for line in tables.splitlines()
            if line.strip()
        ],
    }
    try:
        return ReleaseContext.from_mapping(given)
    except PrivcoreError as exc:
        show_error(exc)
        return None


def chosen_thresholds(
    entry: ShelfRelease, context: ReleaseContext, page: Mapping[str, Any]
) -> ContextThresholds | None:
    """The thresholds ``context`` chooses: its access model's prosecutor limit, unless a
    reason is given to keep the page's own smallest class and prosecutor limit."""
    reason = st.text_input(
        t("rp.dossier.keep_own"),
        key=keep(f"rp_ctx_{entry.id}_reason"),
        help=t("rp.dossier.keep_own_help"),
    ).strip()
    own = {k: page[k] for k in _OWN_LIMITS if page.get(k) is not None} if reason else {}
    given = {**{k: v for k, v in page.items() if k not in _OWN_LIMITS}, **own}
    reasons = dict.fromkeys(own, reason)
    try:
        chosen = context_thresholds(context, given, reasons)
    except PrivcoreError as exc:
        show_error(exc)
        return None
    for choice in chosen.choices:
        if choice.source:
            st.caption(
                t(
                    "dossier.threshold_source",
                    name=t(f"report.threshold.{choice.name}"),
                    value=choice.value,
                    source=choice.source,
                )
            )
    return chosen


def report_thresholds(chosen: ContextThresholds, page: Mapping[str, Any]) -> dict[str, Any]:
    """The thresholds the report is checked against: the page's, the context's choices
    over them."""
    out = {k: v for k, v in page.items() if k not in _OWN_LIMITS}
    out.update({c.name: c.value for c in chosen.choices})
    return out


def sign_off_form(entry: ShelfRelease, context: ReleaseContext) -> SignOff | None:
    """The reviewers' decision and the conditions of sharing (None when incomplete, said
    in words)."""
    scope = f"rp_ctx_{entry.id}"
    c1, c2 = st.columns(2)
    decision = c1.selectbox(
        t("dossier.signoff.decision"),
        (None, *DECISIONS),
        format_func=labels(
            (None, *DECISIONS), lambda d: t_plain(f"dossier.decision.{d or 'pending'}")
        ),
        key=keep(f"{scope}_decision"),
    )
    conditions = c2.text_area(t("rp.dossier.conditions"), key=keep(f"{scope}_conditions"))
    try:
        return SignOff(
            reviewers=context.reviewers,
            decision=decision,
            conditions=tuple(line.strip() for line in conditions.splitlines() if line.strip()),
            signed=dt.date.today() if decision else None,
        )
    except PrivcoreError as exc:
        show_error(exc)
        return None


def dossier_downloads(
    report: Any,
    entry: ShelfRelease,
    original: Any,
    context: ReleaseContext,
    chosen: ContextThresholds,
    stem: str,
    held: Mapping[str, Any],
    schema: Schema,
    pairing: str,
) -> None:
    """The sign-off, then the dossier built on request and offered as HTML, PDF (when
    this machine can print one; otherwise why not, in words) and JSON; with the register
    asked for, the release is checked against the earlier ones (``held``: the tables of
    the session's releases, by fingerprint) and recorded; with a register the intruder
    holds uploaded, the release is linked with it (through the ``schema``'s
    hierarchies). A release made here also gets its spec and the script and notebook
    that redo it (``pairing``: how the report paired its rows)."""
    st.header(t("dossier.title"))
    sign_off = sign_off_form(entry, context)
    if sign_off is None:
        return
    built_key = f"rp_dossier_{entry.id}"
    registering = st.toggle(
        t("rp.dossier.register"),
        key=keep(f"rp_ctx_{entry.id}_register"),
        help=t("rp.dossier.register_help"),
    )
    intruder = intruder_register_form(entry, list(report.roles.get("qi") or []))
    if st.button(t("rp.dossier.build"), key=f"{built_key}_go", type="primary"):
        with guard():
            register = _register_findings(report, entry, context, held) if registering else None
            redo = page_reproduction(report, entry, original, schema, pairing, context, stem)
            dossier = dossier_of(
                report,
                context,
                chosen,
                original=original.frame,
                release=entry.frame,
                sign_off=sign_off,
                register=register,
                intruder_register=None
                if intruder is None
                else _intruder_linkage(report, entry, schema.hierarchies, intruder),
                **dossier_files(redo),
            )
            st.session_state[built_key] = _documents(dossier, current_language())
            st.session_state[built_key]["redo"] = redo
            if registering:
                entry_id = _register_entry(report, entry, context, sign_off)
                st.session_state[built_key]["entry"] = entry_id
    documents = st.session_state.get(built_key)
    if not documents:
        return
    for column, (kind, mime) in zip(st.columns(3), _DOSSIER_FILES.items(), strict=True):
        if kind == "pdf" and not documents.get("pdf"):  # no PDF made here: why
            column.warning(escape_md(documents["pdf_error"]), icon=":material/picture_as_pdf:")
            continue
        column.download_button(
            t(f"rp.dossier.{kind}"),
            documents[kind],
            file_name=f"{stem}_dossier.{kind}",
            mime=mime,
            key=f"{built_key}_{kind}",
        )
    _redo_downloads(documents.get("redo") or {}, built_key)
    st.caption(t("rp.dossier.sha", sha=documents["sha"]))
    if documents.get("entry") is not None:
        st.caption(t("rp.dossier.registered", entry=documents["entry"]))


def _redo_downloads(redo: Mapping[str, Any], built_key: str) -> None:
    """The spec, script and notebook that redo the release, or why there are none."""
    if "script" not in redo:
        if redo.get("why_text"):
            st.caption(escape_md(redo["why_text"]))
        elif redo.get("why"):
            st.caption(t(redo["why"]))
        return
    names = redo["names"]
    c1, c2, c3 = st.columns(3)
    for column, part, label, mime in (
        (c1, "spec", "rp.dossier.spec", "application/json"),
        (c2, "script", "rp.dossier.script", "text/x-python"),
        (c3, "notebook", "rp.dossier.notebook", "application/x-ipynb+json"),
    ):
        column.download_button(
            t(label), redo[part], file_name=names[part], mime=mime, key=f"{built_key}_{part}"
        )
    st.caption(t("rp.dossier.script_help"))


def intruder_register_form(entry: ShelfRelease, qi: list[str]) -> dict[str, Any] | None:
    """An optional register the intruder holds (an electoral roll, a customer file),
    uploaded, and its column of each quasi-identifier; None when none is uploaded or it
    cannot be read (said in words)."""
    scope = f"rp_ctx_{entry.id}_intruder"
    upload = st.file_uploader(
        t("rp.dossier.intruder_register"),
        type=RELEASE_TYPES,
        help=t("rp.dossier.intruder_register_help"),
        key=scope,
    )
    if upload is None:
        return None
    try:
        frame = load_upload(upload.getvalue(), upload.name).frame
    except PrivcoreError as exc:
        show_error(exc)
        return None
    names = [str(c) for c in frame.columns]
    columns = {}
    for column in qi:
        columns[column] = st.selectbox(
            t("at.map_column", qi=column),
            names,
            index=names.index(column) if column in names else 0,
            key=f"{scope}_map_{column}",
        )
    return {"frame": frame, "columns": columns, "name": upload.name}


def _intruder_linkage(
    report: Any, entry: ShelfRelease, hierarchies: Mapping[str, Any], given: Mapping[str, Any]
) -> dict[str, Any]:
    """The release linked with the uploaded register
    (:func:`privcore.report.intruder.register_linkage`): the release's own suppressed
    rows when it was made here, its kind when declared (made here, or DP synthetic),
    matches checked with the report's key."""
    from privcore.report.intruder import register_linkage

    return register_linkage(
        entry.frame,
        given["frame"],
        list(report.roles.get("qi") or []),
        columns=given["columns"],
        key=report.roles.get("key"),
        hierarchies=dict(hierarchies),
        blanked=entry.blanked,
        release_kind=entry.release_kind,
        name=given["name"],
    )


def held_releases(releases: list[ShelfRelease]) -> dict[str, Any]:
    """The session's releases by the fingerprint the register keeps of them."""
    from privcore.data import fingerprint

    return {fingerprint(r.frame).sha256: r.frame for r in releases}


def _owner() -> str | None:
    """Whose register the page reads and writes: on a hosted demo each session's own."""
    return session_owner() if history_scope() == "session" else None


def _register_findings(
    report: Any, entry: ShelfRelease, context: ReleaseContext, held: Mapping[str, Any]
) -> dict[str, Any]:
    """This release combined with every earlier one in the register its recipient can
    hold: the releases this session holds are read from memory, the others from their
    files (:func:`privcore.report.register.report_against_register`)."""
    from privcore.data import load
    from privcore.history import registered_releases
    from privcore.report.register import report_against_register

    return report_against_register(
        report,
        entry.frame,
        recipient=context.recipient,
        access=context.access,
        earlier=registered_releases(owner=_owner()),
        read=lambda path: load(path).frame,
        held=held,
    )


def _register_entry(
    report: Any, entry: ShelfRelease, context: ReleaseContext, sign_off: SignOff
) -> int:
    """Record the release in the register (no file: the session holds its rows)."""
    from privcore.history import register_release
    from privcore.report.register import register_entry

    return register_release(
        register_entry(
            report,
            recipient=context.recipient,
            access=context.access,
            release_name=entry.name,
            decision=sign_off.decision,
            owner=_owner(),
        )
    )


def _documents(dossier: Mapping[str, Any], lang: str) -> dict[str, Any]:
    from privcore.words.pdf import html_to_pdf

    page = render_dossier_html(dossier, lang)
    out: dict[str, Any] = {
        "html": page.encode("utf-8"),
        "json": json.dumps(dossier, ensure_ascii=False, indent=1).encode("utf-8"),
        "sha": dossier["dossier_sha256"],
    }
    try:
        out["pdf"] = html_to_pdf(page)
    except PrivcoreError as exc:
        out["pdf_error"] = error_text(exc)
    return out
