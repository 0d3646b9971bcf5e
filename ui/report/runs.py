"""The runs of the Report page on a release of the shelf: the readiness report
(recorded as its measure and attack runs, then the report run that names them), and the
release's rows as the CSV file the page offers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privcore.data import Dataset, Schema, to_csv_bytes
from privcore.runs import Outcome, ReportRequest
from ui.common.heavy import new_request, run_heavy
from ui.common.i18n import t
from ui.common.shared import share_release_run
from ui.common.state import ShelfRelease
from ui.common.workspace.pairing import release_inputs

PAGE = "report"


def generate(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    values: Mapping[str, Any],
    *,
    slot: Any,
) -> Outcome:
    """The readiness report of ``entry`` with the page's ``values`` (its QIs, SAs, key and
    thresholds), rows paired as ``pairing`` says; the progress bar goes in ``slot``."""
    algorithm = (
        {"algorithm": entry.release.algorithm, **entry.release.params} if entry.made_here else None
    )
    qi, sa = values["qi"], values["sa"]
    inputs = release_inputs(entry, original, schema, pairing, qi=qi, sa=sa, algorithm=algorithm)
    request = new_request(ReportRequest, values, inputs, page=PAGE)
    inputs = share_release_run(request, inputs, entry, pairing=pairing)
    return run_heavy(request, inputs, label=t("rp.working"), page=PAGE, slot=slot)


def release_csv(entry: ShelfRelease) -> bytes:
    """The release's rows as a CSV file: shuffled unless asked (the shelf remembers
    which), a release made here in the order its own export draws."""
    return to_csv_bytes(
        entry.release.export(shuffle=entry.shuffled)
        if entry.made_here
        else (entry.frame.sample(frac=1.0, random_state=0) if entry.shuffled else entry.frame)
    )
