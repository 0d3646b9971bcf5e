"""``privcore dp plan``: ε chosen from what a person cares about
(:mod:`privcore.dp.planning`).

Exactly one target:

- ``--target-error E`` (with ``--confidence``, ``--mechanism``, ``--sensitivity`` and,
  for the gaussian mechanism, ``--delta``): the smallest ε at which the noise stays
  within ± E with that confidence;
- ``--target-posterior P`` (with ``--prior``): the largest ε at which an attacker with
  that prior believes any fact about one person at most P;
- ``--target-advantage A``: the largest ε at which a membership-inference attacker's
  advantage (true-positive rate minus false-positive rate) is at most A.

Printed: the ε found, what it means in words, and the trade-off around it (for each ε:
the error at the confidence, the posterior bound, the advantage bound); with ``--json``
one object with the keys ``epsilon``, ``target`` (``kind``, ``value`` and the target's
own parameters), ``parameters`` (those the trade-off is computed with) and ``tradeoff``
(rows ``epsilon``, ``error``, ``posterior``, ``advantage``). Nothing is read, drawn or
spent: no run, no history. A target no ε meets, or bad values, are the library's
errors (``dp.bad_target_error``, ``dp.target_unreachable``, ``dp.bad_target_posterior``,
``dp.bad_target_advantage``, …): one line on stderr, exit 2.

The library is imported when the command runs: building the parser loads no statistics.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from privcore.cli.toolkit import EXIT_OK, emit, json_option, number, number_list
from privcore.errors import InfeasibleError, ParameterError

__all__ = ["cmd_dp_plan", "plan_options"]

_NOISES = ("laplace", "geometric", "gaussian")
#: The trade-off's default points: this many ε from ε/8 to 8ε, evenly on a log scale.
CURVE_POINTS = 9
#: The most points ``--curve N`` asks for.
MOST_CURVE_POINTS = 1000
#: How far the default trade-off reaches on each side of the ε found (a factor).
CURVE_REACH = 8.0
_TARGETS = ("error", "posterior", "advantage")


def curve_option(text: str) -> int | tuple[float, ...]:
    """``--curve``: a whole number N (N points around the ε found) or ε values separated
    by commas (one ε alone: ``--curve 2.0`` or ``--curve 2,``)."""
    expected = f"a number of points from 1 to {MOST_CURVE_POINTS} or a list of ε values"
    try:
        if "," in text or ";" in text:
            return number_list(text)
        count = int(text)
    except ValueError:
        try:
            return (number(text),)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}") from None
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}") from None
    if not 1 <= count <= MOST_CURVE_POINTS:
        raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
    return count


def _target(args: argparse.Namespace) -> tuple[str, float]:
    """(kind, value) of the one target given."""
    given = [
        (kind, getattr(args, f"target_{kind}"))
        for kind in _TARGETS
        if getattr(args, f"target_{kind}") is not None
    ]
    if len(given) != 1:
        raise ParameterError(
            "dp plan needs exactly one target: --target-error E, --target-posterior P or "
            f"--target-advantage A ({len(given) or 'none'} given).",
            code="cli.dp_plan_target",
        )
    return given[0]


def _check(args: argparse.Namespace) -> None:
    """What the library would word less plainly: the confidence, the prior, and δ
    (needed by the gaussian mechanism and by it only)."""
    if not (0.0 < args.confidence < 1.0):
        raise ParameterError(
            f"--confidence must lie strictly between 0 and 1, got {args.confidence:g}.",
            code="cli.dp_plan_confidence",
        )
    if not (0.0 < args.prior < 1.0):
        raise ParameterError(
            f"--prior must be a probability from 0 to 1, both excluded (0 and 1 are "
            f"certainties that no answer changes), got {args.prior:g}.",
            code="cli.dp_plan_prior",
        )
    if args.noise == "gaussian" and args.delta is None:
        raise ParameterError(
            "--mechanism gaussian needs --delta (its δ, e.g. 1e-6).", code="cli.dp_plan_delta"
        )
    if args.noise != "gaussian" and args.delta is not None:
        raise ParameterError("--delta belongs to --mechanism gaussian.", code="cli.dp_plan_delta")


def _solve(kind: str, value: float, args: argparse.Namespace) -> float:
    """The ε of the target, within the ε the mechanisms accept."""
    from privcore.dp.parameters import MAX_EPSILON, MIN_EPSILON
    from privcore.dp.planning import (
        epsilon_for_advantage,
        epsilon_for_error,
        epsilon_for_posterior,
    )

    if kind == "error":
        epsilon = epsilon_for_error(
            value,
            args.confidence,
            mechanism=args.noise,
            sensitivity=args.sensitivity,
            delta=args.delta or 0.0,
        )
    elif kind == "posterior":
        epsilon = epsilon_for_posterior(value, args.prior)
    else:
        epsilon = epsilon_for_advantage(value)
    if not (MIN_EPSILON <= epsilon <= MAX_EPSILON):
        why = (
            "every answer would be only noise"
            if epsilon < MIN_EPSILON
            else "such an ε protects nothing"
        )
        raise InfeasibleError(
            f"The target needs ε = {epsilon:.3g}, outside the ε accepted ({MIN_EPSILON:g} "
            f"to {MAX_EPSILON:g}): {why}.",
            code="cli.dp_plan_epsilon_range",
            epsilon=epsilon,
        )
    return epsilon


def _curve(epsilon: float, curve: int | tuple[float, ...] | None) -> list[float]:
    """The trade-off's ε: those of ``--curve``, or N points (default
    :data:`CURVE_POINTS`) from ε/8 to 8ε evenly on a log scale (ε itself in the middle of
    an odd N), leaving out those outside the ε accepted."""
    from privcore.dp.parameters import MAX_EPSILON, MIN_EPSILON

    if isinstance(curve, tuple):
        return list(curve)
    points = CURVE_POINTS if curve is None else curve
    if points == 1:
        return [epsilon]
    grid = [epsilon * CURVE_REACH ** (2.0 * i / (points - 1) - 1.0) for i in range(points)]
    return [e for e in grid if MIN_EPSILON <= e <= MAX_EPSILON]


def _shown(value: float, up: bool) -> str:
    """ε to 4 significant digits, rounded towards the side that still meets the target:
    up for an error (more ε, less noise), down for a posterior or an advantage."""
    if value <= 0 or not math.isfinite(value):
        return f"{value:g}"
    scale = 10.0 ** (3 - math.floor(math.log10(value)))
    steps = value * scale
    rounded = math.ceil(steps - 1e-9) if up else math.floor(steps + 1e-9)
    return f"{rounded / scale:.4g}"


def _percent(confidence: float) -> str:
    return f"{100 * confidence:.6g} %"


def _query_words(parameters: dict[str, Any]) -> str:
    """The query in words: "a count with geometric noise", "a query of sensitivity 10
    with laplace noise"."""
    sensitivity = parameters["sensitivity"]
    what = "a count" if sensitivity == 1 else f"a query of sensitivity {sensitivity:g}"
    noise = f"{parameters['mechanism']} noise"
    if parameters["delta"] is not None:
        noise += f" (δ = {parameters['delta']:g})"
    return f"{what} with {noise}"


def _lines(payload: dict[str, Any], row: dict[str, Any]) -> list[str]:
    """The ε found, what the target and the ε (its trade-off ``row``) mean in words, and
    the trade-off."""
    target, parameters = payload["target"], payload["parameters"]
    up = target["kind"] == "error"
    shown = _shown(payload["epsilon"], up)
    prior = f"{parameters['prior']:g}"
    if target["kind"] == "error":
        from privcore.dp.planning import SMALLEST_EPSILON  # where the search stops

        floor = payload["epsilon"] <= SMALLEST_EPSILON
        goal = (
            f"{'the smallest ε searched (less may do)' if floor else 'the smallest ε'} at "
            f"which {_query_words(parameters)} stays within ± {target['value']:g} of the "
            f"truth {_percent(target['confidence'])} of the time"
        )
    elif target["kind"] == "posterior":
        goal = (
            f"the largest ε at which an attacker with prior {prior} believes any fact about "
            f"one person at most {target['value']:g}"
        )
    else:
        goal = (
            "the largest ε at which a membership-inference attacker's advantage (true-"
            f"positive rate − false-positive rate) is at most {target['value']:g}"
        )
    lines = [
        f"ε = {shown}: {goal}",
        f"At ε = {shown} {_query_words(parameters)} is within ± {row['error']:.4g} of the "
        f"truth {_percent(parameters['confidence'])} of the time;",
        f"an attacker with prior {prior} believes any fact about one person at most "
        f"{row['posterior']:.4g};",
        "a membership-inference attacker's advantage (true-positive rate − false-positive "
        f"rate) is at most {row['advantage']:.4g}.",
    ]
    if parameters["delta"] is not None:
        lines.append(
            "(The posterior and advantage bounds are those of ε-DP: with the gaussian "
            f"mechanism's δ = {parameters['delta']:g} they can fail by a margin, or with a "
            "probability, of the order of δ.)"
        )
    lines += ["", _table_title(parameters), *_table(payload["tradeoff"], payload["epsilon"], up)]
    return lines


def _table_title(parameters: dict[str, Any]) -> str:
    return (
        f"trade-off (± error {_percent(parameters['confidence'])} of the time; posterior "
        f"bound from prior {parameters['prior']:g}; membership advantage bound):"
    )


def _table(rows: list[dict[str, Any]], epsilon: float, up: bool) -> list[str]:
    """One line per ε, the ε found marked with →."""
    lines = [f"  {'ε':>10}  {'± error':>10}  {'posterior':>10}  {'advantage':>10}"]
    for row in rows:
        mark = "→" if row["epsilon"] == epsilon else " "
        lines.append(
            f"{mark} {_shown(row['epsilon'], up):>10}  {row['error']:>10.4g}  "
            f"{row['posterior']:>10.4f}  {row['advantage']:>10.4f}"
        )
    return lines


def cmd_dp_plan(args: argparse.Namespace) -> int:
    from privcore.dp.planning import tradeoff

    kind, value = _target(args)
    _check(args)
    epsilon = _solve(kind, value, args)
    parameters = {
        "confidence": args.confidence,
        "prior": args.prior,
        "mechanism": args.noise,
        "sensitivity": args.sensitivity,
        "delta": args.delta,
    }
    own = {
        "error": ("confidence", "mechanism", "sensitivity", "delta"),
        "posterior": ("prior",),
        "advantage": (),
    }[kind]
    settings = {**parameters, "delta": args.delta or 0.0}
    [found] = tradeoff([epsilon], **settings)
    rows = tradeoff(_curve(epsilon, args.curve), **settings)
    payload = {
        "epsilon": epsilon,
        "target": {"kind": kind, "value": value, **{name: parameters[name] for name in own}},
        "parameters": parameters,
        "tradeoff": rows,
    }
    emit(payload, args.json, _lines(payload, found))
    return EXIT_OK


def plan_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``dp plan``."""
    target = parser.add_argument_group("the target (exactly one)")
    target.add_argument(
        "--target-error",
        type=number,
        metavar="E",
        help="the smallest ε whose noise stays within ± E with --confidence",
    )
    target.add_argument(
        "--target-posterior",
        type=number,
        metavar="P",
        help="the largest ε at which an attacker with --prior believes any fact about one "
        "person at most P (above the prior, below 1)",
    )
    target.add_argument(
        "--target-advantage",
        type=number,
        metavar="A",
        help="the largest ε at which a membership-inference attacker's advantage "
        "(true-positive rate − false-positive rate) is at most A (between 0 and 1)",
    )
    parser.add_argument(
        "--confidence",
        type=number,
        default=0.95,
        help="how often the noise stays within the error (default 0.95)",
    )
    parser.add_argument(
        "--mechanism",
        dest="noise",
        choices=_NOISES,
        default="geometric",
        metavar="MECHANISM",
        help="noise of the query: laplace, geometric or gaussian (default geometric: the "
        "discrete Laplace of counts)",
    )
    parser.add_argument(
        "--sensitivity",
        type=number,
        default=1.0,
        help="the query's sensitivity Δ (L2 for gaussian; a whole number for geometric; "
        "default 1: a count)",
    )
    parser.add_argument(
        "--delta", type=number, help="δ of the gaussian mechanism (required with it)"
    )
    parser.add_argument(
        "--prior",
        type=number,
        default=0.5,
        help="the attacker's prior belief in a fact about one person (default 0.5)",
    )
    parser.add_argument(
        "--curve",
        type=curve_option,
        metavar="CURVE",
        help="the trade-off's ε: a whole number N (N points from ε/8 to 8ε around the ε "
        "found, evenly on a log scale) or ε values separated by commas (one alone: 2.0 or "
        f"2,); default {CURVE_POINTS} points",
    )
    json_option(parser)
