"""``privcore attack``: linkage and homogeneity attacks on the original table and on its
release with a synthetic voter roll that contains the data set's people, before vs after
(:class:`privcore.runs.AttackRequest`). ``--json`` keys: README "`attack`"."""

from __future__ import annotations

import argparse
from typing import Any

from privcore.cli.toolkit import command, run_options
from privcore.cli.toolkit.commands import paired_options
from privcore.cli.toolkit.output import emit_run
from privcore.cli.toolkit.running import run_paired
from privcore.runs import AttackRequest


def cmd_attack(args: argparse.Namespace) -> int:
    outcome, payload = run_paired(AttackRequest, args)
    lines = []
    for label, figures in (("original", payload["before"]), ("release", payload)):
        link, hom, risk = figures["linkage"], figures["homogeneity"], figures["risk"]
        disclosed = ", ".join(f"{k} {v}" for k, v in link["attribute_disclosed"].items())
        lines += [
            f"{label}: {link['reidentified']} of {link['targets']} people re-identified "
            f"({link['unique_matches']} unique matches); attribute disclosed: {disclosed}",
            f"  homogeneous classes {hom['classes_exposed']} ({hom['records_exposed']} records);"
            f" risk: prosecutor max {risk['prosecutor_max']:.3f}, journalist max "
            f"{risk['journalist_max']:.3f}, marketer {risk['marketer']:.3f}",
        ]
    lines.append(f"roll: {payload['roll']['size']:,} people, seed {payload['roll']['seed']}")
    return emit_run(args, payload, lines, outcome)


def add_attack_command(sub: Any) -> None:
    """``privcore attack``."""
    k = command(
        sub,
        cmd_attack,
        "linkage and homogeneity attacks with a synthetic voter roll, before vs after",
        "Attack the original table and its release with a synthetic voter roll "
        "that contains the data set's people. --json prints linkage {targets, "
        "unique_matches, reidentified, attribute_disclosed, …}, homogeneity "
        "{classes_exposed, records_exposed}, risk {prosecutor_max, journalist_max, "
        "marketer, …} for the release, the same under 'before' for the original.",
    )
    paired_options(
        k,
        AttackRequest,
        "the release (rows aligned, or --key)",
        hierarchy_help="ARX hierarchy of a column, to read its labels in the release",
    )
    run_options(k)
