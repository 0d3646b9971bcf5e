"""The runs of the Privacy level page on a release of the shelf: its measurement and its
risk beyond class sizes, each recorded in the history (a measurement of a release made
from a bundled sample is computed once per server: :func:`ui.common.shared.share_release_run`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privcore.data import Dataset, Schema
from privcore.runs import MeasureRequest, Outcome, RiskRequest
from ui.common.heavy import new_request, run_heavy
from ui.common.i18n import t
from ui.common.shared import share_release_run
from ui.common.state import ShelfRelease
from ui.common.workspace.pairing import release_inputs

PAGE = "privacy_level"


def measure_release(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    values: Mapping[str, Any],
    *,
    population: pd.DataFrame | None,
    slot: Any,
) -> Outcome:
    """Measure ``entry`` with the page's ``values`` (its QIs, SAs, thresholds, key and
    alignment), rows paired as ``pairing`` says, against ``population`` when one is
    given; the progress bar goes in ``slot``."""
    qi, sa = values["qi"], values["sa"]
    inputs = release_inputs(entry, original, schema, pairing, qi=qi, sa=sa, population=population)
    request = new_request(MeasureRequest, values, inputs, page=PAGE)
    inputs = share_release_run(request, inputs, entry, public_inputs=population is None)
    return run_heavy(request, inputs, label=t("pl.measuring"), page=PAGE, slot=slot)


def assess_release(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    values: Mapping[str, Any],
    *,
    population: pd.DataFrame | None,
    control: pd.DataFrame | None,
    slot: Any,
) -> Outcome:
    """The risk of ``entry`` beyond class sizes with the page's ``values`` (its QIs,
    SAs and sampling fraction), against ``population`` and the ``control`` set when
    given; the progress bar goes in ``slot``."""
    qi, sa = values["qi"], values["sa"]
    inputs = release_inputs(
        entry, original, schema, pairing, qi=qi, sa=sa, population=population, control=control
    )
    request = new_request(RiskRequest, values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=t("risk.assessing"), page=PAGE, slot=slot)
