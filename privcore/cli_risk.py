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
from typing import Any

from privcore import cli
from privcore.runs import RiskRequest, make_request

__all__ = ["add_risk_command"]


def _ci(result: dict[str, Any] | None) -> str:
    if not result:
        return "—"
    low, high = result["ci"]
    return (
        f"{result['risk']:.4f} (95 % interval {low:.4f}–{high:.4f}; naive attacker "
        f"{result['baseline']:.4f})"
    )


def _engine_inputs(args: argparse.Namespace, request: RiskRequest, engine_name: str) -> Any:
    """``risk`` on an engine: the two tables paired by position and assessed from their
    joint frequency set (:func:`privcore.runs.tables.risk_tables`)."""
    from pathlib import Path

    from privcore.runs.tables import engine_inputs, risk_tables

    engine = cli._open_engine(args, engine_name)
    original = cli._scan(engine, args.original, args.table)
    release = cli._scan(engine, args.release, None)
    population = cli._load_table(args.population).frame if args.population else None
    control = cli._load_table(args.control).frame if args.control else None
    return engine_inputs(
        lambda progress: risk_tables(
            engine,
            original,
            release,
            qi=request.qi,
            sa=request.sa,
            hierarchies=cli._hierarchies(args.hierarchy),
            name=Path(args.original).name,
            progress=progress,
            sampling_fraction=request.sampling_fraction,
            population=population,
            control=control,
            seed=request.seed,
            gdpr=request.gdpr,
        ),
        lambda assessment, _: (assessment.history_summary(),),
        release_name=Path(args.release).name,
        names={**cli._file_names(args), "engine": engine_name},
    )


def cmd_risk(args: argparse.Namespace) -> int:
    qi = tuple(cli._columns(args.qi, "--qi"))
    sa = tuple(cli._columns(args.sa, "--sa"))
    values = {
        "qi": qi,
        "sa": sa,
        "sampling_fraction": args.sampling_fraction,
        "seed": args.seed,
        "gdpr": not args.no_gdpr,
    }
    engine_name = cli._chosen_engine(args, args.original, args.release)
    if engine_name is not None:
        request = make_request(RiskRequest, values, page="cli", record=args.record)
        inputs = _engine_inputs(args, request, engine_name)
        return _report(args, request, inputs, engine_name)
    inputs = cli._release_inputs(args)
    more: dict[str, Any] = {}
    if args.population:
        population = cli._load_table(args.population)
        more["population"] = population.frame
        more["names"] = {**inputs.names, "population": population.name}
    if args.control:
        control = cli._load_table(args.control)
        more["control"] = control.frame
        more["names"] = {**more.get("names", inputs.names), "control": control.name}
    if more:
        from dataclasses import replace

        inputs = replace(inputs, **more)
    request = make_request(RiskRequest, values, inputs, page="cli", record=args.record)
    return _report(args, request, inputs, None)


def _report(args: argparse.Namespace, request: RiskRequest, inputs: Any, engine: str | None):
    """Run ``request`` and print its figures (lines, or ``--json``)."""
    outcome = cli._run(request, inputs, args)
    payload = outcome.result.to_dict()
    payload["engine"] = engine or "pandas"
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
            f"δ-presence: δ from {cli._num(presence['min'])} to {cli._num(presence['max'])}; "
            f"k-map: {payload['k_map']['k']}"
        )
    if "singling_out" in payload:
        lines.append(f"singling out: {_ci(payload['singling_out'])}")
        lines.append(f"linkability: {_ci(payload['linkability'])}")
        for name, result in payload["inference"].items():
            lines.append(f"inference of {name}: {_ci(result)}")
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
    lines += cli._history_lines(outcome)
    cli._emit(payload, args.json, lines)
    return cli.EXIT_OK


def add_risk_command(sub: Any) -> None:
    """``privcore risk``."""
    p = sub.add_parser(
        "risk",
        help="population uniqueness, individual risk, SUDA2, δ-presence/k-map, singling "
        "out, linkability and inference of a release",
        description="Risk beyond class sizes. Population uniqueness (Zayatz, Pitman, SNB, "
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
    cli._table_options(p, "the release (rows in the original's order)")
    p.add_argument("--qi", required=True, help="quasi-identifiers, comma-separated")
    p.add_argument("--sa", required=True, help="sensitive attributes, comma-separated")
    cli._hierarchy_option(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--population", help="a population table (register, voter roll)")
    group.add_argument(
        "--sampling-fraction", type=cli._number, help="the data set's share of its population"
    )
    p.add_argument("--control", help="records of the population never released")
    p.add_argument(
        "--no-gdpr",
        action="store_true",
        help="leave out singling out, linkability and inference",
    )
    p.add_argument("--seed", type=cli._seed, default=0, help="seed of the attacks (default 0)")
    cli._engine_options(p)
    cli._run_options(p)
    p.set_defaults(func=cmd_risk)
