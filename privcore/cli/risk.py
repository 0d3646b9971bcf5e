"""``privcore risk``: risk beyond class sizes for any release (SPEC §11; README "`risk`").

``privcore risk --original … --release … --qi … --sa … [--hierarchy COL=FILE]…
[--population FILE | --sampling-fraction F] [--control FILE] [--json]`` prints
``population_uniqueness`` {model, share}, ``individual_risk``
{expected_reidentifications, max}, ``suda2`` {special_uniques}, ``delta_presence``
{min, max} and ``k_map`` (with ``--population``), ``singling_out`` and ``linkability``
{risk, ci, baseline}, ``inference`` {sa: {risk, ci, baseline}}.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from privcore.cli.toolkit import (
    add_option,
    chosen_engine,
    columns,
    command,
    engine_options,
    hierarchy_option,
    load_table,
    num,
    number,
    paired_engine_inputs,
    release_inputs,
    request,
    run_options,
    run_request,
    table_options,
)
from privcore.cli.toolkit.output import emit_run
from privcore.cli.toolkit.running import engine_payload
from privcore.runs import Inputs, RiskRequest


def _ci(result: dict[str, Any] | None) -> str:
    if not result:
        return "—"
    low, high = result["ci"]
    return (
        f"{result['risk']:.4f} (95 % interval {low:.4f}–{high:.4f}; naive attacker "
        f"{result['baseline']:.4f})"
    )


def _table_inputs(args: argparse.Namespace) -> Inputs:
    """The two tables in memory, with ``--population`` and ``--control`` when given."""
    inputs = release_inputs(args)
    more: dict[str, Any] = {}
    if args.population:
        population = load_table(args.population)
        more["population"] = population.frame
        more["names"] = {**inputs.names, "population": population.name}
    if args.control:
        control = load_table(args.control)
        more["control"] = control.frame
        more["names"] = {**more.get("names", inputs.names), "control": control.name}
    return replace(inputs, **more) if more else inputs


def cmd_risk(args: argparse.Namespace) -> int:
    values = {
        "qi": tuple(columns(args.qi, "--qi")),
        "sa": tuple(columns(args.sa, "--sa")),
        "sampling_fraction": args.sampling_fraction,
        "seed": args.seed,
        "gdpr": not args.no_gdpr,
    }
    engine_name = chosen_engine(args, args.original, args.release)
    if engine_name is not None:
        risk = request(RiskRequest, args, **values)
        return _report(
            args,
            risk,
            paired_engine_inputs(
                args,
                engine_name,
                population=load_table(args.population).frame if args.population else None,
                control=load_table(args.control).frame if args.control else None,
            ),
            engine_name,
        )
    inputs = _table_inputs(args)
    risk = request(RiskRequest, args, inputs, **values)
    return _report(args, risk, inputs, None)


def _report(args: argparse.Namespace, risk: RiskRequest, inputs: Any, engine: str | None) -> int:
    """Run ``risk`` and print its figures (lines, or ``--json``)."""
    outcome = run_request(risk, inputs, args)
    payload = engine_payload(outcome, engine)
    unique = payload["population_uniqueness"]
    individual = payload["individual_risk"]
    lines = [
        f"sampling fraction {payload['sampling_fraction']:g} "
        f"({payload['sampling_fraction_source']})",
        f"population uniqueness ({unique['model']}): {unique['share']:.6f} of the population",
        f"individual risk: {individual['expected_reidentifications']:.2f} expected "
        f"re-identifications, largest record risk {individual['max']:.4f}",
        f"SUDA2: {payload['suda2']['special_uniques']} special uniques",
    ]
    if payload["delta_presence"] is not None:
        presence = payload["delta_presence"]
        lines.append(
            f"δ-presence: δ from {num(presence['min'])} to {num(presence['max'])}; "
            f"k-map: {payload['k_map']['k']}"
        )
    if "singling_out" in payload:
        lines += _attack_lines(payload)
    return emit_run(args, payload, lines, outcome)


def _attack_lines(payload: dict[str, Any]) -> list[str]:
    """Singling out, linkability and inference, and the control set they ran on."""
    lines = [
        f"singling out: {_ci(payload['singling_out'])}",
        f"linkability: {_ci(payload['linkability'])}",
        *(f"inference of {name}: {_ci(result)}" for name, result in payload["inference"].items()),
    ]
    control = payload["control"]
    lines.append(
        f"control set: {control['control_rows']} records ({control['source']}), "
        f"training {control['training_rows']}"
    )
    if control.get("sample"):
        sample = control["sample"]
        lines.append(
            f"the three attacks ran on a uniform sample of {sample['rows']:,} of the "
            f"{sample['records']:,} record pairs"
        )
    return lines


def add_risk_command(sub: Any) -> None:
    """``privcore risk``."""
    p = command(
        sub,
        cmd_risk,
        "population uniqueness, individual risk, SUDA2, δ-presence/k-map, singling "
        "out, linkability and inference of a release",
        "Risk beyond class sizes. Population uniqueness (Zayatz, Pitman, SNB, "
        "Dankar's rule) and Benedetti–Franconi individual risk at the sampling fraction "
        "(--sampling-fraction, or rows / --population rows, or 1/10: the default voter "
        "roll); SUDA2 special uniques; δ-presence and k-map against --population; singling "
        "out, linkability and inference (Anonymeter's definitions) against --control, or "
        "a seeded fifth of the original held out (which needs the release's rows in the "
        "original's order: anonymize --keep-order; give --control with a shuffled "
        "release). --json keys: population_uniqueness, "
        "individual_risk, suda2, delta_presence, k_map, singling_out, linkability, "
        "inference, control, sampling_fraction, sampling_fraction_source, engine. "
        "On an engine (--engine) the tables are paired by position and assessed from "
        "their joint frequency set; the three attacks run on its record pairs, a uniform "
        "sample of 1,000,000 above that (control.sample).",
    )
    table_options(p, "the release (rows in the original's order)")
    # read as text and split by the command (cli.empty_list)
    add_option(p, "qi", required=True, type=None)
    add_option(p, "sa", required=True, type=None)
    hierarchy_option(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--population", help="a population table (register, voter roll)")
    group.add_argument(
        "--sampling-fraction", type=number, help="the data set's share of its population"
    )
    p.add_argument("--control", help="records of the population never released")
    p.add_argument(
        "--no-gdpr",
        action="store_true",
        help="leave out singling out, linkability and inference",
    )
    add_option(p, "seed", default=0, checked=True, help="seed of the attacks")
    engine_options(p)
    run_options(p)
