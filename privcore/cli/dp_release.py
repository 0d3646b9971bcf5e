"""``privcore dp release``: a DP release of a table (:func:`privcore.dp.release.dp_release`)
— noisy QI × SA marginals made consistent and records synthesized from them
(``--method marginals``, ε-DP, the default), or records synthesized by MST or AIM from a
graphical model (``--method mst|aim``, (ε, δ)-DP: :mod:`privcore.dp.synthesis`) —
compared with a k-anonymous release of the same data with ``--k``.

Printed: the budget and how it was spent (the marginal release: each noisy marginal's ε;
MST and AIM: (ε, δ), the zCDP budget ρ, each step's ρ and the ρ spent so far, the numeric
columns cut into intervals, and each released marginal's error bound at 95 %), the error
on each marginal's counts, and with ``--gdpr`` each method's singling out, linkability
and inference. With ``--json``: one object (README "Command line" lists its keys; MST and
AIM add ``method``, ``delta``, ``rho``, ``bounds`` and ``binnings``).

``--delta``, ``--bins`` and ``--bounds COLUMN=LOW:HIGH`` belong to MST and AIM: with the
marginal release they are refused in words (exit 2, one line), as a malformed
``--bounds`` is. A module of its own that :mod:`privcore.cli.dp` loads by name, as
``dp plan``; it uses the toolkit only.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from privcore import history
from privcore.cli.toolkit import (
    add_option,
    budget_options,
    check_outputs,
    columns,
    file_names,
    formula_guard_option,
    hierarchy_inputs,
    hierarchy_option,
    load_table,
    number,
    run_options,
    write_text,
)
from privcore.cli.toolkit.files import chosen_hierarchies, save_guarded
from privcore.cli.toolkit.output import emit_run, reading
from privcore.cli.toolkit.running import request_and_run
from privcore.errors import ParameterError
from privcore.runs import DpReleaseRequest, Inputs

__all__ = ["DEFAULT_DELTA_WORDS", "cmd_dp_release", "release_options"]

_RELATIONS = ("add_remove", "replace")
#: The options ``dp release`` gives its request as they are.
_RELEASE_VALUES = ("epsilon", "seed", "relation", "k", "algorithm", "max_suppression", "gdpr")
#: :data:`privcore.dp.synthesis.DEFAULT_DELTA` in the help (a test keeps them equal), here
#: so that building the parser does not import the synthesizers.
DEFAULT_DELTA_WORDS = "1e-09"
#: How each kind of error bound was found (:mod:`privcore.dp.uncertainty`).
_BOUND_SOURCES = {
    "measured": "from its measurement",
    "selection": "from the selection round that passed it over",
}


_n = reading  # numbers as every dp subcommand prints them


# --------------------------------------------------------------------------- MST and AIM


def _bad_bounds(item: str) -> ParameterError:
    return ParameterError(
        "--bounds takes COLUMN=LOW:HIGH, two numbers with LOW below HIGH (e.g. age=15:95), "
        f"not '{item}'.",
        code="cli.bounds_option",
    )


def _bounds(given: list[str] | None) -> tuple[tuple[str, float, float], ...]:
    """``--bounds COLUMN=LOW:HIGH`` (repeatable, or several separated by commas): the
    public bounds of numeric columns, each column once."""
    found: dict[str, tuple[float, float]] = {}
    for text in given or ():
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise _bad_bounds(text)
        for item in items:
            column, equals, pair = item.rpartition("=")
            low, colon, high = pair.partition(":")
            try:
                if not (equals and colon and column.strip()):
                    raise ValueError(item)
                lower, upper = float(low), float(high)
            except ValueError as exc:
                raise _bad_bounds(item) from exc
            if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
                raise _bad_bounds(item)
            column = column.strip()
            if column in found:
                raise ParameterError(
                    f"--bounds gives {column} twice.", code="cli.bounds_option", column=column
                )
            found[column] = (lower, upper)
    return tuple((column, lower, upper) for column, (lower, upper) in found.items())


def _method_values(args: argparse.Namespace, chosen: tuple[str, ...]) -> dict[str, Any]:
    """The request's ``method``, ``delta``, ``bounds`` and ``bins`` from ``--method``,
    ``--delta``, ``--bounds`` and ``--bins`` (nothing for the marginal release, whose
    request stays as it was); the last three are refused with ``--method marginals``, and
    bounds of a column that is not one of ``chosen`` (the QIs and the SA)."""
    if args.method == "marginals":
        options = {"--delta": args.delta, "--bins": args.bins, "--bounds": args.bounds}
        given = [flag for flag, value in options.items() if value is not None]
        if given:
            raise ParameterError(
                f"{', '.join(given)}: only with --method mst or aim. The marginal release "
                "is ε-DP (δ = 0) and keeps every value of its columns, cutting none into "
                "intervals.",
                code="cli.dp_release_synthesis_option",
                options=given,
            )
        return {}
    bounds = _bounds(args.bounds)
    for column, _, _ in bounds:
        if column not in chosen:
            raise ParameterError(
                f"--bounds names {column}, which is neither a --qi column nor the --sa column.",
                code="cli.bounds_column",
                column=column,
            )
    bins = DpReleaseRequest.bins if args.bins is None else args.bins
    return {"method": args.method, "delta": args.delta, "bounds": bounds, "bins": bins}


# --------------------------------------------------------------------------- the command


def cmd_dp_release(args: argparse.Namespace) -> int:
    from privcore.data import Schema

    qi = tuple(columns(args.qi, "--qi"))
    sa = tuple(columns(args.sa, "--sa"))
    method_values = _method_values(args, (*qi, *sa))
    check_outputs(
        {"--out": args.out, "--report": args.report},
        {"INPUT": args.input, **hierarchy_inputs(args)},
    )
    dataset = load_table(args.input)
    suggest = args.k is not None and args.auto_hierarchies
    given = chosen_hierarchies(args, dataset.frame, qi, suggest=suggest)
    inputs = Inputs(
        original=dataset,
        # the roles of the compared k-anonymous release come from --qi and --sa
        schema=Schema({}, given),
        names=file_names(args, out=Path(args.out).name),
    )
    given_values = {name: getattr(args, name) for name in _RELEASE_VALUES}
    compare = tuple(columns(args.compare, "--compare")) if args.compare else ()
    asked, outcome = request_and_run(
        DpReleaseRequest,
        args,
        inputs,
        qi=qi,
        sa=sa,
        compare=compare,
        **given_values,
        **method_values,
    )
    result = outcome.result
    save_guarded(result.dp.records, args.out, formula_guard=args.formula_guard)
    payload = result.dp.to_dict()
    payload["out"] = str(args.out)
    payload["comparison"] = result.comparison.to_dict()
    payload.update(result.compared(k=asked.k))
    if args.report:
        write_text(args.report, history.to_json(payload), "--report")
    return emit_run(args, payload, _release_lines(result, asked.k, args.out), outcome)


def _release_lines(result: Any, k: int | None, out: str) -> list[str]:
    """The release's budget and how it was spent (:func:`_marginal_lines` or
    :func:`_synthesis_lines`), the error on each marginal's counts (against the
    k-anonymous release with ``--k``) and, with ``--gdpr``, each method's singling out,
    linkability and inference."""
    dp = result.dp
    lines = _marginal_lines(dp, out) if dp.method == "marginals" else _synthesis_lines(dp, out)
    if result.k_anon is not None:
        lines.append(f"compared with a {k}-anonymous release ({result.k_anon.algorithm}):")
    else:
        lines.append("error on each marginal's counts (--k compares with a k-anonymous release):")
    for name, figures in result.comparison.summary.items():
        if isinstance(figures, dict):
            shown = ", ".join(
                f"{key} {_n(value)}"
                for key, value in figures.items()
                if isinstance(value, (int, float))
            )
            lines.append(f"  {name}: {shown}")
    for method, risks in (result.gdpr_risks or {}).items():
        name = "DP release" if method == "dp" else f"{k}-anonymous release"
        if "not_measured" in risks:
            lines.append(f"{name}: singling out, linkability, inference not measured "
                         f"({risks['not_measured']['error']})")  # fmt: skip
            continue
        shown = [f"singling out {_risk(risks['singling_out'])}"]
        if risks.get("linkability"):
            shown.append(f"linkability {_risk(risks['linkability'])}")
        shown += [f"inference of {c} {_risk(r)}" for c, r in risks["inference"].items()]
        lines.append(f"{name} (made from 80 %, 20 % held out): " + "; ".join(shown))
    if result.methods is not None:
        lines += _methods_lines(result.methods)
    return lines


def _methods_lines(compared: Any) -> list[str]:
    """--compare: each method's mean TVD over the 2- and 3-way marginals, its
    train-on-release accuracy and, with --gdpr, its three held-out risks (singling out,
    linkability, inference of each sensitive column)."""
    from privcore.report.method_comparison import uninformative_majority

    lines = [
        f"methods compared on every 2- and 3-way marginal of {', '.join(compared.columns)} "
        "(mean total-variation distance; accuracy of predicting the SA on the original, "
        "trained on the release):"
    ]
    for b in compared.binnings:
        source = (
            "public bounds"
            if b["source"] == "public"
            else ("the data's own range: not private, for this study only, not for a release")
        )
        lines.append(
            f"  {b['column']} read in {b['bins']} intervals from {b['lower']:.4g} to "
            f"{b['upper']:.4g} ({source})"
        )
    for m in compared.methods:
        if m.not_measured is not None:
            lines.append(f"  {m.method} ({m.kind}): not measured: {m.not_measured['message']}")
            continue
        shown = f"TVD 2-way {_n(m.tvd2)}, 3-way {_n(m.tvd3)}"
        if m.tvd3 is None:
            shown = f"TVD 2-way {_n(m.tvd2)}"
        if m.regression is not None:
            r = m.regression
            shown += (
                f", accuracy {_n(r['accuracy'])} (trained on the original {_n(r['baseline'])}, "
                f"majority {_n(r['majority'])})"
            )
        rebuilt = m.reconstruction or {}
        if "exact" in rebuilt:
            shown += f"; rebuilt exactly from its QI × SA marginals {_n(rebuilt['exact'])}"
        risks = m.risks or {}
        if "singling_out" in risks:
            shown += f"; singling out {_risk(risks['singling_out'])}"
        if risks.get("linkability"):
            shown += f"; linkability {_risk(risks['linkability'])}"
        for column, risk in (risks.get("inference") or {}).items():
            shown += f"; inference of {column} {_risk(risk)}"
        lines.append(f"  {m.method} ({m.kind}): {shown}, {_n(m.seconds)} s")
    majority = uninformative_majority(m.regression for m in compared.methods)
    if majority is not None:
        lines.append(
            f"  the model trained on the original does no better than the majority guess "
            f"({_n(majority)}): on these columns the accuracy cannot tell the methods apart"
        )
    return lines


def _marginal_lines(dp: Any, out: str) -> list[str]:
    """The marginal release's ε and each noisy marginal's share of it."""
    lines = [
        f"DP release at ε = {_n(dp.epsilon)}: {len(dp.marginals)} "
        f"marginals ({len(dp.ledger)} noisy, ε split equally), "
        f"{len(dp.records)} synthesized records written to {out}",
    ]
    for spend in dp.ledger:
        lines.append(f"  {spend.get('label', '')}: ε = {_n(spend.get('epsilon'))}")
    return lines


def _synthesis_lines(dp: Any, out: str) -> list[str]:
    """MST's or AIM's (ε, δ) and ρ, each step of the budget with the ρ spent so far, the
    numeric columns cut into intervals, and each released marginal's error bound."""
    lines = [
        f"DP release by {dp.method.upper()} at ε = {_n(dp.epsilon)}, δ = {dp.delta:g} "
        f"(ρ = {dp.rho:.4g} in zero-concentrated DP): {len(dp.records)} synthesized "
        f"records written to {out}, {len(dp.marginals)} marginals released",
        f"budget step by step ({len(dp.ledger)} steps: ρ of the step, ρ spent so far):",
    ]
    for step in dp.ledger:
        lines.append(f"  {step['label']}: ρ = {step['rho']:.4g}, spent {step['spent_rho']:.4g}")
    if dp.binnings:
        lines.append("numeric columns cut into intervals:")
        for binning in dp.binnings:
            source = "bounds chosen under DP" if binning["source"] == "dp" else "public bounds"
            lines.append(
                f"  {binning['column']}: {binning['bins']} intervals from "
                f"{binning['lower']:.4g} to {binning['upper']:.4g}, {source}"
            )
    else:
        lines.append("numeric columns cut into intervals: none")
    lines.append("error bound of each released marginal (total variation distance):")
    for bound in dp.bounds:
        lines.append(f"  {' × '.join(bound['clique'])}: {_bound_words(bound)}")
    return lines


def _bound_words(bound: dict[str, Any]) -> str:
    """ "TVD ≤ 0.093, L1 ≤ 372 (95 %, from its measurement)", or why there is none."""
    if bound["source"] == "none" or bound["tvd"] is None:
        reason = f" ({bound['reason']})" if bound.get("reason") else ""
        return f"no bound: not measured{reason}"
    source = _BOUND_SOURCES.get(bound["source"], f"from {bound['source']}")
    return (
        f"TVD ≤ {bound['tvd']:.3g}, L1 ≤ {bound['l1']:.4g} "
        f"({100 * bound['confidence']:g} %, {source})"
    )


def _risk(result: dict[str, Any]) -> str:
    low, high = result["ci"]
    return f"{result['risk']:.3f} [{low:.3f}, {high:.3f}] (naive {result['baseline']:.3f})"


# --------------------------------------------------------------------------- the options


def _method_options(parser: argparse.ArgumentParser) -> None:
    """``--method`` (the registry's ``release_method``), and ``--delta``, ``--bins`` and
    ``--bounds`` of MST and AIM."""
    # --method, not the registry's --release-method: the flag of the library's name
    add_option(
        parser,
        "release_method",
        flags=("--method",),
        dest="method",
        default=DpReleaseRequest.method,
        metavar="METHOD",
    )
    parser.add_argument(
        "--delta",
        type=number,
        metavar="D",
        help=f"δ of --method mst or aim (default {DEFAULT_DELTA_WORDS}; refused with "
        "marginals, which is ε-DP)",
    )
    add_option(
        parser,
        "bins",
        checked=True,
        help="intervals a numeric column with many values is cut into",
        note=f"with --method mst or aim; default {DpReleaseRequest.bins}",
    )
    parser.add_argument(
        "--bounds",
        action="append",
        metavar="COLUMN=LOW:HIGH",
        help="with --method mst or aim: public bounds of a numeric column, cut into --bins "
        "intervals of equal width (repeatable, or several separated by commas; values "
        "outside fall in the first or last interval). A numeric column with many values "
        "and no bounds gets bounds chosen under DP, from a share of the budget",
    )


def release_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``dp release``."""
    parser.add_argument("input", help="CSV/TSV/semicolon text, .xlsx, .parquet or .jsonl")
    # read as text and split by the command (cli.empty_list)
    add_option(parser, "qi", required=True, type=None)
    add_option(parser, "sa", required=True, type=None, help="the sensitive attribute")
    add_option(parser, "epsilon", required=True, help="total ε of the release")
    _method_options(parser)
    parser.add_argument("--out", required=True, help="the synthesized records (.csv or .parquet)")
    parser.add_argument("--report", help="write the JSON report to this file too")
    add_option(parser, "k", checked=True, help="compare with a k-anonymous release")
    # any name: the request checks it against the registry's algorithms
    add_option(
        parser,
        "algorithm",
        default=DpReleaseRequest.algorithm,
        help="algorithm of the k-anonymous release",
        choices=None,
        metavar=None,
    )
    add_option(
        parser,
        "max_suppression",
        default=DpReleaseRequest.max_suppression,
        help="share of rows the k-anonymous release may suppress",
    )
    hierarchy_option(parser)
    parser.add_argument(
        "--auto-hierarchies",
        action="store_true",
        help="suggest a hierarchy for each QI without --hierarchy (for --k)",
    )
    parser.add_argument("--relation", choices=_RELATIONS, default="add_remove", help="neighbours")
    parser.add_argument(
        "--gdpr",
        action="store_true",
        help="also singling out, linkability and inference of each method (DP, and the "
        "k-anonymous one with --k): each release made again from a seeded 80 %% of the "
        "records and attacked against the other 20 %% (JSON key gdpr_risks {dp, k_anon})",
    )
    parser.add_argument(
        "--compare",
        metavar="METHODS",
        help="also compare methods on the same workload, comma-separated among aim, mst, "
        "marginals, k_anon, pram, noise, rank_swap, mdav, condensation: the mean TVD of every "
        "2- and 3-way marginal, a train-on-release regression and, with --gdpr, the held-out "
        "risks (JSON key methods). Each DP method runs at --epsilon and every figure is read "
        "against the original: a study for the data's owner, not a release (the budget is "
        "charged for the release only)",
    )
    formula_guard_option(parser, "the synthesized records")
    budget_options(parser)
    add_option(
        parser, "seed", default=0, checked=True, help="seed of the noise and of the synthesis"
    )
    run_options(parser)
