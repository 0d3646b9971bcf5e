"""The analyses around a release, as on the pages: ``privcore background``,
``ordering`` and ``complementary`` (the Attack page's other tabs), ``sweep`` and
``reconstruct`` (the LDP auditor's ε sweep and randomization lab).

Each command's options are generated from its request (:mod:`privcore.runs.analysis_requests`)
and the registry; the run is :func:`privcore.runs.run`'s, so the figures, the errors and
the history row are the page's. ``--json`` keys: README "Analyses around a release".
"""

from __future__ import annotations

import argparse
from typing import Any

from privcore.cli.toolkit import (
    EXIT_OK,
    add_request_options,
    command,
    emit,
    history_lines,
    load_table,
    num,
    read_json_file,
    request,
    run_options,
    run_request,
)
from privcore.runs import (
    BackgroundRequest,
    ComplementaryRequest,
    Inputs,
    OrderingRequest,
    ReconstructionRequest,
    SweepRequest,
)


def _plain(value: Any) -> Any:
    from privcore.core.jsonsafe import plain

    return plain(value)


def _run(
    kind: type, args: argparse.Namespace, inputs: Inputs | None = None, **values: Any
) -> tuple[Any, Any]:
    """The request of ``kind`` from the options (and ``values``), run on ``inputs`` (none:
    a run that reads no table): the request and the run's outcome."""
    asked = request(kind, args, inputs, **values)
    return asked, run_request(asked, Inputs() if inputs is None else inputs, args)


def _payload(asked: Any, outcome: Any) -> dict[str, Any]:
    """The JSON object of a run: the request's fields and the run's summary."""
    return {**asked.to_dict(), **_plain(outcome.summary)}


def _print(
    args: argparse.Namespace, payload: dict[str, Any], lines: list[str], outcome: Any
) -> int:
    """The payload with ``--json``, else the lines and the history row's."""
    emit(payload, args.json, [*lines, *history_lines(outcome)])
    return EXIT_OK


def _original_and_release(args: argparse.Namespace) -> Inputs:
    """``--original`` and ``--release``, read into memory."""
    original, release = load_table(args.original), load_table(args.release)
    return Inputs(original=original, release=release.frame, release_name=release.name)


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
    background, outcome = _run(BackgroundRequest, args, _original_and_release(args), prior=prior)
    payload = _payload(background, outcome)
    lines = [
        f"{when}: {figures['records_at_risk']:,} of {figures['records']:,} records at risk "
        f"(posterior ≥ {background.tau:g}); mean posterior {num(figures['mean_posterior'])}, "
        f"without the knowledge {num(figures['mean_posterior_without_knowledge'])}"
        for when, figures in (("before", payload["before"]), ("after", payload["after"]))
    ]
    return _print(args, payload, lines, outcome)


def _add_background(sub: Any) -> None:
    p = command(
        sub,
        cmd_background,
        "background-knowledge attack on the original and its release, before vs after",
        "An attacker who rules out --m wrong sensitive values per record (and weighs the "
        "values by --prior) reads each class of the original and of the release; a record "
        "is at risk when the posterior of its true value is at least --posterior-tau "
        "(Machanavajjhala et al. 2007). --json prints attack, qi, sa, m, tau, prior, and "
        "before/after {records, records_attacked, records_at_risk, records_at_risk_share, "
        "mean_posterior, max_posterior, mean_posterior_without_knowledge, min_values_left, …}.",
    )
    p.add_argument("--original", required=True, help="the original table")
    p.add_argument("--release", required=True, help="the release (its rows in any order)")
    add_request_options(p, BackgroundRequest, required=("qi", "sa"))
    p.add_argument(
        "--prior",
        metavar="FILE",
        help="JSON object: sensitive value → relative weight > 0 (values not listed weigh 1)",
    )
    run_options(p)


# --------------------------------------------------------------------------- ordering


def cmd_ordering(args: argparse.Namespace) -> int:
    ordering, outcome = _run(OrderingRequest, args, _original_and_release(args))
    payload = summary = _payload(ordering, outcome)
    shuffled = summary.get("shuffled") or {}
    lines = [
        f"published order: Spearman ρ = {num(summary['spearman'])}, "
        f"{summary['rows_in_place']:.1%} of rows in place "
        f"({summary['reidentified_by_position']:,} re-identified by position)",
        f"shuffled (seed {summary.get('shuffle_seed')}): ρ = {num(shuffled.get('spearman'))}, "
        f"{(shuffled.get('rows_in_place') or 0):.1%} of rows in place",
    ]
    return _print(args, payload, lines, outcome)


def _add_ordering(sub: Any) -> None:
    p = command(
        sub,
        cmd_ordering,
        "unsorted-matching attack: what the release's row order gives away",
        "How far the release's rows still follow the original's order, traced through "
        "--key, a column present in both tables, and the same figures for the rows "
        "shuffled with --seed (Sweeney 2002, §4.1). --json prints attack, qi, key, seed, "
        "records, spearman, rows_in_place, reidentified_by_position, reidentified_share, "
        "expected_reidentified_without_order (with --qi), shuffled {…}, shuffle_seed.",
    )
    p.add_argument("--original", required=True, help="the original table")
    p.add_argument("--release", required=True, help="the release, as published")
    add_request_options(p, OrderingRequest, required=("key",))
    run_options(p)


# --------------------------------------------------------------------------- two releases


def cmd_complementary(args: argparse.Namespace) -> int:
    first, second = load_table(args.release), load_table(args.second_release)
    inputs = Inputs(
        release=first.frame,
        release_name=first.name,
        second_release=second.frame,
        second_release_name=second.name,
    )
    complementary, outcome = _run(ComplementaryRequest, args, inputs)
    payload = summary = _payload(complementary, outcome)
    lines = [
        f"k of each release: {summary['k_a']} / {summary['k_b']}; smallest effective k "
        f"{summary['min_effective_k']}; {summary['records_effective_k_1']:,} records "
        f"re-identified by the intersection; {summary['records_narrowed']:,} narrowed",
    ]
    return _print(args, payload, lines, outcome)


def _add_complementary(sub: Any) -> None:
    p = command(
        sub,
        cmd_complementary,
        "complementary-release attack: two releases of the same records intersected",
        "Two releases of one table, paired row by row (by position, or through --key), "
        "intersected class by class: each record's effective k and what the "
        "intersections disclose (Sweeney 2002, §4.3). --json prints attack, qi, sa, key "
        "and the attack's summary (k_a, k_b, min_effective_k, records_effective_k_1, "
        "records_narrowed, …).",
    )
    p.add_argument("--release", required=True, help="the first release")
    p.add_argument("--second-release", required=True, help="the second release")
    add_request_options(p, ComplementaryRequest, required=("qi",))
    run_options(p)


# --------------------------------------------------------------------------- LDP


def cmd_sweep(args: argparse.Namespace) -> int:
    sweep, outcome = _run(SweepRequest, args)
    payload = {**sweep.to_dict(), "rows": _plain(outcome.summary["rows"])}
    return _print(args, payload, [outcome.result.to_string(index=False)], outcome)


def _add_sweep(sub: Any) -> None:
    p = command(
        sub,
        cmd_sweep,
        "audit an LDP mechanism at several claimed ε",
        "The mechanism audited at each --epsilons value with the white-box, black-box "
        "and lower-bound measures, as the LDP auditor's sweep. --json prints sweep, "
        "epsilons, domain and rows (one per ε: its estimates with intervals and bounds).",
    )
    add_request_options(p, SweepRequest, required=("mechanism",))
    run_options(p)


def cmd_reconstruct(args: argparse.Namespace) -> int:
    reconstruction, outcome = _run(ReconstructionRequest, args)
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
    return _print(args, payload, lines, outcome)


def _add_reconstruct(sub: Any) -> None:
    p = command(
        sub,
        cmd_reconstruct,
        "randomize simulated values and rebuild their distribution",
        "--values draws of a known bimodal truth on [0, 100] are published with noise "
        "added and their distribution rebuilt on 20 intervals (Agrawal & Srikant 2000), "
        "as the LDP auditor's randomization tab. --json prints noise, noise_scale, "
        "values, reconstruction, tv, tv_perturbed, iterations, edges, truth, perturbed, "
        "estimate.",
    )
    add_request_options(p, ReconstructionRequest)
    run_options(p)


def add_analysis_commands(sub: Any) -> None:
    """``privcore background``, ``ordering``, ``complementary``, ``sweep``,
    ``reconstruct``."""
    for add in (_add_background, _add_ordering, _add_complementary, _add_sweep, _add_reconstruct):
        add(sub)
