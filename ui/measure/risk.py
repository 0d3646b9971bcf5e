"""Risk beyond class sizes on the Privacy level page (SPEC §11).

Inputs: the sampling fraction (the data set's share of its population: 1/10 by default,
that of the attack simulator's voter roll; taken from the population table when the page
has one) and an optional control set (records of the population never released; without
one a seeded share of the original is held out). Results (:func:`render`, from
:meth:`privcore.report.risk.RiskAssessment.to_dict`): population uniqueness (the model
Dankar et al.'s rule chose and the share of the population unique), Benedetti–Franconi
individual risk (expected re-identifications, the largest record risk), SUDA2 special
uniques, δ-presence and k-map (with a population), and singling out, linkability and
inference per sensitive attribute, each with its 95 % interval and the naive attacker's
baseline (Anonymeter's definitions), the control set's source and sizes, and the attacks'
warnings in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from privcore.data import to_csv_bytes
from privcore.errors import PrivcoreError
from privcore.report.risk import DEFAULT_ROLL_FACTOR
from privcore.words.risks import article29_rows, article29_warnings, control_sentence
from ui.common.components import fmt
from ui.common.errors import show_error
from ui.common.i18n import current_language, escape_md, t, t_plain
from ui.common.population_risk import metric, population_metrics
from ui.common.state import keep, load_upload
from ui.common.workspace.shelf import RELEASE_TYPES

#: The sampling fraction offered first: the default voter roll's (one record in ten).
DEFAULT_FRACTION = 1.0 / DEFAULT_ROLL_FACTOR
#: The smallest sampling fraction the input takes (a register of 10⁴ people per record).
LOWEST_FRACTION = 1e-4


def inputs(
    population: pd.DataFrame | None, *, on_engine: bool = False
) -> tuple[float | None, pd.DataFrame | None]:
    """The sampling fraction (None when ``population`` gives it) and the uploaded control
    set (None: a share of the original held out). ``on_engine``: a table opened in an
    engine, which has no population table to choose."""
    left, right = st.columns([1, 1])
    with left:
        fraction = st.number_input(
            t("risk.fraction"),
            min_value=LOWEST_FRACTION,
            max_value=1.0,
            value=DEFAULT_FRACTION,
            step=0.01,
            format="%.4f",
            help=t("risk.fraction_help_engine" if on_engine else "risk.fraction_help"),
            disabled=population is not None,
            key=keep("pl_risk_fraction"),
        )
        if population is not None:
            st.caption(t("risk.fraction_from_population", people=f"{len(population):,}"))
    with right:
        upload = st.file_uploader(
            t("risk.control_upload"),
            type=RELEASE_TYPES,
            help=t("risk.control_help"),
            key="pl_risk_control",
        )
        control = None
        if upload is not None:
            try:
                control = load_upload(upload.getvalue(), upload.name).frame
            except PrivcoreError as exc:
                show_error(exc)
    return (None if population is not None else float(fraction)), control


def attack_rows(result: Mapping[str, Any]) -> pd.DataFrame:
    """Singling out, linkability and inference per sensitive attribute: one row each with
    the risk, its interval, the naive attacker's baseline and the attacks made."""
    return pd.DataFrame(article29_rows(result, current_language()))


def warnings_of(result: Mapping[str, Any]) -> list[str]:
    """The attacks' warnings in words (each once, in order)."""
    return article29_warnings(result, current_language())


def render(result: Mapping[str, Any], *, on_engine: bool = False) -> None:
    """The figures of one assessment (``RiskAssessment.to_dict()``; ``on_engine``: of a
    table opened in an engine, which has no population table to choose)."""
    source = result["sampling_fraction_source"]
    st.caption(
        t(
            "risk.fraction_used",
            fraction=f"{float(result['sampling_fraction']):.4g}",
            source=t_plain(f"risk.source_{source}"),
        )
    )
    population_metrics(result)
    presence = result.get("delta_presence")
    if presence is not None:
        cols = st.columns(2)
        with cols[0]:
            metric(
                t_plain("risk.delta"),
                f"{fmt(presence['min'], 4)} – {fmt(presence['max'], 4)}",
                t_plain("risk.delta_help"),
            )
        with cols[1]:
            metric(t_plain("risk.k_map"), str(result["k_map"]["k"]), t_plain("risk.k_map_help"))
    else:
        st.caption(t("risk.no_population_engine" if on_engine else "risk.no_population"))
    if "singling_out" not in result:
        return
    _attacks(result)


def _attacks(result: Mapping[str, Any]) -> None:
    st.markdown(f"**{t('risk.attacks_title')}**")
    st.caption(t("risk.attacks_help"))
    st.dataframe(attack_rows(result), hide_index=True)
    st.caption(escape_md(control_sentence(result, current_language())))
    for warning in warnings_of(result):
        st.warning(warning, icon=":material/warning:")
    sample = result["control"].get("sample")
    if sample:
        st.caption(
            t(
                "risk.sampled",
                rows=f"{int(sample['rows']):,}",
                records=f"{int(sample['records']):,}",
            )
        )


#: The riskiest rows the per-record view shows (the download has every row).
SHOWN_RECORDS = 200


def records(assessment: Any) -> None:
    """Per record (sdcMicro's view): the riskiest released rows first — their QI cells,
    individual risk, SUDA and DIS scores and MSUs — and a CSV of every row."""
    table = assessment.record_risks()
    names = {
        "row": t_plain("risk.rec_row"),
        "individual_risk": t_plain("risk.rec_individual"),
        "suda_score": t_plain("risk.rec_suda"),
        "dis_score": t_plain("risk.rec_dis"),
        "msus": t_plain("risk.rec_msus"),
    }
    ranked = table.sort_values(
        ["individual_risk", "suda_score"], ascending=False, kind="stable"
    ).head(SHOWN_RECORDS)
    with st.expander(t("risk.records_title")):
        st.caption(t("risk.records_help", shown=SHOWN_RECORDS))
        st.dataframe(ranked.rename(columns=names), hide_index=True, width="stretch")
        st.download_button(
            t("risk.records_download"),
            data=lambda: to_csv_bytes(table.rename(columns=names)),
            file_name="record_risks.csv",
            mime="text/csv",
            on_click="ignore",
            key="pl_risk_records",
        )


__all__ = [
    "attack_rows",
    "inputs",
    "records",
    "render",
    "warnings_of",
]
