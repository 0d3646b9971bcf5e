"""The hierarchy editor of the Data & roles page: build, import, preview, export."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from privcore.data import (
    Dataset,
    Hierarchy,
    cut_hierarchy,
    date_hierarchy,
    interval_hierarchy,
    mapping_hierarchy,
    masking_hierarchy,
    rounding_hierarchy,
    value_keys,
)
from privcore.errors import ParameterError
from ui.errors import guard
from ui.i18n import t, t_plain
from ui.state import Workbench, keep, workbench

METHODS = ("intervals", "cuts", "rounding", "masking", "dates", "mapping", "arx")
_CANDIDATE = "hierarchy_candidate"
_MAX_PREVIEW = 500
_MAX_MAPPING_VALUES = 1000


def _parse_numbers(text: str) -> list[float]:
    try:
        return [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError as exc:
        raise ParameterError(
            t_plain("hierarchy.bad_numbers", text=text), code="parameter.numbers", text=text
        ) from exc


def preview_frame(hierarchy: Hierarchy, values: pd.Series) -> pd.DataFrame:
    """The hierarchy's rows for the values present in the data (at most 500)."""
    table = hierarchy.to_frame()
    present = set(value_keys(values.dropna()).unique())
    table = table[table.iloc[:, 0].isin(present)]
    return table.head(_MAX_PREVIEW)


def _scope() -> str:
    """Builder values are kept per data set (a column name may recur in another)."""
    return workbench().active


def _build(method: str, column: str, values: pd.Series) -> Hierarchy | None:
    """Draw the parameter widgets of one builder; return the hierarchy when asked."""
    numeric = pd.api.types.is_numeric_dtype(values.dtype)
    if method == "intervals":
        span = float(values.max() - values.min()) if numeric and values.notna().any() else 10.0
        default = float(max(1.0, round(span / 10))) if span else 1.0
        width = st.number_input(
            t("hierarchy.width"),
            min_value=0.0,
            value=default,
            key=keep(f"w::{column}", scope=_scope()),
        )
        levels = st.number_input(
            t("hierarchy.levels"),
            min_value=0,
            value=0,
            step=1,
            help=t("hierarchy.levels_help"),
            key=keep(f"l::{column}", scope=_scope()),
        )
        if st.button(t("hierarchy.build"), key=f"b::{column}"):
            return interval_hierarchy(values, width=width, levels=levels or None)
    elif method == "cuts":
        text = st.text_area(
            t("hierarchy.cuts"),
            value="",
            help=t("hierarchy.cuts_help"),
            key=keep(f"c::{column}", scope=_scope()),
        )
        if st.button(t("hierarchy.build"), key=f"b::{column}"):
            cuts = [_parse_numbers(line) for line in text.splitlines() if line.strip()]
            return cut_hierarchy(values, cuts)
    elif method == "rounding":
        text = st.text_input(
            t("hierarchy.digits"),
            value="1, 2",
            help=t("hierarchy.digits_help"),
            key=keep(f"d::{column}", scope=_scope()),
        )
        if st.button(t("hierarchy.build"), key=f"b::{column}"):
            return rounding_hierarchy(values, digits=[int(d) for d in _parse_numbers(text)])
    elif method == "masking":
        char = st.text_input(
            t("hierarchy.mask_char"),
            value="*",
            max_chars=1,
            key=keep(f"m::{column}", scope=_scope()),
        )
        if st.button(t("hierarchy.build"), key=f"b::{column}"):
            return masking_hierarchy(values, mask_char=char or "*")
    elif method == "dates":
        dayfirst = st.checkbox(
            t("hierarchy.dayfirst"), value=True, key=keep(f"df::{column}", scope=_scope())
        )
        if st.button(t("hierarchy.build"), key=f"b::{column}"):
            return date_hierarchy(values, dayfirst=dayfirst)
    elif method == "mapping":
        return _mapping_builder(column, values)
    elif method == "arx":
        upload = st.file_uploader(t("hierarchy.arx_file"), type=["csv", "txt"], key=f"a::{column}")
        if upload is not None and st.button(t("hierarchy.import"), key=f"b::{column}"):
            return Hierarchy.read_arx(upload.getvalue(), name=column)
    return None


def _mapping_builder(column: str, values: pd.Series) -> Hierarchy | None:
    distinct = value_keys(values.dropna()).drop_duplicates().sort_values()
    if len(distinct) > _MAX_MAPPING_VALUES:
        st.warning(t("hierarchy.too_many_values", n=len(distinct), limit=_MAX_MAPPING_VALUES))
        return None
    depth = st.number_input(
        t("hierarchy.mapping_levels"),
        min_value=1,
        max_value=6,
        value=1,
        key=keep(f"ml::{column}", scope=_scope()),
    )
    table = pd.DataFrame({"value": distinct.to_numpy()})
    for level in range(1, int(depth) + 1):
        table[f"level {level}"] = ""
    st.caption(t("hierarchy.mapping_help"))
    edited = st.data_editor(
        table, hide_index=True, disabled=["value"], key=f"mt::{column}::{depth}"
    )
    if st.button(t("hierarchy.build"), key=f"b::{column}"):
        return mapping_hierarchy(edited)
    return None


def render(wb: Workbench, key: str, dataset: Dataset) -> None:
    frame = dataset.frame
    draft = wb.draft(key)
    columns = [str(c) for c in frame.columns]
    qis = set(draft.quasi_identifiers)
    ordered = sorted(columns, key=lambda c: (c not in qis, columns.index(c)))
    column = st.selectbox(
        t("hierarchy.column"),
        ordered,
        format_func=lambda c: f"{c} ({t('role.quasi_identifier')})" if c in qis else c,
        key=keep(f"hcol::{key}", valid=lambda c: c in ordered),
    )
    values = frame[column]
    current = draft.hierarchies.get(column)

    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**{t('hierarchy.build_title')}**")
        method = st.radio(
            t("hierarchy.method"),
            METHODS,
            format_func=lambda m: t(f"hierarchy.m.{m}"),
            key=keep(f"hm::{key}::{column}"),
        )
        with guard():
            built = _build(method, column, values)
            if built is not None:
                st.session_state[_CANDIDATE] = (key, column, built)
    with right:
        candidate = st.session_state.get(_CANDIDATE)
        if candidate and candidate[0] == key and candidate[1] == column:
            _show_candidate(wb, key, column, candidate[2], values)
        elif current is not None:
            _show_current(wb, key, column, current, values)
        else:
            st.info(t("hierarchy.none_yet"), icon=":material/info:")


def _coverage(hierarchy: Hierarchy, values: pd.Series) -> None:
    uncovered = hierarchy.uncovered_values(values)
    if uncovered:
        st.error(
            t("hierarchy.uncovered", n=len(uncovered), values=", ".join(map(str, uncovered[:5]))),
            icon=":material/error:",
        )
    else:
        st.success(t("hierarchy.covers", height=hierarchy.height), icon=":material/check_circle:")


def _show_candidate(
    wb: Workbench, key: str, column: str, hierarchy: Hierarchy, values: pd.Series
) -> None:
    st.markdown(f"**{t('hierarchy.preview_title')}**")
    _coverage(hierarchy, values)
    st.dataframe(preview_frame(hierarchy, values), hide_index=True)
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


def _show_current(
    wb: Workbench, key: str, column: str, hierarchy: Hierarchy, values: pd.Series
) -> None:
    st.markdown(f"**{t('hierarchy.current_title')}**")
    _coverage(hierarchy, values)
    st.dataframe(preview_frame(hierarchy, values), hide_index=True)
    export, remove = st.columns(2)
    export.download_button(
        t("hierarchy.export"),
        data=hierarchy.to_arx_csv().encode("utf-8"),
        file_name=f"hierarchy_{column}.csv",
        mime="text/csv",
        key=f"exp::{column}",
        on_click="ignore",
    )
    if remove.button(t("hierarchy.remove"), key=f"rm::{column}"):
        wb.drafts[key] = wb.draft(key).with_hierarchy(column, None)
        st.rerun()
