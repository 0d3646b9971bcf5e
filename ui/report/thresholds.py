"""The thresholds of the Report page (defaults: :class:`~privcore.report.Thresholds`),
as the mapping a :class:`~privcore.runs.ReportRequest` takes."""

from __future__ import annotations

from typing import Any

import streamlit as st

from privcore.report import Thresholds
from privcore.report.thresholds import k_for_risk
from ui.common.i18n import t
from ui.common.state import keep


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
    max_prosecutor, max_journalist, follows = _risk_limits(c1, c2, int(min_k))
    max_reid = _share(c2, t("rp.max_reidentified"), defaults.max_reidentified_share, "rp_max_reid")
    max_disclosed = _share(c1, t("rp.max_disclosed"), defaults.max_disclosed_share, "rp_max_disc")
    max_suppressed = _share(c2, t("rp.max_suppressed"), defaults.max_suppressed_share, "rp_max_sup")
    use_t = c1.toggle(t("rp.use_t"), key=keep("rp_use_t"))
    max_t = c2.number_input("t", 0.0, 1.0, 0.3, 0.05, key=keep("rp_max_t"), disabled=not use_t)
    gdpr_limits = _article29_limits(c1, c2, follows)
    reconstruction = _reconstruction_limit(c1, c2)
    _journalist_note(int(min_k), max_prosecutor, max_journalist)
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
        **reconstruction,
    }


def _reconstruction_limit(c1: Any, c2: Any) -> dict[str, float]:
    """The limit on the share of records rebuilt from the tables published beside the
    release: checked only when the toggle (off by default: up to a minute of solving)
    asks for it."""
    check = c1.toggle(
        t("report.threshold.check_reconstruction"),
        value=False,
        help=t("report.threshold.check_reconstruction.help"),
        key=keep("rp_check_rec"),
    )
    value = c2.number_input(
        t("report.threshold.max_reconstructed_share"),
        0.0,
        1.0,
        0.05,
        0.01,
        help=t("report.threshold.max_reconstructed_share.help"),
        key=keep("rp_max_rec"),
        disabled=not check,
    )
    return {"max_reconstructed_share": float(value)} if check else {}


def _risk_limits(c1: Any, c2: Any, min_k: int) -> tuple[float | None, float | None, str]:
    """The prosecutor and journalist limits (empty: from k), and the words of the limit
    an empty one follows."""
    # empty: 1/k, the risk a class of k records allows (one requirement, said twice)
    max_prosecutor = c2.number_input(
        t("rp.max_prosecutor"),
        0.001,
        1.0,
        None,
        0.05,
        placeholder=t("rp.from_k", risk=f"{1 / min_k:.3f}"),
        help=t("rp.max_prosecutor_help"),
        key=keep("rp_max_pros"),
    )
    # empty: the prosecutor limit, as the three Article 29 risks below
    follows = t(
        "rp.from_k", risk=f"{(1 / min_k) if max_prosecutor is None else max_prosecutor:.3f}"
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
    return max_prosecutor, max_journalist, follows


def _share(column: Any, label: str, default: float, widget_key: str) -> float:
    """A limit on a share of the records, from 0 to 1."""
    return column.number_input(label, 0.0, 1.0, float(default), 0.01, key=keep(widget_key))


def _article29_limits(c1: Any, c2: Any, follows: str) -> dict[str, float | None]:
    """The Article 29 risks (singling out, linkability, inference): empty, the
    prosecutor limit; the toggle (on by default) waives the three at once."""
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
    return gdpr_limits


def _journalist_note(
    min_k: int, max_prosecutor: float | None, max_journalist: float | None
) -> None:
    """Say so when the journalist limit asks for a larger k than the prosecutor's."""
    for_k = min_k if max_prosecutor is None else k_for_risk(float(max_prosecutor))
    if max_journalist is not None and k_for_risk(float(max_journalist)) > for_k:
        st.caption(
            t(
                "rp.journalist_needs_k",
                risk=f"{float(max_journalist):g}",
                k=k_for_risk(float(max_journalist)),
            )
        )
