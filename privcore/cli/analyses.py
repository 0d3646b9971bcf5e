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
    add_request_options,
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
        _options(ReconstructionRequest),
        "randomize simulated values and rebuild their distribution",
        "--values draws of a known bimodal truth on [0, 100] are published with noise "
        "added and their distribution rebuilt on 20 intervals (Agrawal & Srikant 2000), "
        "as the LDP auditor's randomization tab. --json prints noise, noise_scale, "
        "values, reconstruction, tv, tv_perturbed, iterations, edges, truth, perturbed, "
        "estimate.",
    ),
)


def add_analysis_commands(sub: Any) -> None:
    """``privcore background``, ``ordering``, ``complementary``, ``sweep``,
    ``reconstruct``."""
    add_subcommands(sub, _ANALYSES)
