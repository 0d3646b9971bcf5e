"""The runs of the Privacy level page on a release of the shelf: its measurement and its
risk beyond class sizes, each recorded in the history (a measurement of a release made
from a bundled sample is computed once per server: :func:`ui.common.shared.share_release_run`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privcore.data import Dataset, Schema
from privcore.runs import Inputs, MeasureRequest, Outcome, RiskRequest
from ui.common.heavy import new_request, run_heavy
from ui.common.i18n import t
from ui.common.shared import share_release_run
from ui.common.state import ShelfRelease
from ui.common.workspace.pairing import release_inputs

PAGE = "privacy_level"


@dataclass(frozen=True, eq=False)
class OnRelease:
    """What both runs of the page read: the shelf release ``entry`` of ``original``
    (described by ``schema``), rows paired as ``pairing`` says, and ``population`` when
    one is given."""

    entry: ShelfRelease
    original: Dataset
    schema: Schema
    pairing: str
    population: pd.DataFrame | None = None

    def inputs(self, values: Mapping[str, Any], **more: Any) -> Inputs:
        """The inputs of a run with the page's QIs and SAs (``values``) and ``more``
        (:func:`~ui.common.workspace.pairing.release_inputs`)."""
        return release_inputs(
            self.entry,
            self.original,
            self.schema,
            self.pairing,
            qi=values["qi"],
            sa=values["sa"],
            population=self.population,
            **more,
        )


def measure_release(on: OnRelease, values: Mapping[str, Any], *, slot: Any) -> Outcome:
    """Measure the release ``on`` with the page's ``values`` (its QIs, SAs, thresholds,
    key and alignment), against its population when one is given; the progress bar
    goes in ``slot``."""
    inputs = on.inputs(values)
    request = new_request(MeasureRequest, values, inputs, page=PAGE)
    inputs = share_release_run(request, inputs, on.entry, public_inputs=on.population is None)
    return run_heavy(request, inputs, label=t("pl.measuring"), page=PAGE, slot=slot)


def assess_release(
    on: OnRelease, values: Mapping[str, Any], *, control: pd.DataFrame | None, slot: Any
) -> Outcome:
    """The risk of the release ``on`` beyond class sizes with the page's ``values`` (its
    QIs, SAs and sampling fraction), against its population and the ``control`` set
    when given; the progress bar goes in ``slot``."""
    inputs = on.inputs(values, control=control)
    request = new_request(RiskRequest, values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=t("risk.assessing"), page=PAGE, slot=slot)
