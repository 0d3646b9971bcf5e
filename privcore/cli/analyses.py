"""The analyses around a release, as on the pages: ``privcore background``,
``ordering`` and ``complementary`` (the Attack page's other tabs), ``sweep`` and
``reconstruct`` (the LDP auditor's ε sweep and randomization lab).

Each command's options are generated from its request (:mod:`privcore.runs.analysis_requests`)
and the registry; the run is :func:`privcore.runs.run`'s, so the figures, the errors and
the history row are the page's. ``--json`` keys: README "Analyses around a release".
The commands are one table (:data:`_ANALYSES`): each row names its handler, its
request, the tables it reads and its help.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from typing import Any

from privcore.cli.toolkit import (
    add_option,
    add_request_options,
    hierarchy_option,
    load_table,
    num,
    read_json_file,
    run_options,
    table_options,
)
from privcore.cli.toolkit.commands import Subcommand, add_subcommands
from privcore.cli.toolkit.output import emit_run
from privcore.cli.toolkit.running import request_and_run
from privcore.runs import (
    BackgroundRequest,
    ComplementaryRequest,
    DatabaseReconstructionRequest,
    Inputs,
    OrderingRequest,
    ReconstructionRequest,
    Request,
    SweepRequest,
)


def _plain(value: Any) -> Any:
    from privcore.core.jsonsafe import plain

    return plain(value)


def _payload(asked: Any, outcome: Any) -> dict[str, Any]:
    """The JSON object of a run: the request's fields and the run's summary."""
    return {**asked.to_dict(), **_plain(outcome.summary)}


def _original_and_release(args: argparse.Namespace) -> Inputs:
    """``--original`` and ``--release``, read into memory."""
    original, release = load_table(args.original), load_table(args.release)
    return Inputs(original=original, release=release.frame, release_name=release.name)


def _options(
    request_class: type[Request],
    *,
    tables: Callable[[argparse.ArgumentParser], None] | None = None,
    required: tuple[str, ...] = (),
    more: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Callable[[argparse.ArgumentParser], None]:
    """What adds an analysis's options, in this order: the ``tables`` it reads, the
    options of ``request_class`` (``required`` ones among them), ``more`` of its own,
    then the run options."""

    def add(parser: argparse.ArgumentParser) -> None:
        if tables is not None:
            tables(parser)
        add_request_options(parser, request_class, required=required)
        if more is not None:
            more(parser)
        run_options(parser)

    return add


# --------------------------------------------------------------------------- background


def _prior(weights: Any) -> dict[str, float]:
    """``--prior``: a JSON object of sensitive value → relative weight (a number > 0)."""
    import math

    from privcore.errors import ParameterError

    good = isinstance(weights, dict) and all(
        isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) and w > 0
        for w in weights.values()
    )
    if not good:
        raise ParameterError(
            "The prior must be a JSON object of sensitive value → weight, each weight a "
            "number above 0.",
            code="cli.prior",
        )
    return {str(value): float(weight) for value, weight in weights.items()}


def cmd_background(args: argparse.Namespace) -> int:
    prior = None
    if args.prior is not None:
        prior = _prior(read_json_file(args.prior, "the prior", "cli.prior"))
    background, outcome = request_and_run(
        BackgroundRequest, args, _original_and_release(args), prior=prior
    )
    payload = _payload(background, outcome)
    lines = [
        f"{when}: {figures['records_at_risk']:,} of {figures['records']:,} records at risk "
        f"(posterior ≥ {background.tau:g}); mean posterior {num(figures['mean_posterior'])}, "
        f"without the knowledge {num(figures['mean_posterior_without_knowledge'])}"
        for when, figures in (("before", payload["before"]), ("after", payload["after"]))
    ]
    return emit_run(args, payload, lines, outcome)


# --------------------------------------------------------------------------- ordering


def cmd_ordering(args: argparse.Namespace) -> int:
    ordering, outcome = request_and_run(OrderingRequest, args, _original_and_release(args))
    payload = summary = _payload(ordering, outcome)
    shuffled = summary.get("shuffled") or {}
    lines = [
        f"published order: Spearman ρ = {num(summary['spearman'])}, "
        f"{summary['rows_in_place']:.1%} of rows in place "
        f"({summary['reidentified_by_position']:,} re-identified by position)",
        f"shuffled (seed {summary.get('shuffle_seed')}): ρ = {num(shuffled.get('spearman'))}, "
        f"{(shuffled.get('rows_in_place') or 0):.1%} of rows in place",
    ]
    return emit_run(args, payload, lines, outcome)


# --------------------------------------------------------------------------- two releases


def cmd_complementary(args: argparse.Namespace) -> int:
    first, second = load_table(args.release), load_table(args.second_release)
    inputs = Inputs(
        release=first.frame,
        release_name=first.name,
        second_release=second.frame,
        second_release_name=second.name,
    )
    complementary, outcome = request_and_run(ComplementaryRequest, args, inputs)
    payload = summary = _payload(complementary, outcome)
    lines = [
        f"k of each release: {summary['k_a']} / {summary['k_b']}; smallest effective k "
        f"{summary['min_effective_k']}; {summary['records_effective_k_1']:,} records "
        f"re-identified by the intersection; {summary['records_narrowed']:,} narrowed",
    ]
    return emit_run(args, payload, lines, outcome)


# --------------------------------------------------------------------------- LDP


def cmd_sweep(args: argparse.Namespace) -> int:
    sweep, outcome = request_and_run(SweepRequest, args)
    payload = {**sweep.to_dict(), "rows": _plain(outcome.summary["rows"])}
    return emit_run(args, payload, [outcome.result.to_string(index=False)], outcome)


def cmd_reconstruct(args: argparse.Namespace) -> int:
    """Without INPUT the randomization lab (LDP); with INPUT the database reconstruction.
    The options of the one are refused with the other, in words."""
    from dataclasses import fields

    from privcore.errors import ParameterError

    given = {name for name in _RECONSTRUCT_OPTIONS if getattr(args, name) is not _NOT_GIVEN}
    for cls in (ReconstructionRequest, DatabaseReconstructionRequest):
        for f in fields(cls):
            if getattr(args, f.name, None) is _NOT_GIVEN:
                setattr(args, f.name, f.default)
    wrong = sorted(given & set(_DATABASE if args.input is None else _RANDOMIZATION))
    if wrong:
        flags = ", ".join(_RECONSTRUCT_OPTIONS[name] for name in wrong)
        if args.input is None:
            raise ParameterError(
                f"The database reconstruction's options ({flags}) need a table: give "
                "INPUT (privcore reconstruct INPUT --publish …).",
                code="cli.reconstruct_needs_input",
                options=flags,
            )
        raise ParameterError(
            f"The randomization lab's options ({flags}) read no table and do not go with "
            "INPUT: leave them out, or leave INPUT out.",
            code="cli.reconstruct_mixed",
            options=flags,
        )
    if args.input is None and (args.release is not None or args.hierarchy):
        raise ParameterError(
            "--release and --hierarchy go with the database reconstruction: give INPUT "
            "(privcore reconstruct INPUT --publish … --release FILE).",
            code="cli.reconstruct_needs_input",
            options="--release, --hierarchy",
        )
    if args.input is not None:
        return _database_reconstruction(args)
    reconstruction, outcome = request_and_run(ReconstructionRequest, args)
    result, truth = outcome.result
    payload = {
        **_payload(reconstruction, outcome),
        "edges": _plain(result.edges),
        "truth": _plain(truth),
        "perturbed": _plain(result.perturbed),
        "estimate": _plain(result.estimate),
    }
    lines = [
        f"total variation to the truth: rebuilt {num(payload['tv'])}, perturbed "
        f"{num(payload['tv_perturbed'])} ({payload['iterations']} iterations)",
    ]
    return emit_run(args, payload, lines, outcome)


#: The rebuilt records printed by ``reconstruct INPUT --json`` (``records_shown`` says how
#: many; ``records_rebuilt`` how many there are).
RECORDS_SHOWN = 1000

#: An option of ``reconstruct`` left out (told apart from one given its default value).
_NOT_GIVEN = object()

#: The options of the randomization lab and of the database reconstruction, by field.
_RANDOMIZATION = ("noise", "noise_scale", "values", "reconstruction")
_DATABASE = (
    "publish",
    "qi",
    "sa",
    "block",
    "suppress_below",
    "noise_epsilons",
    "noise_law",
    "noise_delta",
    "round_to",
    "seed",
    "seeds",
    "within",
    "link_on",
    "roll_size",
    "max_solutions",
    "time_limit",
)
_RECONSTRUCT_OPTIONS = {
    **{name: "--" + name.replace("_", "-") for name in (*_RANDOMIZATION, *_DATABASE)},
    "noise": "--randomization-noise",
    "noise_epsilons": "--epsilon",
    "within": "--tolerance",
}


def _database_reconstruction(args: argparse.Namespace) -> int:
    """``reconstruct INPUT``: the published counts of INPUT attacked (README, "Analyses
    around a release")."""
    if args.noise_epsilons is not None:  # --epsilon 0.5 1 or --epsilon 0.5,1
        args.noise_epsilons = tuple(e for given in args.noise_epsilons for e in given)
    table = load_table(args.input)
    inputs = Inputs(original=table)
    if args.release is not None:
        from privcore.cli.toolkit.files import hierarchies
        from privcore.data import Schema

        release = load_table(args.release)
        inputs = Inputs(
            original=table,
            schema=Schema({}, hierarchies(args.hierarchy)),
            release=release.frame,
            release_name=release.name,
        )
    asked, outcome = request_and_run(DatabaseReconstructionRequest, args, inputs)
    attack, summary = outcome.result, _plain(outcome.summary)
    records = attack.records(asked.block)
    shown = records.head(RECORDS_SHOWN)
    payload = {
        **asked.to_dict(),
        **summary,
        "solutions": {name: r.solutions_text for name, r in attack.results.items()},
        "records": _plain(shown.to_dict("records")),
        "records_shown": len(shown),
    }
    return emit_run(args, payload, _database_lines(asked, payload), outcome)


def _share(value: Any) -> str:
    return "—" if value is None else f"{value:.1%}"


def _database_lines(asked: DatabaseReconstructionRequest, payload: dict[str, Any]) -> list[str]:
    """The readable summary of a database reconstruction."""
    tolerance = ", ".join(f"{c} ± {w:g}" for c, w in payload["tolerance"].items()) or "exact"
    blocks = payload["blocks"]
    lines = [
        f"{payload['people']:,} records in {blocks:,} block(s), "
        f"{payload['record_types']:,} record types; published: "
        + "; ".join(",".join(t) for t in payload["tables"])
        + (" (suggested from the roles)" if asked.suggested else "")
        + (f"; cells below {asked.suppress_below} withheld" if asked.suppress_below else "")
        + (f"; cells rounded to multiples of {asked.round_to}" if asked.round_to else ""),
        f"unique solution in {payload['unique_blocks']:,} of {blocks:,} block(s)"
        if blocks > 1
        else f"solutions: {next(iter(payload['solutions'].values()))}",
        f"rebuilt exactly: {_share(payload['exact_share'])}, within tolerance "
        f"({tolerance}): {_share(payload['within_tolerance_share'])}; certain records: "
        f"{payload['certain']:,}",
        _reidentified_line(payload),
    ]
    if payload["release_cells"]:
        lines.insert(1, f"with the release's {payload['release_cells']:,} cells as counts")
    if payload["timed_out_blocks"]:
        lines.append(f"time limit reached in {payload['timed_out_blocks']:,} block(s)")
    law = "" if asked.noise_law == "discrete_laplace" else f", δ = {asked.noise_delta:g} (Gaussian)"
    for point in payload.get("curve", []):
        exact, within = point["exact"], point["within_tolerance"]
        interval = (
            "" if exact["low"] is None else f" [{_share(exact['low'])}, {_share(exact['high'])}]"
        )
        lines.append(
            f"ε = {point['epsilon']:g}{law} ({point['seeds']} seed(s)): exact "
            f"{_share(exact['mean'])}"
            f"{interval}, within tolerance {_share(within['mean'])}"
        )
    return lines


def _reidentified_line(payload: dict[str, Any]) -> str:
    """The rebuilt records linked to the voter roll, or why they were not."""
    if payload["reidentified"] is None:
        return payload["reidentified_why"]
    return (
        f"linked to a voter roll of {payload['roll_size']:,} people on "
        f"{', '.join(payload['link_on'])}: {payload['putative']:,} matched one person, "
        f"{payload['reidentified']:,} re-identified ({_share(payload['reidentified_share'])} "
        "of the people: name and every published value right)"
    )


def _reconstruct_options(parser: argparse.ArgumentParser) -> None:
    """``reconstruct [INPUT]``: the randomization lab's options, then the database
    reconstruction's; an option left out is told apart from one given its default."""
    parser.add_argument(
        "input",
        nargs="?",
        metavar="INPUT",
        help="a table (CSV, Parquet, Excel): run the database reconstruction on its counts; "
        "without it, the randomization lab",
    )
    add_request_options(parser, ReconstructionRequest)
    add_request_options(
        parser,
        DatabaseReconstructionRequest,
        [name for name in _DATABASE if name != "noise_epsilons"],
        flags={"within": ["--tolerance"]},
        notes={
            "qi": "with --publish suggest: the tables are each QI × each SA, then QI pairs",
            "roll_size": "here the default is the table's people",
        },
    )
    parser.add_argument(
        "--release",
        metavar="FILE",
        help="a generalized release of INPUT published beside the tables: its cells "
        "constrain the records too (with --block it keeps the block column)",
    )
    hierarchy_option(parser, "ARX hierarchy file giving a released column's labels their meaning")
    add_option(
        parser,
        "reconstruction_epsilons",
        flags=["--epsilon"],
        dest="noise_epsilons",
        nargs="+",
        metavar="E",
    )
    run_options(parser)
    parser.set_defaults(
        request_options=(*_RANDOMIZATION, *_DATABASE),
        **dict.fromkeys((*_RANDOMIZATION, *_DATABASE), _NOT_GIVEN),
    )


def _prior_option(parser: argparse.ArgumentParser) -> None:
    """``--prior FILE`` of ``background``: the attacker's weights of the sensitive values."""
    parser.add_argument(
        "--prior",
        metavar="FILE",
        help="JSON object: sensitive value → relative weight > 0 (values not listed weigh 1)",
    )


def _two_releases(parser: argparse.ArgumentParser) -> None:
    """``--release`` and ``--second-release`` of ``complementary``."""
    parser.add_argument("--release", required=True, help="the first release")
    parser.add_argument("--second-release", required=True, help="the second release")


#: The analyses, in the order ``privcore --help`` lists them.
_ANALYSES = (
    Subcommand(
        "background",
        cmd_background,
        _options(
            BackgroundRequest,
            tables=partial(table_options, release_help="the release (its rows in any order)"),
            required=("qi", "sa"),
            more=_prior_option,
        ),
        "background-knowledge attack on the original and its release, before vs after",
        "An attacker who rules out --m wrong sensitive values per record (and weighs the "
        "values by --prior) reads each class of the original and of the release; a record "
        "is at risk when the posterior of its true value is at least --posterior-tau "
        "(Machanavajjhala et al. 2007). --json prints attack, qi, sa, m, tau, prior, and "
        "before/after {records, records_attacked, records_at_risk, records_at_risk_share, "
        "mean_posterior, max_posterior, mean_posterior_without_knowledge, min_values_left, …}.",
    ),
    Subcommand(
        "ordering",
        cmd_ordering,
        _options(
            OrderingRequest,
            tables=partial(table_options, release_help="the release, as published"),
            required=("key",),
        ),
        "unsorted-matching attack: what the release's row order gives away",
        "How far the release's rows still follow the original's order, traced through "
        "--key, a column present in both tables, and the same figures for the rows "
        "shuffled with --seed (Sweeney 2002, §4.1). --json prints attack, qi, key, seed, "
        "records, spearman, rows_in_place, reidentified_by_position, reidentified_share, "
        "expected_reidentified_without_order (with --qi), shuffled {…}, shuffle_seed.",
    ),
    Subcommand(
        "complementary",
        cmd_complementary,
        _options(ComplementaryRequest, tables=_two_releases, required=("qi",)),
        "complementary-release attack: two releases of the same records intersected",
        "Two releases of one table, paired row by row (by position, or through --key), "
        "intersected class by class: each record's effective k and what the "
        "intersections disclose (Sweeney 2002, §4.3). --json prints attack, qi, sa, key "
        "and the attack's summary (k_a, k_b, min_effective_k, records_effective_k_1, "
        "records_narrowed, …).",
    ),
    Subcommand(
        "sweep",
        cmd_sweep,
        _options(SweepRequest, required=("mechanism",)),
        "audit an LDP mechanism at several claimed ε",
        "The mechanism audited at each --epsilons value with the white-box, black-box "
        "and lower-bound measures, as the LDP auditor's sweep. --json prints sweep, "
        "epsilons, domain and rows (one per ε: its estimates with intervals and bounds).",
    ),
    Subcommand(
        "reconstruct",
        cmd_reconstruct,
        _reconstruct_options,
        "randomize simulated values and rebuild their distribution; with INPUT, rebuild "
        "a table's records from its published counts",
        "Without INPUT: --values draws of a known bimodal truth on [0, 100] are published "
        "with noise added and their distribution rebuilt on 20 intervals (Agrawal & "
        "Srikant 2000), as the LDP auditor's randomization tab. --json prints noise, "
        "noise_scale, values, reconstruction, tv, tv_perturbed, iterations, edges, truth, "
        "perturbed, estimate. With INPUT: the database reconstruction (Garfinkel, Abowd & "
        "Martindale 2019): the counts of each --publish column set and each block's total "
        "are published (per --block value, cells below --suppress-below withheld) and the "
        "records rebuilt from them by an integer program and compared with INPUT; with "
        "--epsilon the same tables with discrete Laplace noise, over --seeds seeds. --json "
        "prints publish, block, suppress_below, epsilon, seed, seeds, max_solutions, "
        "time_limit, record_types, blocks, people, records_rebuilt, unique_blocks, "
        "certain, certain_unverified_blocks, timed_out_blocks, exact_share, "
        "within_tolerance_share, tolerance, curve (with --epsilon), solutions (per "
        "block), records, records_shown.",
    ),
)


def add_analysis_commands(sub: Any) -> None:
    """``privcore background``, ``ordering``, ``complementary``, ``sweep``,
    ``reconstruct``."""
    add_subcommands(sub, _ANALYSES)
