"""``privcore dp …``: central differential privacy from the command line (SPEC §10).

Four commands, each printing one JSON object with ``--json`` (a documented contract,
README "Command line"):

- ``dp query INPUT --count [--where COL=VALUE]… | --sum COL --clamp A,B | --mean COL
  --clamp A,B | --histogram COLS`` at ``--epsilon`` (``--delta`` for gaussian) →
  ``answer``, ``answers`` (``--draws`` independent answers), ``scale``, ``sensitivity``,
  ``epsilon``, ``delta``, ``interval`` (95 %), ``mechanism``, ``query``;
- ``dp dinner --epsilon E [--prior P]`` → ``posterior_max``, ``posterior_exact_answers``
  (= 1) and the story's counts;
- ``dp release INPUT --qi … --sa … --epsilon E --out FILE [--method marginals|mst|aim]``
  → the noisy marginals, the synthesized records (written to ``--out``) and the
  per-query error report, compared with a k-anonymous release of the same data with
  ``--k`` (:mod:`privcore.cli.dp_release`);
- ``dp audit --mechanism NAME --epsilon E [--samples N] [--seed S]`` → ``epsilon_lb``,
  ``verdict`` (consistent / violation / inconclusive); exit 0 whatever the verdict.

Exit codes: 0 ok, 2 bad input (one line on stderr). The subcommands are one table
(:data:`_SUBCOMMANDS`): each row names its handler, what adds its options, and its help.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from functools import partial
from typing import Any

from privcore.cli.toolkit import (
    Parser,
    add_option,
    budget_options,
    columns,
    file_names,
    load_table,
    number,
    number_list,
    positive_int,
    run_options,
    whole_number_in,
)
from privcore.cli.toolkit.commands import Subcommand, add_subcommands
from privcore.cli.toolkit.output import emit_run, reading
from privcore.cli.toolkit.running import request_and_run
from privcore.errors import ParameterError
from privcore.runs import (
    DifferencingRequest,
    DinnerRequest,
    DpAccuracyRequest,
    DpAuditRequest,
    DpQueryRequest,
    Inputs,
    Request,
)

__all__ = ["AUDITED", "add_dp_commands"]

_NOISES = ("laplace", "geometric", "gaussian")
_RELATIONS = ("add_remove", "replace")
#: The names of :data:`privcore.dp.audit.AUDIT_MECHANISMS` (a test keeps them equal), here
#: so that building the parser does not import the auditor.
AUDITED = (
    "laplace_count",
    "geometric_count",
    "gaussian_count",
    "laplace_sum",
    "broken_scale_eps",
    "broken_no_clamp",
    "broken_float_laplace",
)


def _where(pairs: list[str] | None) -> dict[str, Any]:
    """``--where COL=VALUE`` options; a column given twice means either value."""
    where: dict[str, Any] = {}
    for pair in pairs or ():
        column, sep, value = pair.partition("=")
        if not sep or not column.strip():
            raise ParameterError(
                f"--where takes COLUMN=VALUE, not '{pair}'.", code="cli.where_option"
            )
        column = column.strip()
        if column in where:
            previous = where[column]
            where[column] = [*(previous if isinstance(previous, list) else [previous]), value]
        else:
            where[column] = value
    return where


def _clamp(text: str | None) -> tuple[float, float] | None:
    """``--clamp A,B``: the range every value of ``--sum`` or ``--mean`` is clamped to."""
    if text is None:
        return None
    low, sep, high = text.partition(",")
    try:
        if not sep:
            raise ValueError
        return float(low), float(high)
    except ValueError as exc:
        raise ParameterError(
            f"--clamp takes A,B (the range every value is clamped to), not '{text}'.",
            code="cli.clamp_option",
        ) from exc


def _query_kind(args: argparse.Namespace) -> tuple[str, str | None, tuple[str, ...]]:
    """(query, column, columns) from --count / --sum / --mean / --histogram."""
    chosen = [
        name
        for name, value in (
            ("count", args.count),
            ("sum", args.sum),
            ("mean", args.mean),
            ("histogram", args.histogram),
        )
        if value
    ]
    if len(chosen) != 1:
        raise ParameterError(
            "dp query needs exactly one of --count, --sum COL, --mean COL, --histogram COLS.",
            code="cli.dp_query_kind",
        )
    query = chosen[0]
    if query in ("sum", "mean"):
        return query, getattr(args, query), ()
    if query == "histogram":
        return query, None, tuple(columns(args.histogram, "--histogram"))
    return query, None, ()


_n = reading  # numbers as every dp subcommand prints them


def _words(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    return _n(value) if isinstance(value, (int, float)) else str(value)


def _query_values(args: argparse.Namespace, *, clamp_alone: bool) -> tuple[Inputs, dict[str, Any]]:
    """The table and the query of ``dp query`` and ``dp accuracy`` (:func:`_query_options`)
    as a run's inputs and the request's values; ``clamp_alone``: ``--clamp`` without
    ``--sum`` or ``--mean`` is an error (``dp accuracy`` passes it over)."""
    query, column, chosen = _query_kind(args)
    if clamp_alone and args.clamp is not None and query not in ("sum", "mean"):
        raise ParameterError("--clamp belongs to --sum or --mean.", code="cli.clamp_option")
    dataset = load_table(args.input)
    inputs = Inputs(original=dataset, names=file_names(args))
    values: dict[str, Any] = {
        "query": query,
        "where": _where(args.where) or None,
        "column": column,
        "clamp": _clamp(args.clamp),
        "columns": chosen,
        "delta": args.delta,
        "noise": args.mechanism,
        "draws": args.draws,
        "seed": args.seed,
        "relation": args.relation,
    }
    return inputs, values


def cmd_dp_query(args: argparse.Namespace) -> int:
    inputs, values = _query_values(args, clamp_alone=True)
    _, outcome = request_and_run(DpQueryRequest, args, inputs, epsilon=args.epsilon, **values)
    answer = outcome.result
    payload = answer.to_dict()
    payload["query"] = answer.query.label
    return emit_run(args, payload, _query_lines(answer, payload), outcome)


def _query_lines(answer: Any, payload: dict[str, Any]) -> list[str]:
    """The query, its noise, and the noisy answer (or the first 20 cells) with its 95 %
    interval."""
    lines = [
        f"{answer.query.label}: ε = {_n(answer.epsilon)}"
        + (f", δ = {answer.delta:g}" if answer.delta else "")
        + f", mechanism {_words(answer.mechanism)}, {answer.query.relation.replace('_', '/')} "
        "neighbours",
        f"sensitivity {_words(answer.sensitivity)}, noise scale {_words(answer.scale)}",
    ]
    if isinstance(payload["answer"], list):
        lines.append(f"{len(payload['answer'])} cells (use --json for every noisy count):")
        for cell, bounds in list(zip(payload["answer"], payload["interval"], strict=True))[:20]:
            where = ", ".join(f"{k}={v}" for k, v in cell["cell"].items())
            lines.append(
                f"  {where}: {_n(cell['answer'])}  95 % interval [{_n(bounds[0])}, {_n(bounds[1])}]"
            )
    else:
        low, high = payload["interval"]
        lines.append(
            f"noisy answer {_n(payload['answer'])}; 95 % interval for the true answer "
            f"[{_n(low)}, {_n(high)}]"
        )
    if len(payload["answers"]) > 1:
        lines.append(f"{len(payload['answers'])} independent draws (each would cost ε)")
    return lines


def _posterior_line(epsilon: float, posterior_max: float, prior: float) -> str:
    """The differencing attacker's largest posterior when the counts carry ε-DP noise."""
    return (
        f"answers with ε = {_n(epsilon)}: posterior at most {posterior_max:.4f} (prior {prior:g})"
    )


def _differencing(
    args: argparse.Namespace,
    kind: type[Request],
    inputs: Inputs | None,
    values: dict[str, Any],
    story: Callable[[Any, Any], list[str]],
) -> int:
    """A differencing attack (``dp dinner``, ``dp person``): the request of ``kind`` with
    ``values`` (who is attacked, ε of each count, the attacker's prior), the noise of the
    counts and its seed, run on ``inputs``; printed as the lines ``story`` makes of the
    request and its result, or with ``--json`` as the result's object."""
    asked, outcome = request_and_run(
        kind, args, inputs, **values, noise=args.mechanism, seed=args.seed
    )
    return emit_run(args, outcome.result.to_dict(), story(asked, outcome.result), outcome)


def cmd_dp_dinner(args: argparse.Namespace) -> int:
    values = {"epsilon": args.epsilon, "prior": args.prior, "leaver": args.leaver}
    return _differencing(args, DinnerRequest, None, values, _dinner_lines)


def _dinner_lines(asked: DinnerRequest, story: Any) -> list[str]:
    """Who leaves, the counts before and after, and what the attacker learns of the
    leaver from exact and from ε-DP answers."""
    return [
        f"{story.leaver} leaves: diners {story.diners_before} → {story.diners_after}, "
        f"singles {story.singles_before} → {story.singles_after}",
        f"exact answers: the attacker is certain ({story.posterior_exact_answers:g}) that "
        f"{story.leaver} is {story.leaver_status}",
        _posterior_line(asked.epsilon, story.posterior_max, asked.prior),
    ]


def cmd_dp_audit(args: argparse.Namespace) -> int:
    inputs, values = Inputs(), {"audited": args.mechanism, "samples": args.samples}
    if (args.outputs is None) == (args.mechanism is None):
        raise ParameterError(
            "dp audit needs --mechanism (a built-in mechanism) or --outputs with --columns "
            "(outputs of any implementation), not both.",
            code="cli.dp_audit_target",
        )
    if args.outputs is not None:
        samples = load_table(args.outputs)
        inputs = Inputs(samples=samples, names={"samples": samples.name})
        chosen = tuple(columns(args.columns or "", "--columns"))
        values = {"audited": "uploaded", "output_columns": chosen}
    _, outcome = request_and_run(
        DpAuditRequest,
        args,
        inputs,
        epsilon=args.epsilon,
        delta=args.delta,
        seed=args.seed,
        **values,
    )
    payload = outcome.result.to_dict()
    lines = [
        f"{payload['mechanism']}: claimed ε = {_n(payload['epsilon'])}, "
        f"{payload['samples']} draws on each of two neighbouring data sets",
        f"certified lower bound ε_LB = {_n(payload['epsilon_lb'])}",
        f"verdict: {payload['verdict']} — " + _reason(payload),
    ]
    return emit_run(args, payload, lines, outcome)


def _reason(payload: dict[str, Any]) -> str:
    """The verdict's reason in the words of the Differential privacy page."""
    from privcore.words.catalog import text

    return text(
        f"dp.reason_{payload['reason']}",
        lb=_n(payload["epsilon_lb"]),
        claimed=_n(payload["epsilon"]),
    )


def _common(parser: argparse.ArgumentParser, *, seed_help: str) -> None:
    """``--seed`` (the registry's, checked at once) and the run options."""
    add_option(parser, "seed", default=0, checked=True, help=seed_help)
    run_options(parser)


def _input_option(parser: argparse.ArgumentParser) -> None:
    """The table a command reads (positional ``input``)."""
    parser.add_argument("input", help="CSV/TSV/semicolon text, .xlsx, .parquet or .jsonl")


def _relation_option(parser: argparse.ArgumentParser, help: str = "neighbours") -> None:
    """``--relation``: add/remove one record (default) or replace one."""
    parser.add_argument("--relation", choices=_RELATIONS, default="add_remove", help=help)


def _differencing_options(parser: argparse.ArgumentParser, *, leaver: bool) -> None:
    """The differencing attack's counts and attacker (``dp dinner``, ``dp person``): ε of
    each count, the attacker's prior, ``--leaver`` (the dinner's), the noise, the seed."""
    add_option(parser, "epsilon", required=True, help="ε of each count")
    parser.add_argument(
        "--prior", type=number, default=0.5, help="the attacker's prior (default 0.5)"
    )
    if leaver:
        parser.add_argument("--leaver", default="Zhang San", help="who leaves (default Zhang San)")
    parser.add_argument(
        "--mechanism",
        choices=("geometric", "laplace"),
        default="geometric",
        help="noise of the counts (default geometric)",
    )
    _common(parser, seed_help="seed of the noise")


def _query_options(parser: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """The table and the query of ``dp query`` and ``dp accuracy``: one of --count,
    --sum, --mean, --histogram, its conditions and clamping range, ``--epsilon`` (the
    accuracy view has its grid instead), the noise and δ."""
    _input_option(parser)
    parser.add_argument("--count", action="store_true", help="count the rows meeting --where")
    parser.add_argument("--sum", metavar="COL", help="sum of a numeric column clamped to --clamp")
    parser.add_argument("--mean", metavar="COL", help="mean of a numeric column clamped to --clamp")
    parser.add_argument(
        "--histogram", metavar="COLS", help="count every combination of these columns"
    )
    parser.add_argument(
        "--where",
        action="append",
        metavar="COL=VALUE",
        help="only rows with this value (repeatable; the same column twice means either)",
    )
    parser.add_argument("--clamp", metavar="A,B", help="clamping range of --sum or --mean")
    if epsilon:
        add_option(parser, "epsilon", required=True, help="privacy parameter ε > 0")
    parser.add_argument("--delta", type=number, help="δ of the gaussian mechanism")
    parser.add_argument(
        "--mechanism",
        choices=_NOISES,
        help="noise (default geometric for integer queries, laplace otherwise)",
    )


def _dp_query_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``dp query``."""
    _query_options(parser)
    parser.add_argument(
        "--draws",
        type=positive_int,
        default=1,
        help="independent noisy answers, to see the noise's spread (default 1; each costs ε)",
    )
    _relation_option(
        parser, "neighbouring data sets: add/remove one record (default) or replace one"
    )
    budget_options(parser)
    _common(parser, seed_help="seed of the noise")


def _audit_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``dp audit``."""
    parser.add_argument("--mechanism", choices=AUDITED, help="a built-in mechanism to audit")
    parser.add_argument(
        "--outputs",
        metavar="FILE",
        help="instead: outputs of any implementation, one column per neighbouring data set",
    )
    parser.add_argument("--columns", metavar="D,D2", help="with --outputs: the two columns")
    add_option(parser, "epsilon", required=True)
    parser.add_argument("--delta", type=number, help="the claimed δ (gaussian_count)")
    # draws per data set, not the LDP audit's samples per input (registry "samples")
    parser.add_argument("--samples", type=positive_int, help="draws per data set")
    _common(parser, seed_help="seed of the draws")


def cmd_dp_accuracy(args: argparse.Namespace) -> int:
    inputs, values = _query_values(args, clamp_alone=False)
    if args.grid is not None:
        values["grid"] = args.grid
    asked, outcome = request_and_run(DpAccuracyRequest, args, inputs, **values)
    curve = outcome.result
    payload = {"query": values["query"], "draws": asked.draws, "rows": curve.to_dict("records")}
    return emit_run(args, payload, [curve.to_string(index=False)], outcome)


def _accuracy_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``dp accuracy``."""
    _query_options(parser, epsilon=False)
    parser.add_argument(
        "--draws", type=positive_int, default=200, help="answers per ε (default 200)"
    )
    parser.add_argument(
        "--grid",
        type=number_list,
        help="the ε values (default twelve from 0.05 to 5, evenly on a log scale)",
    )
    _relation_option(parser)
    _common(parser, seed_help="seed of the draws")


def cmd_dp_person(args: argparse.Namespace) -> int:
    where = _where(args.where)
    dataset = load_table(args.input)
    inputs = Inputs(original=dataset, names=file_names(args))
    values = {"row": args.row, "where": where, "epsilon": args.epsilon, "prior": args.prior}
    return _differencing(args, DifferencingRequest, inputs, values, _person_lines)


def _person_lines(asked: DifferencingRequest, attack: Any) -> list[str]:
    """The counts with and without the person, and what the attacker learns of them from
    exact and from ε-DP answers."""
    return [
        f"row {attack.target_row}: counts {attack.count_with} with and {attack.count_without} "
        f"without the person; exact answers tell the attacker for certain "
        f"({attack.posterior_exact_answers:g})",
        _posterior_line(attack.epsilon, attack.posterior_max, attack.prior),
    ]


def _person_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``dp person``."""
    _input_option(parser)
    parser.add_argument(
        "--row", type=whole_number_in(0, None), required=True, help="the person's row"
    )
    parser.add_argument(
        "--where", action="append", metavar="COL=VALUE", required=True, help="the condition counted"
    )
    _differencing_options(parser, leaver=False)


def _loaded(module: str, name: str) -> Callable[[Any], Any]:
    """A subcommand's handler or options (``name``) from its own module
    (``privcore.cli.<module>``: ``dp_release``, ``dp_plan``), imported when called, as
    :mod:`~privcore.cli.entry` imports each command."""
    return lambda arg: getattr(importlib.import_module(f"privcore.cli.{module}"), name)(arg)


#: The ``dp`` subcommands, in the order ``privcore dp --help`` lists them.
_SUBCOMMANDS = (
    Subcommand(
        "query",
        cmd_dp_query,
        _dp_query_options,
        "answer a count, sum, mean or histogram with DP noise",
        "Answer one query with central DP. --json keys: answer, answers, "
        "scale, sensitivity, epsilon, delta, interval (95 %% interval for the true answer), "
        "mechanism, query. Counts use the discrete (geometric) Laplace mechanism by "
        "default: floating-point Laplace leaks through its low-order bits (Mironov 2012).",
    ),
    Subcommand(
        "dinner",
        cmd_dp_dinner,
        partial(_differencing_options, leaver=True),
        "the differencing attack of the dinner story, with exact and DP answers",
        "Ten friends at dinner, eight in couples and two single; one leaves and "
        "the count of singles is asked again. --json keys: posterior_max (the attacker's "
        "largest posterior under ε-DP answers), posterior_exact_answers (1: exact answers "
        "reveal the leaver's status), leaver, diners_before/after, singles_before/after, "
        "attack.",
    ),
    Subcommand(
        "release",
        _loaded("dp_release", "cmd_dp_release"),
        _loaded("dp_release", "release_options"),
        "a DP release: noisy marginals and records synthesized from them, or records "
        "synthesized by MST or AIM",
        "Release each quasi-identifier's marginal with the sensitive attribute "
        "under ε-DP (ε split equally), made consistent (non-negative integers whose totals "
        "agree), and write records synthesized from them to --out; or, with --method mst "
        "or aim, records synthesized from a graphical model under (ε, δ)-DP (numeric "
        "columns with many values cut into --bins intervals). With --k, the same "
        "queries are answered from a k-anonymous release of the same data and both are "
        "compared with the truth. --json keys: epsilon, total, marginals, ledger, records, "
        "relation, out, and with --k comparison (per_query, summary) and k_anon; with --gdpr "
        "gdpr_risks; with --method mst or aim also method, delta, rho (the zCDP budget), "
        "bounds (each released marginal's error bound at 95 %) and binnings, and the "
        "ledger lists ρ step by step.",
    ),
    Subcommand(
        "audit",
        cmd_dp_audit,
        _audit_options,
        "audit a central DP mechanism: a certified lower bound on its real ε",
        "Run the mechanism on two neighbouring data sets, learn an event on half "
        "the draws and bound its probabilities on the other half with Clopper–Pearson "
        "intervals: epsilon_lb is a lower bound on the real ε. verdict: violation (above "
        "the claim), consistent, or inconclusive. Exit 0 whatever the verdict. "
        "Mechanisms starting with broken_ are deliberately wrong.",
    ),
    Subcommand(
        "accuracy",
        cmd_dp_accuracy,
        _accuracy_options,
        "how far a DP query's answers fall from the truth at each ε (no budget spent)",
        "The query answered --draws times at each ε of --grid, as the "
        "Differential privacy page's accuracy view: the 5th, 50th and 95th percentiles of "
        "the error and the stated 95 %% half-width. A view of the noise, not a release: it "
        "spends no budget. --json keys: query, draws, rows (epsilon, p5, median, p95, "
        "half_width).",
    ),
    Subcommand(
        "person",
        cmd_dp_person,
        _person_options,
        "the differencing attack on one person of a table, with exact and DP answers",
        "Count the rows meeting --where with and without the person of --row "
        "(0-based), exactly and with ε-DP noise, and what an attacker with --prior learns "
        "of that person, as the Differential privacy page's attack on a person. The "
        "history keeps the columns tested, never the values. --json keys: target_row, "
        "where, count_with, count_without, exact_difference, target_has_value, "
        "posterior_exact_answers, epsilon, prior, mechanism, noisy_with, noisy_without, "
        "posteriors, posterior_max, posterior_min.",
    ),
    Subcommand(
        "plan",
        _loaded("dp_plan", "cmd_dp_plan"),
        _loaded("dp_plan", "plan_options"),
        "the ε that meets a target: an error, an attacker's posterior or advantage",
        "Choose ε from what matters: the smallest ε whose noise stays within --target-error "
        "with --confidence, or the largest ε at which an attacker with --prior believes any "
        "fact about one person at most --target-posterior, or at which a membership "
        "attacker's advantage is at most --target-advantage; with the trade-off around it. "
        "Nothing is read or spent. --json keys: epsilon, target (kind, value and its "
        "parameters), parameters, tradeoff (epsilon, error, posterior, advantage).",
    ),
)


def add_dp_commands(sub: Any) -> None:
    """``privcore dp query|dinner|release|audit|accuracy|person|plan``."""
    dp = sub.add_parser(
        "dp",
        help="central differential privacy: noisy queries, the differencing attack, DP "
        "releases and their audit",
        description="Differential privacy on a data set (neighbouring data sets differ by "
        "adding or removing one person's record unless --relation replace). Each command "
        "prints one JSON object with --json.",
    )
    dp_sub = dp.add_subparsers(dest="dp_command", required=True, parser_class=Parser)
    add_subcommands(dp_sub, _SUBCOMMANDS)
