"""The role editor and the column profile of the Data & roles page."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from privcore.data import ROLES, Dataset, Role, Schema, profile, suggest_roles
from privcore.errors import PrivcoreError
from privcore.runs import Inputs
from privcore.runs.analysis_requests import ProfileRequest
from ui.common.charts import show_chart
from ui.common.errors import show_error
from ui.common.heavy import heavy_button, run_heavy
from ui.common.i18n import labels, t, t_plain
from ui.common.state import Workbench, is_bundled
from ui.common.workspace.results import guard_run


def role_label(role: str) -> str:
    return t(f"role.{role}")


def editor_key(dataset_key: str) -> str:
    return f"roles::{dataset_key}"


@st.cache_data(scope="session", max_entries=16, show_spinner=False)
def _suggestions(_dataset: Dataset, sha256: str) -> list[dict]:
    return [s.to_dict() for s in suggest_roles(_dataset.frame)]


@st.cache_data(scope="session", max_entries=16, show_spinner=False)
def _profile(_dataset: Dataset, sha256: str) -> pd.DataFrame:
    return profile(_dataset.frame)


# A bundled sample is the same for every visitor: its profile and suggestions are
# computed once per server (a visitor's upload stays in the session's own cache).
@st.cache_data(max_entries=8, show_spinner=False)
def _public_suggestions(_dataset: Dataset, sha256: str) -> list[dict]:
    return [s.to_dict() for s in suggest_roles(_dataset.frame)]


@st.cache_data(max_entries=8, show_spinner=False)
def _public_profile(_dataset: Dataset, sha256: str) -> pd.DataFrame:
    return profile(_dataset.frame)


def suggestions_for(dataset: Dataset) -> list[dict]:
    cached = _public_suggestions if is_bundled(dataset) else _suggestions
    return cached(dataset, dataset.fingerprint.sha256)


def profile_for(dataset: Dataset) -> pd.DataFrame:
    cached = _public_profile if is_bundled(dataset) else _profile
    return cached(dataset, dataset.fingerprint.sha256)


def reason_text(suggestion: dict) -> str:
    """The reason of a suggestion in the current language."""
    details = suggestion.get("details", {})
    ratio = details.get("unique_ratio")
    params = {
        "word": details.get("word", ""),
        "pattern": t_plain(f"pattern.{details.get('pattern', '')}")
        if details.get("pattern")
        else "",
        "ratio": f"{ratio:.0%}" if isinstance(ratio, (int, float)) else "",
    }
    key = f"reason.{suggestion['rule']}"
    text = t_plain(key, **params)  # a table cell: no Markdown there
    if suggestion["rule"] == "name_pattern" and "unique" in suggestion["reason"]:
        text += " " + t_plain("reason.also_unique", **params)
    return text


def render_unnamed_column(wb: Workbench, key: str, dataset: Dataset) -> None:
    """A note on an uploaded table's unnamed first column (a written index, see
    :class:`privcore.data.loading.UnnamedColumn`) and the choice: drop it, or keep it
    under a name ("index" unless changed)."""
    unnamed = dataset.unnamed_first
    if unnamed is None or key not in wb.uploads:
        return
    with st.container(border=True):
        if unnamed.running_index:
            start = unnamed.start or 0
            note = t(
                "data.unnamed_index",
                name=unnamed.name,
                start=start,
                second=start + 1,
                third=start + 2,
            )
        else:
            note = t("data.unnamed_column", name=unnamed.name)
        st.info(note, icon=":material/info:")
        drop, name, keep_it = st.columns([2, 3, 2], vertical_alignment="bottom")
        dropped = drop.button(
            t("data.unnamed_drop"),
            key=f"unnamed_drop::{key}",
            type="primary" if unnamed.running_index else "secondary",
        )
        new_name = name.text_input(
            t("data.unnamed_name"), value=unnamed.name, key=f"unnamed_name::{key}"
        )
        kept = keep_it.button(t("data.unnamed_keep"), key=f"unnamed_keep::{key}")
    if not (dropped or kept):
        return
    try:
        changed = (
            dataset.drop_column(unnamed.name)
            if dropped
            else dataset.rename_column(unnamed.name, new_name)
        )
    except PrivcoreError as exc:
        show_error(exc)
        return
    renamed = None if dropped else str(new_name).strip()
    replace_dataset(wb, key, changed, unnamed.name, renamed)
    st.rerun()


def replace_dataset(
    wb: Workbench, key: str, changed: Dataset, column: str, renamed: str | None
) -> None:
    """Put ``changed`` (the upload ``key`` with ``column`` dropped, or renamed to
    ``renamed``) in place of the upload; its schemas follow (the column's role and
    hierarchy dropped or renamed), and the releases made from the table before are
    let go, since they no longer match it."""

    def moved(mapping: Mapping[str, Any]) -> dict[str, Any]:
        return {
            (renamed if name == column else name): value
            for name, value in mapping.items()
            if name != column or renamed is not None
        }

    wb.uploads[key] = changed
    for store in (wb.drafts, wb.confirmed):
        schema = store.get(key)
        if schema is not None:
            store[key] = Schema(moved(schema.roles), moved(schema.hierarchies))
    st.session_state.pop(editor_key(key), None)
    for entry in wb.releases(key):
        wb.remove_release(entry.id)


def render_profile(dataset: Dataset) -> None:
    table = profile_for(dataset)
    kinds = table["type"].map(lambda kind: t_plain(f"profile.kind.{kind}"))
    shown = table.assign(type=kinds).rename(
        columns={
            "column": t("profile.column"),
            "type": t("profile.type"),
            "distinct": t("profile.distinct"),
            "missing": t("profile.missing"),
            "missing_share": t("profile.missing_share"),
            "uniqueness": t("profile.uniqueness"),
            "examples": t("profile.examples"),
        }
    )
    st.dataframe(
        shown,
        hide_index=True,
        column_config={
            t("profile.missing_share"): st.column_config.NumberColumn(format="percent"),
            t("profile.uniqueness"): st.column_config.ProgressColumn(
                min_value=0.0, max_value=1.0, format="percent", help=t("profile.uniqueness_help")
            ),
        },
    )
    chart = (
        alt.Chart(table)
        .mark_bar()
        .encode(
            x=alt.X(
                "uniqueness:Q", title=t("profile.uniqueness_axis"), scale=alt.Scale(domain=[0, 1])
            ),
            y=alt.Y("column:N", title=None, sort="-x"),
            tooltip=[
                alt.Tooltip("column:N", title=t("profile.column")),
                alt.Tooltip("distinct:Q", title=t("profile.distinct")),
                alt.Tooltip("uniqueness:Q", title=t("profile.uniqueness"), format=".1%"),
            ],
        )
    )
    rule = alt.Chart(pd.DataFrame({"x": [0.95]})).mark_rule(strokeDash=[4, 4]).encode(x="x:Q")
    show_chart(chart + rule, key="data_roles_chart_data")
    st.caption(t("profile.chart_caption"))


def difference_note(suggested: str, confirmed: str | None) -> str:
    """The role editor's note on a column whose confirmed role is not the suggested one
    (Adult's salary-class: suggested sensitive, confirmed quasi-identifier); empty
    otherwise."""
    if confirmed is None or confirmed == suggested:
        return ""
    return t_plain(
        "roles.differs",
        suggested=t_plain(f"role.{suggested}"),
        chosen=t_plain(f"role.{confirmed}"),
    )


def render_roles(wb: Workbench, key: str, dataset: Dataset) -> None:
    """The role editor of a data set in memory (:func:`edit_roles`)."""
    suggestions = suggestions_for(dataset)
    edit_roles(
        wb,
        key,
        suggestions,
        lambda schema: confirm(wb, key, dataset, schema, suggestions),
    )


def edit_roles(
    wb: Workbench, key: str, suggestions: list[dict], on_confirm: Callable[[Schema], Any]
) -> None:
    """The role editor of data set ``key``, one row per suggestion (``to_dict()`` of a
    :class:`~privcore.data.roles.RoleSuggestion`); keeps the draft schema in sync with the
    edits, and calls ``on_confirm(schema)`` when the user confirms."""
    confirmed = wb.schema(key)
    # the grid starts from the draft: it holds the grid's edits and the form's changes
    base = wb.drafts.get(key) or confirmed or Schema({s["column"]: s["role"] for s in suggestions})
    confirmed_roles = {} if confirmed is None else confirmed.roles
    frame = pd.DataFrame(
        {
            "column": [s["column"] for s in suggestions],
            "role": [base.roles.get(s["column"], Role(s["role"])).value for s in suggestions],
            "suggested": [s["role"] for s in suggestions],
            "note": [
                difference_note(
                    s["role"],
                    confirmed_roles[s["column"]].value if s["column"] in confirmed_roles else None,
                )
                for s in suggestions
            ],
            "review": [s["confidence"] == "low" for s in suggestions],
            "reason": [reason_text(s) for s in suggestions],
        }
    )
    st.caption(t("roles.help"))
    edited = st.data_editor(
        frame,
        key=editor_key(key),
        hide_index=True,
        disabled=["column", "suggested", "note", "review", "reason"],
        column_config={
            "column": st.column_config.TextColumn(t("roles.column")),
            "role": st.column_config.SelectboxColumn(
                t("roles.role"),
                options=[r.value for r in ROLES],
                format_func=role_label,
                required=True,
                help=t("roles.role_help"),
            ),
            "suggested": st.column_config.SelectboxColumn(
                t("roles.suggested"), options=[r.value for r in ROLES], format_func=role_label
            ),
            "note": st.column_config.TextColumn(t("roles.note"), help=t("roles.note_help")),
            "review": st.column_config.CheckboxColumn(
                t("roles.review"), help=t("roles.review_help")
            ),
            "reason": st.column_config.TextColumn(t("roles.reason"), width="large"),
        },
    )
    roles = dict(zip(edited["column"], edited["role"], strict=True))
    draft = wb.draft(key)
    wb.drafts[key] = Schema(roles, draft.hierarchies)
    schema = wb.drafts[key]
    role_form(wb, key, schema)

    differing = frame.loc[frame["note"] != "", "column"].tolist()
    if differing:
        st.caption(t("roles.differs_summary", columns=", ".join(differing)))
    n_review = int(frame["review"].sum())
    if n_review:
        st.warning(t("roles.needs_review", n=n_review), icon=":material/rate_review:")
    if not schema.quasi_identifiers:
        st.warning(t("roles.no_qi"), icon=":material/warning:")
    if not schema.sensitive:
        st.info(t("roles.no_sa"), icon=":material/info:")
    missing_h = [c for c in schema.quasi_identifiers if c not in schema.hierarchies]
    if missing_h:
        st.info(
            t("roles.qi_without_hierarchy", columns=", ".join(missing_h)), icon=":material/info:"
        )

    # confirming profiles the table (a recorded run): a computing action of its own
    if heavy_button(t("roles.confirm"), key=f"confirm::{key}", cancel=False):
        on_confirm(schema)
    confirmed = wb.confirmed.get(key)
    if confirmed is not None and confirmed == schema:
        st.success(t("roles.confirmed_state"), icon=":material/check_circle:")


def role_form(wb: Workbench, key: str, schema: Schema) -> None:
    """The grid's twin for the keyboard and screen readers: choose a column and a role
    from two lists, then set it. The draft takes the role and the grid starts again from
    the draft (its own edits are already in it)."""
    if not schema.roles:
        return
    with st.expander(t("roles.form")):
        column = st.selectbox(
            t("roles.form_column"), options=list(schema.roles), key=f"role_form::{key}"
        )
        options = [r.value for r in ROLES]
        role = st.selectbox(
            t("roles.form_role"),
            options=options,
            index=options.index(Role(schema.roles[column]).value),
            format_func=labels(options, role_label),
            key=f"role_form_role::{key}::{column}",
        )
        if st.button(t("roles.form_apply"), key=f"role_form_apply::{key}"):
            wb.drafts[key] = schema.with_role(column, role)
            st.session_state.pop(editor_key(key), None)
            st.rerun()


def confirm(
    wb: Workbench, key: str, dataset: Dataset, schema: Schema, suggestions: list[dict]
) -> bool:
    """Validate ``schema``, keep it as the confirmed one, record a profile run.

    Returns whether it was confirmed (a validation error is shown inline).
    """
    return confirm_checked(
        wb,
        key,
        schema,
        suggestions,
        check=lambda: schema.validate(dataset.frame),
        original=dataset,
    )


def confirm_checked(
    wb: Workbench,
    key: str,
    schema: Schema,
    suggestions: list[dict],
    *,
    check: Callable[[], None],
    original: Any,
) -> bool:
    """Run ``check()`` (it raises when ``schema`` does not fit the data), keep
    ``schema`` as the confirmed one, and record a profile run of ``original`` with its
    roles (:meth:`~privcore.runs.analysis_requests.ProfileRequest.confirming`; ``original``: a
    table in memory, or a table opened in an engine with the profile its engine
    computed). Returns whether it was confirmed (a failed check is shown inline)."""
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - shown inline
        show_error(exc)
        return False
    wb.confirmed[key] = schema
    request = ProfileRequest.confirming(schema, {s["column"]: s["role"] for s in suggestions})
    outcome = guard_run(
        lambda: run_heavy(
            request,
            Inputs(original=original),
            label=t("roles.confirm"),
            page="data",
        )
    )
    if outcome is not None and outcome.run_id is not None:
        st.toast(t("roles.confirmed_toast", id=outcome.run_id), icon=":material/check_circle:")
    return True
