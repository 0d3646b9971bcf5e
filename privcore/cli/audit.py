"""``privcore audit``: audit a local differential privacy mechanism — a built-in one
(``--mechanism NAME --epsilon E``) or logged (input, output) samples of any
implementation (``--samples-file`` with ``--claimed-epsilon E``) — by the white-box (ab),
black-box (ob) or lower-bound (lb) method (:class:`privcore.runs.AuditRequest`).
``--json`` keys: README "`audit`"."""

from __future__ import annotations

import argparse
from typing import Any

from privcore.cli.toolkit import add_request_options, command, load_table, num, run_options
from privcore.cli.toolkit.output import emit_run
from privcore.cli.toolkit.running import request_and_run
from privcore.errors import ParameterError
from privcore.runs import AuditRequest, Inputs

#: The report's ``reason`` of a verdict, in plain words.
_REASONS = {
    "bound_above_claim": "the 99.9 % lower bound exceeds the claim",
    "within_margin": "the mechanism's own worst-case event leaks at most 1.1 × the claim "
    "(99.9 % upper bound)",
    "interval_too_wide": "cannot yet rule out a loss more than 10 % above the claim: "
    "use more samples",
    "weak_evidence": "above the claim at the shown confidence, not at the 99.9 % a "
    "violation needs: use more samples",
    "lower_bound_only": "no violation shown; a learned lower bound cannot clear a mechanism",
    "no_evidence_at_resolution": "no evidence above the claim at this resolution; "
    "run the certified lower bound",
    "estimate_above_claim": "the estimate lies above the claim; run the certified lower "
    "bound to decide",
    "disjoint_outputs": "some inputs' outputs never overlap (unbounded loss); run the "
    "certified lower bound",
}


def cmd_audit(args: argparse.Namespace) -> int:
    samples = None
    values: dict[str, Any] = {"methods": (args.method,)}
    if args.samples_file:
        samples = _samples(args, values)
    elif not args.mechanism or args.epsilon is None:
        raise ParameterError(
            "Give --mechanism and --epsilon, or --samples-file.", code="cli.audit_options"
        )
    inputs = Inputs(samples=samples, names={"samples_file": samples.name} if samples else {})
    _, outcome = request_and_run(AuditRequest, args, inputs, **values)
    payload = outcome.result[args.method].to_dict()
    return emit_run(args, payload, _lines(payload), outcome)


def _samples(args: argparse.Namespace, values: dict[str, Any]) -> Any:
    """``--samples-file`` read, with its input and output columns added to ``values``;
    uploaded samples are audited black-box and need the claimed ε."""
    if not args.input_col or not (args.output_col or args.output_prefix):
        raise ParameterError(
            "--samples-file needs --input-col and --output-col or --output-prefix.",
            code="cli.samples_options",
        )
    if args.epsilon is None:
        raise ParameterError("--samples-file needs --claimed-epsilon.", code="cli.samples_options")
    if args.method == "ab":
        raise ParameterError(
            "Uploaded samples are audited black-box: use --method ob or lb.",
            code="cli.samples_method",
        )
    samples = load_table(args.samples_file)
    outputs = (
        [args.output_col]
        if args.output_col
        else [c for c in map(str, samples.frame.columns) if c.startswith(args.output_prefix)]
    )
    values.update(mechanism=None, input_column=args.input_col, output_columns=outputs)
    return samples


def _lines(payload: dict[str, Any]) -> list[str]:
    """The audit in words: the estimate or bound, the verdict and its reason, the rule."""
    claimed = payload["epsilon_claimed"]
    lines = [
        f"{payload['mechanism'].get('mechanism')}: method {payload['method']}, "
        f"claimed ε = {claimed}, device {payload['device']}, {payload['seconds']:.2f} s"
    ]
    if payload["epsilon_hat"] is not None:
        ci = payload["ci"] or [None, None]
        lines.append(f"ε̂ = {payload['epsilon_hat']:.4f}  interval [{num(ci[0])}, {num(ci[1])}]")
    if payload["epsilon_lb"] is not None:
        lines.append(
            f"certified lower bound ε_LB = {payload['epsilon_lb']:.4f} "
            f"(confidence {payload['confidence']:.0%})"
        )
    reason = _REASONS.get(payload.get("reason"), "")
    lines.append(f"verdict: {payload['verdict']}" + (f" — {reason}" if reason else ""))
    lines.append(
        "rule: a violation needs a 99.9 % bound above the claim (false-alarm rate ≤ "
        f"{payload.get('false_alarm_rate', 0.001):.1%} per audit)"
    )
    return lines


def add_audit_command(sub: Any) -> None:
    """``privcore audit``."""
    u = command(
        sub,
        cmd_audit,
        "audit an LDP mechanism (ab, ob, lb) or logged samples of any implementation",
        "Audit a built-in LDP mechanism (--mechanism NAME --epsilon E) or "
        "uploaded samples (--samples-file with --claimed-epsilon E). --json prints "
        "epsilon_hat, ci [lo, hi] (ab/ob), epsilon_lb (lb), verdict, device and seconds.",
    )
    add_request_options(
        u,
        AuditRequest,
        ("mechanism", "epsilon", "domain", "method", "samples", "density", "seed"),
        flags={"epsilon": ("--epsilon", "--claimed-epsilon")},
        defaults={"epsilon": None, "method": AuditRequest.methods[0]},
        notes={"epsilon": "required (with --samples-file: the ε the implementation claims)"},
    )
    u.add_argument("--samples-file", help="table of logged (input, output) rows")
    u.add_argument("--input-col", help="the input column of --samples-file")
    u.add_argument("--output-col", help="the output column (one value per row)")
    u.add_argument("--output-prefix", help="prefix of the output columns (vector outputs)")
    run_options(u)
