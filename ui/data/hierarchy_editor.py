"""The hierarchy editor of the Data & roles page: suggest, build, import, preview, export.

Every quasi-identifier without a hierarchy gets one suggested from its values and name
(:mod:`privcore.data.hierarchy_suggestions`), shown with its kind and why; one button
puts them all into the schema under edit, and the builder of a column starts from its
suggestion (its kind, its width, its groups in the mapping table), so a suggestion can
be changed before use (the suggestions themselves: :mod:`ui.common.hierarchy_suggestions`,
which the Anonymize page offers too when an algorithm stops for want of a hierarchy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from privcore.data import Dataset, Hierarchy, interval_hierarchy, value_keys
from privcore.data.hierarchy import builders
from privcore.data.hierarchy_suggestions import HierarchySuggestion
from privcore.errors import ParameterError
from ui.common.errors import guard
from ui.common.hierarchy_suggestions import (
    kind_text,
    preview_frame,
    reason_text,
    suggestion_for,
    suggestion_table,
    use_suggested,
)
from ui.common.i18n import labels, t, t_plain
from ui.common.state import Workbench, keep, workbench

METHODS = ("intervals", "cuts", "rounding", "masking", "dates", "mapping", "arx")
#: The builder that makes (and edits) a suggestion of each kind.
KIND_METHOD = {
    "intervals": "intervals",
    "masking": "masking",
    "dates": "dates",
    "frequency": "mapping",
    "suppress": "mapping",
}
_CANDIDATE = "hierarchy_candidate"
_USED = "hierarchy_suggestions_used"  # data set → the columns just given their suggestion

_MAX_MAPPING_VALUES = 1000


# --------------------------------------------------------------------------- suggestions


def without_hierarchy(wb: Workbench, key: str, dataset: Dataset) -> list[str]:
    """The quasi-identifiers of the schema under edit that have no hierarchy."""
    draft = wb.draft(key)
    return [c for c in draft.quasi_identifiers if c not in draft.hierarchies]


def render_suggestions(wb: Workbench, key: str, dataset: Dataset) -> None:
    """The suggested hierarchies of the quasi-identifiers without one, and the button
    that uses them all."""
    used = st.session_state.get(_USED, {}).pop(key, None)
    if used:
        st.success(t("hsug.used", columns=", ".join(used)), icon=":material/check_circle:")
    columns = without_hierarchy(wb, key, dataset)
    if not columns:
        return
    suggestions = {c: s for c in columns if (s := suggestion_for(dataset, c)) is not None}
    st.markdown(f"**{t('hsug.title')}**")
    st.caption(t("hsug.lead"))
    if suggestions:
        suggestion_table(suggestions, dataset.frame)
    nothing = [c for c in columns if c not in suggestions]
    if nothing:
        st.warning(t("hsug.none_for", columns=", ".join(nothing)), icon=":material/warning:")
    if suggestions and st.button(
        t("hsug.use_all"),
        type="primary",
        key=f"use_suggested::{key}",
        help=t("hsug.use_all_help"),
    ):
        given = use_suggested(wb, key, dataset, list(suggestions))
        st.session_state.setdefault(_USED, {})[key] = given
        st.rerun()


# --------------------------------------------------------------------------- builders


def _parse_numbers(text: str) -> list[float]:
    try:
        return [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError as exc:
        raise ParameterError(
            t_plain("hierarchy.bad_numbers", text=text), code="parameter.numbers", text=text
        ) from exc


def _scope() -> str:
    """Builder values are kept per data set (a column name may recur in another)."""
    return workbench().active


def _kept(widget: Callable[..., Any], label: str, short: str, column: str, **options: Any) -> Any:
    """A builder's parameter: ``widget`` labelled ``label``, its value kept per data set
    and column (key ``<short>::<column>``)."""
    return widget(label, key=keep(f"{short}::{column}", scope=_scope()), **options)


def _build_pressed(column: str) -> bool:
    """The column's Build button: pressed on this run?"""
    return st.button(t("hierarchy.build"), key=f"b::{column}")


def _build(
    method: str, column: str, values: pd.Series, suggestion: HierarchySuggestion | None = None
) -> Hierarchy | None:
    """Draw the parameter widgets of one builder, starting from the column's suggested
    hierarchy where it is of this builder's kind; return the hierarchy when asked."""
    numeric = pd.api.types.is_numeric_dtype(values.dtype)
    if method == "intervals":
        # the width's default: from the span of the finite numbers (flags have none)
        tenth = 1.0  # a tenth of the span
        if numeric and not pd.api.types.is_bool_dtype(values.dtype):
            finite = values.astype("float64")
            finite = finite[finite.abs() < float("inf")]  # NaN and ±inf left out
            # each end divided first: the span of ±1e308 is no float, its tenth is
            tenth = float(finite.max() / 10 - finite.min() / 10) if len(finite) else 1.0
        default = float(max(1.0, round(tenth))) if tenth else 1.0
        if suggestion is not None and suggestion.kind == "intervals":
            default = float(suggestion.params["width"])
        width = _kept(
            st.number_input, t("hierarchy.width"), "w", column, min_value=0.0, value=default
        )
        levels = _kept(
            st.number_input,
            t("hierarchy.levels"),
            "l",
            column,
            min_value=0,
            value=0,
            step=1,
            help=t("hierarchy.levels_help"),
        )
        if _build_pressed(column):
            return interval_hierarchy(values, width=width, levels=levels or None)
    elif method == "cuts":
        text = _kept(
            st.text_area, t("hierarchy.cuts"), "c", column, value="", help=t("hierarchy.cuts_help")
        )
        if _build_pressed(column):
            cuts = [_parse_numbers(line) for line in text.splitlines() if line.strip()]
            return builders.cut_hierarchy(values, cuts)
    elif method == "rounding":
        text = _kept(
            st.text_input,
            t("hierarchy.digits"),
            "d",
            column,
            value="1, 2",
            help=t("hierarchy.digits_help"),
        )
        if _build_pressed(column):
            digits = [int(d) for d in _parse_numbers(text)]
            return builders.rounding_hierarchy(values, digits=digits)
    elif method == "masking":
        char = _kept(st.text_input, t("hierarchy.mask_char"), "m", column, value="*", max_chars=1)
        if _build_pressed(column):
            return builders.masking_hierarchy(values, mask_char=char or "*")
    elif method == "dates":
        dayfirst = _kept(st.checkbox, t("hierarchy.dayfirst"), "df", column, value=True)
        if _build_pressed(column):
            return builders.date_hierarchy(values, dayfirst=dayfirst)
    elif method == "mapping":
        return _mapping_builder(column, values, suggestion)
    elif method == "arx":
        upload = st.file_uploader(t("hierarchy.arx_file"), type=["csv", "txt"], key=f"a::{column}")
        if upload is not None and st.button(t("hierarchy.import"), key=f"b::{column}"):
            return Hierarchy.read_arx(upload.getvalue(), name=column)
    return None


def _mapping_builder(
    column: str, values: pd.Series, suggestion: HierarchySuggestion | None = None
) -> Hierarchy | None:
    """The mapping table, its levels filled in from the suggested hierarchy (whatever
    its kind: any hierarchy is a mapping table), to be edited."""
    distinct = value_keys(values.dropna()).drop_duplicates().sort_values()
    if len(distinct) > _MAX_MAPPING_VALUES:
        st.warning(t("hierarchy.too_many_values", n=len(distinct), limit=_MAX_MAPPING_VALUES))
        return None
    suggested = None
    if suggestion is not None:
        suggested = suggestion.hierarchy.to_frame().drop_duplicates("level 0")
        suggested = suggested.set_index("level 0")
        if suggested.shape[1] >= 2 and suggested.iloc[:, -2].nunique() > 1:
            suggested = suggested.iloc[:, :-1]  # the top * is added on build
    depth = _kept(
        st.number_input,
        t("hierarchy.mapping_levels"),
        "ml",
        column,
        min_value=0,
        max_value=max(6, 0 if suggested is None else suggested.shape[1]),
        value=1 if suggested is None else suggested.shape[1],
    )
    table = pd.DataFrame({"value": distinct.to_numpy()})
    for level in range(1, int(depth) + 1):
        if suggested is not None and level <= suggested.shape[1]:
            filled = suggested.iloc[:, level - 1].reindex(distinct.to_numpy()).fillna("")
            table[f"level {level}"] = filled.to_numpy(dtype=object)
        else:
            table[f"level {level}"] = ""
    st.caption(t("hierarchy.mapping_help"))
    edited = st.data_editor(
        table,
        hide_index=True,
        disabled=["value"],
        key=f"mt::{column}::{depth}",
        column_config={
            "value": st.column_config.TextColumn(t_plain("hierarchy.level_n", n=0)),
            **{
                f"level {level}": st.column_config.TextColumn(t_plain("hierarchy.level_n", n=level))
                for level in range(1, int(depth) + 1)
            },
        },
    )
    if _build_pressed(column):
        return builders.mapping_hierarchy(edited)
    return None


def render(wb: Workbench, key: str, dataset: Dataset) -> None:
    render_suggestions(wb, key, dataset)
    frame = dataset.frame
    draft = wb.draft(key)
    columns = [str(c) for c in frame.columns]
    qis = set(draft.quasi_identifiers)
    ordered = sorted(columns, key=lambda c: (c not in qis, columns.index(c)))
    column = st.selectbox(
        t("hierarchy.column"),
        ordered,
        format_func=labels(
            ordered, lambda c: f"{c} ({t_plain('role.quasi_identifier')})" if c in qis else c
        ),
        key=keep(f"hcol::{key}", valid=lambda c: c in ordered),
    )
    values = frame[column]
    current = draft.hierarchies.get(column)
    suggestion = suggestion_for(dataset, column)

    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**{t('hierarchy.build_title')}**")
        method = st.radio(
            t("hierarchy.method"),
            METHODS,
            index=METHODS.index(default_method(suggestion)),
            format_func=labels(METHODS, lambda m: t(f"hierarchy.m.{m}")),
            key=keep(f"hm::{key}::{column}"),
        )
        with guard():
            built = _build(method, column, values, suggestion)
            if built is not None:
                st.session_state[_CANDIDATE] = (key, column, built)
    with right:
        candidate = st.session_state.get(_CANDIDATE)
        if candidate and candidate[0] == key and candidate[1] == column:
            _show_candidate(wb, key, column, candidate[2], values)
        elif current is not None:
            _show_current(wb, key, column, current, values)
        elif suggestion is not None:
            _show_suggestion(wb, key, column, suggestion, values)
        else:
            st.info(t("hierarchy.none_yet"), icon=":material/info:")


def default_method(suggestion: HierarchySuggestion | None) -> str:
    """The builder a column starts with: the one of its suggested hierarchy's kind
    (text: masking or the mapping table; numbers: intervals; dates: dates)."""
    return "mapping" if suggestion is None else KIND_METHOD[suggestion.kind]


def uncovered_error(uncovered: Sequence[Any]) -> None:
    """Say which values of the data a hierarchy leaves out (the first five)."""
    st.error(
        t("hierarchy.uncovered", n=len(uncovered), values=", ".join(map(str, uncovered[:5]))),
        icon=":material/error:",
    )


def coverage(hierarchy: Hierarchy, values: pd.Series) -> None:
    """Whether ``hierarchy`` covers every value in ``values``, said as an error (the
    values left out) or a success (its height)."""
    uncovered = hierarchy.uncovered_values(values)
    if uncovered:
        uncovered_error(uncovered)
    else:
        st.success(t("hierarchy.covers", height=hierarchy.height), icon=":material/check_circle:")


def _preview(hierarchy: Hierarchy, values: pd.Series) -> None:
    """Whether ``hierarchy`` covers the column's ``values`` (:func:`coverage`), and the
    levels it gives them."""
    coverage(hierarchy, values)
    st.dataframe(preview_frame(hierarchy, values), hide_index=True)


def _show_candidate(
    wb: Workbench, key: str, column: str, hierarchy: Hierarchy, values: pd.Series
) -> None:
    st.markdown(f"**{t('hierarchy.preview_title')}**")
    _preview(hierarchy, values)
    use, discard = st.columns(2)
    if use.button(
        t("hierarchy.use"),
        type="primary",
        key=f"use::{column}",
        disabled=bool(hierarchy.uncovered_values(values)),
    ):
        wb.drafts[key] = wb.draft(key).with_hierarchy(column, hierarchy)
        st.session_state.pop(_CANDIDATE, None)
        st.rerun()
    if discard.button(t("hierarchy.discard"), key=f"discard::{column}"):
        st.session_state.pop(_CANDIDATE, None)
        st.rerun()


def _show_suggestion(
    wb: Workbench, key: str, column: str, suggestion: HierarchySuggestion, values: pd.Series
) -> None:
    st.markdown(f"**{t('hsug.suggested_title')}**")
    st.caption(
        t("hsug.suggested_caption", kind=kind_text(suggestion), reason=reason_text(suggestion))
    )
    _preview(suggestion.hierarchy, values)
    if st.button(t("hierarchy.use"), type="primary", key=f"use_suggestion::{column}"):
        wb.drafts[key] = wb.draft(key).with_hierarchy(column, suggestion.hierarchy)
        st.rerun()


def _show_current(
    wb: Workbench, key: str, column: str, hierarchy: Hierarchy, values: pd.Series
) -> None:
    st.markdown(f"**{t('hierarchy.current_title')}**")
    _preview(hierarchy, values)
    export_or_remove(wb, key, column, hierarchy, file_name=f"hierarchy_{column}.csv")


def export_or_remove(
    wb: Workbench,
    key: str,
    column: str,
    hierarchy: Hierarchy,
    *,
    file_name: str,
    prefix: str = "",
) -> None:
    """Side by side: download the column's hierarchy as an ARX file (built on click), or
    take it off the draft schema (widget keys ``<prefix>exp::`` and ``<prefix>rm::``)."""
    export, remove = st.columns(2)
    export.download_button(
        t("hierarchy.export"),
        data=lambda: hierarchy.to_arx_csv().encode("utf-8"),  # built on click
        file_name=file_name,
        mime="text/csv",
        key=f"{prefix}exp::{column}",
        on_click="ignore",
    )
    if remove.button(t("hierarchy.remove"), key=f"{prefix}rm::{column}"):
        wb.drafts[key] = wb.draft(key).with_hierarchy(column, None)
        st.rerun()
