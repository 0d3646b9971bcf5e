"""Singling out, linkability and inference in words, for every place that shows them:
the Privacy level page (:mod:`ui.risk_view`), the Release report page
(:mod:`ui.report_view`) and the HTML report (:mod:`privcore.words.report_html`). Plain text, no
Streamlit: each caller escapes for its medium.

The figures come as :meth:`privcore.attacks.gdpr_risks.GdprRisks.to_dict` (a report's
``gdpr_risks``: ``control`` is the control set's source) or as the part of
:meth:`privcore.report.risk.RiskAssessment.to_dict` that holds them (``control`` is a
mapping of the source, the sizes and the warnings); :func:`control_of` reads either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privcore.words.catalog import text

__all__ = ["article29_rows", "article29_warnings", "control_of", "control_sentence", "share"]


def share(value: Any) -> str:
    """A share as a percentage with two decimals; "—" for None."""
    return "—" if value is None else f"{100.0 * float(value):.2f} %"


def interval(ci: Any) -> str:
    """A confidence interval of shares, in percent; "—" without one."""
    if not ci:
        return "—"
    low, high = ci
    return f"{100.0 * float(low):.1f} – {100.0 * float(high):.1f} %"


def control_of(risks: Mapping[str, Any]) -> dict[str, Any]:
    """The control set's ``source``, ``training_rows``, ``control_rows`` and the
    warnings of the whole measurement, from either form of the figures."""
    control = risks.get("control")
    if isinstance(control, Mapping):
        return dict(control)
    return {
        "source": control,
        "training_rows": risks.get("training_rows"),
        "control_rows": risks.get("control_rows"),
        "warnings": list(risks.get("warnings") or []),
    }


def article29_rows(risks: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    """One row per attack (singling out, linkability — when it was measured — and the
    inference of each sensitive attribute): its name, the risk, the interval, the naive
    attacker's baseline and the number of attacks, under headers in ``lang``."""
    rows: list[dict[str, Any]] = []

    def add(label: str, found: Mapping[str, Any] | None) -> None:
        if found is None:
            return
        rows.append(
            {
                text("risk.col_attack", lang): label,
                text("risk.col_risk", lang): share(found.get("risk")),
                text("risk.col_ci", lang): interval(found.get("ci")),
                text("risk.col_baseline", lang): share(found.get("baseline")),
                text("risk.col_attacks", lang): int(found.get("n_attacks") or 0),
            }
        )

    add(text("risk.singling_out", lang), risks.get("singling_out"))
    add(text("risk.linkability", lang), risks.get("linkability"))
    for name, found in (risks.get("inference") or {}).items():
        add(text("risk.inference_of", lang, column=name), found)
    return rows


def article29_warnings(risks: Mapping[str, Any], lang: str) -> list[str]:
    """The attacks' warnings in words, each once, in order."""
    codes: list[str] = []
    for name in ("singling_out", "linkability"):
        codes += list((risks.get(name) or {}).get("warnings") or [])
    for found in (risks.get("inference") or {}).values():
        codes += list(found.get("warnings") or [])
    codes += list(control_of(risks).get("warnings") or [])
    return [text(f"gdpr_risk.warning.{code}", lang) for code in dict.fromkeys(codes)]


def control_sentence(risks: Mapping[str, Any], lang: str) -> str:
    """Where the control set came from and the sizes of the two sets."""
    control = control_of(risks)
    return text(
        "risk.control_words",
        lang,
        source=text(f"risk.control_{control.get('source')}", lang),
        control=f"{int(control.get('control_rows') or 0):,}",
        training=f"{int(control.get('training_rows') or 0):,}",
    )
