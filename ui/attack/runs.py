"""The runs of the Attack simulator page on a release of the shelf, each recorded in the
history: the linkage attack (or, for rows that cannot be paired, what needs no pairing),
background knowledge, the rows' order, two releases of the same data together and the
records rebuilt from the tables published of the original (with the release's cells)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privcore.attacks import VoterRoll
from privcore.data import Dataset, Schema
from privcore.runs import (
    AttackRequest,
    BackgroundRequest,
    ComplementaryRequest,
    DatabaseReconstructionRequest,
    Inputs,
    MeasureRequest,
    OrderingRequest,
    Outcome,
)
from ui.common.heavy import new_request, run_heavy
from ui.common.i18n import t
from ui.common.shared import share_release_run
from ui.common.state import ShelfRelease
from ui.common.workspace.pairing import paired_frame, release_inputs, shelf_inputs

PAGE = "attack"


def linkage(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    values: Mapping[str, Any],
    roll: VoterRoll,
    *,
    roll_facts: Mapping[str, Any],
    roll_public: bool,
) -> Outcome:
    """The linkage attack on ``entry`` with ``roll`` (the page's ``values``: its QIs,
    SAs, key and tolerance), rows paired as ``pairing`` says."""
    qi, sa = values["qi"], values["sa"]
    inputs = release_inputs(
        entry, original, schema, pairing, qi=qi, sa=sa, roll=roll, names={"roll": roll_facts}
    )
    request = new_request(AttackRequest, values, inputs, page=PAGE)
    inputs = share_release_run(
        request, inputs, entry, public_inputs=roll_public, pairing=pairing, roll=roll_facts
    )
    return run_heavy(request, inputs, label=t("at.run_linkage"), page=PAGE)


def unpaired(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    roll: VoterRoll,
    *,
    roll_facts: Mapping[str, Any],
    roll_public: bool,
) -> Outcome:
    """What needs no pairing: the release's classes against the roll (prosecutor,
    journalist and marketer risk) — a measurement with the roll as population."""
    qi, sa = schema.quasi_identifiers, schema.sensitive
    inputs = release_inputs(entry, original, schema, "none", qi=qi, sa=sa, population=roll.frame)
    request = new_request(
        MeasureRequest, {"qi": qi, "sa": sa, "alignment": "none"}, inputs, page=PAGE
    )
    inputs = share_release_run(
        request, inputs, entry, public_inputs=roll_public, pairing="none", roll=roll_facts
    )
    return run_heavy(request, inputs, label=t("at.run_linkage"), page=PAGE)


def background(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    *,
    sa: str,
    m: int,
    tau: float,
    prior: dict | None,
) -> Outcome:
    """The background-knowledge attack on ``sa`` (the attacker reads each table on its
    own: no pairing of rows is needed)."""
    values = {"qi": schema.quasi_identifiers, "sa": [sa], "m": m, "tau": tau, "prior": prior}
    inputs = shelf_inputs(entry, original, schema)
    request = new_request(BackgroundRequest, values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=t("at.working"), page=PAGE)


def ordering(entry: ShelfRelease, original: Dataset, schema: Schema) -> Outcome:
    """How much the order of a release made here tells of the original's rows: its rows
    are the original's, in order, until they are shuffled with the release's seed."""
    seed = int(entry.release.params.get("seed", 0)) if entry.release is not None else 0
    values = {"qi": schema.quasi_identifiers, "seed": seed}
    inputs = shelf_inputs(entry, original, schema, aligned=entry.aligned)
    request = new_request(OrderingRequest, values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=t("at.working"), page=PAGE)


def complementary(
    entry: ShelfRelease,
    second: ShelfRelease,
    original: Dataset,
    schema: Schema,
    *,
    pairing: str,
    key_column: str | None,
) -> Outcome:
    """The two releases ``entry`` and ``second`` of the same data, read together: each
    paired with the original's rows first, so row i of both is record i."""
    qi, sa = schema.quasi_identifiers, schema.sensitive
    first = paired_frame(entry, original, schema, pairing, key_column, qi=qi, sa=sa)
    other = paired_frame(second, original, schema, "auto", None, qi=qi, sa=sa)
    inputs = shelf_inputs(
        entry,
        original,
        schema,
        release=first,
        second_release=other,
        second_release_name=second.name,
    )
    request = new_request(ComplementaryRequest, {"qi": qi, "sa": sa}, inputs, page=PAGE)
    return run_heavy(request, inputs, label=t("at.working"), page=PAGE)


def reconstruction(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    values: Mapping[str, Any],
    *,
    release_cells: bool,
) -> Outcome:
    """The database reconstruction on the original's own counts (``values``: the
    request's tables, roles, block, suppression, ε, seeds and time limit). With
    ``release_cells``, the cells of ``entry`` are published too: a release made here
    declares its kind (only a generalized one is read; another is refused in words), as
    do the synthetic records of a DP release (DP synthetic), a file is read as
    generalized. The attack builds its own voter roll of the table's
    people: none from the page."""
    if release_cells:
        inputs = shelf_inputs(entry, original, schema, release_kind=entry.release_kind)
    else:
        inputs = Inputs(original=original, schema=schema)
    request = new_request(DatabaseReconstructionRequest, values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=t("at.rec_working"), page=PAGE)
