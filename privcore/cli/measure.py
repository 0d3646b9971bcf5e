"""``privcore measure``: how private a release is, against its original — k, classes,
l, t, PL/DR/UL, real records, risk, loss and the verdicts of the models given
(:class:`privcore.runs.MeasureRequest`). ``--json`` keys: README "`measure`"."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from privcore.cli.toolkit import command, load_table, num, real_records_line, run_options
from privcore.cli.toolkit.commands import paired_options
from privcore.cli.toolkit.output import emit_run
from privcore.cli.toolkit.running import run_paired
from privcore.runs import Inputs, MeasureRequest


def cmd_measure(args: argparse.Namespace) -> int:
    outcome, payload = run_paired(
        MeasureRequest, args, lambda inputs: _with_population(inputs, args.population)
    )
    lines = [
        f"k = {payload['k']}  ({payload['classes']} classes, {payload['rows']} rows, "
        f"{payload['suppressed_rows']} suppressed)",
        *(
            f"{sa}: distinct l = {payload['l_distinct'][sa]}, entropy l = "
            f"{payload['l_entropy'][sa]:.3f}, t = {payload['t_closeness'][sa]['t']:.4f} "
            f"({payload['t_closeness'][sa]['distance']})"
            for sa in payload["sa"]
        ),
        *_paired_lines(payload),
        f"risk: prosecutor max {payload['risk']['prosecutor_max']:.3f}, average "
        f"{payload['risk']['prosecutor_avg']:.3f} (record-weighted), marketer "
        f"{payload['risk']['marketer']:.3f}",
        *(
            f"{'PASS' if v['passed'] else 'FAIL'} {v['requirement']}: achieved {v['achieved']}"
            for v in payload["verdicts"]
        ),
        *(f"note: {n}" for n in payload["notes"]),
    ]
    return emit_run(args, payload, lines, outcome)


def _with_population(inputs: Inputs, population: str | None) -> Inputs:
    """The run's inputs with the ``--population`` table, when given (journalist risk)."""
    return replace(inputs, population=load_table(population).frame) if population else inputs


def _paired_lines(payload: dict[str, Any]) -> list[str]:
    """PL, DR, UL and real records — or, when the rows were not paired with the
    original's (``--alignment none``, or ``auto`` on rows that do not line up), DR and
    which figures need pairing."""
    pl = payload.get("pl") or {}
    if payload.get("ul") is None or not pl:
        needs = ", ".join(payload.get("needs_alignment") or [])
        why = payload.get("unpaired_because")
        if why == "engines.too_many_groups":  # measured by its classes in the engine
            return [
                f"DR = {num(payload.get('dr'))}",
                "too many combinations to pair the rows in memory: the classes were "
                f"measured inside the engine; {needs} and real records are not computed",
            ]
        return [
            f"DR = {num(payload.get('dr'))}",
            f"not paired with the original's rows{f' ({why})' if why else ''}: {needs} "
            "need a key column or rows in the same order",
        ]
    return [
        "PL: " + ", ".join(f"{a} = {v:.3f}" for a, v in pl.items() if v is not None),
        f"DR = {num(payload['dr'])}   UL = {num(payload['ul'])}",
        real_records_line(payload["real_records"]),
    ]


def add_measure_command(sub: Any) -> None:
    """``privcore measure``."""
    m = command(
        sub,
        cmd_measure,
        "measure a release against its original: k, l, t, PL/DR/UL, risk, loss",
        "Measure how private a release is. --json prints one object with k, "
        "classes, suppressed_rows, l_distinct, l_entropy, t_closeness, pl, dr, ul, risk, "
        "loss, verdicts.",
    )
    paired_options(
        m,
        MeasureRequest,
        "the released (anonymized) table",
        notes=dict.fromkeys(("k", "l", "t"), "a verdict, when given"),
    )
    m.add_argument(
        "--population",
        help="population table with the QI columns (adds "
        "journalist risk), e.g. a voter roll containing the data set's people",
    )
    run_options(m, quiet=False)
