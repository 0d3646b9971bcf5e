"""The linkage attack in words (:func:`~privcore.attacks.linkage.linkage_attack`): the
sentences that sum up its figures, each with a stable code (the app words the codes in
English and Chinese), and the attacker's reasoning for a few example victims, step by
step (:func:`chain_steps`, in English: :func:`chain_text`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses, distinct

_CHAINS = 10  # example victims explained step by step


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def explain(summary: Mapping[str, Any], sa: Sequence[str]) -> tuple[list[str], list[str]]:
    """Three to five plain sentences, and a stable code for each."""
    n, roll = summary["targets"], summary["roll_size"]
    sentences = [
        (
            "linkage.population",
            f"{n:,} of the {roll:,} people in the voter roll are in the data set; the "
            f"release has {summary['classes']:,} equivalence classes"
            f" and {summary['suppressed_rows']:,} suppressed rows.",
        ),
        (
            "linkage.reidentified",
            f"{summary['unique_matches']:,} of them match exactly one released record and "
            f"{summary['reidentified']:,} are re-identified correctly; "
            f"{summary['false_matches']:,} people are matched to a single record that is not "
            f"theirs (precision {_percent(summary['precision'])}).",
        ),
        (
            "linkage.baseline",
            "Guessing one of a target's candidate records at random finds the right one "
            f"{_percent(summary['baseline'])} of the time on average; prosecutor risk is at "
            f"most {_percent(summary['risk']['prosecutor_max'])} and journalist risk at most "
            f"{_percent(summary['risk']['journalist_max'])}.",
        ),
    ]
    if sa:
        parts = ", ".join(f"{s} for {summary['attribute_disclosed'][s]:,}" for s in sa)
        sentences.append(
            (
                "linkage.attribute",
                "A sensitive value is disclosed when all of a target's candidate records "
                f"share it, re-identified or not: {parts} of the {n:,} targets.",
            )
        )
    if summary["attribute_within_tolerance"]:
        parts = ", ".join(
            f"{s} for {v:,}" for s, v in summary["attribute_within_tolerance"].items()
        )
        sentences.append(
            (
                "linkage.tolerance",
                "A numeric sensitive value is learnt within "
                f"±{100 * summary['tolerance']:g}% when all of a target's candidate records "
                f"lie that close to the target's own value: {parts} of the {n:,} targets.",
            )
        )
    problems = []
    if summary["unparsed_cells"]:
        count = sum(len(v) for v in summary["unparsed_cells"].values())
        problems.append(f"{count:,} released values could not be read and match nobody")
    if summary["targets_outside_own_class"]:
        problems.append(
            f"{summary['targets_outside_own_class']:,} targets do not match their own "
            "record's class (the release does not contain their values)"
        )
    if summary["population_clipped"]:
        problems.append(
            f"{summary['population_clipped']:,} classes match fewer roll people than they "
            "have records, so their population count was raised to their size"
        )
    if problems:
        sentences.append(("linkage.warnings", "Note: " + "; ".join(problems) + "."))
    return [s for _, s in sentences], [c for c, _ in sentences]


def chain_steps(
    table: pd.DataFrame,
    release: pd.DataFrame,
    classes: EquivalenceClasses,
    qi: Sequence[str],
    sa: Sequence[str],
    pair_i: np.ndarray,
    pair_cls: np.ndarray,
) -> list[dict[str, Any]]:
    """The attacker's reasoning for up to ten example victims, step by step (a dict
    each, so that the app can put it in words in either language; :func:`chain_text`
    says it in English)."""
    if table.empty:
        return []
    correct = table["correct"].to_numpy(dtype=bool)
    told = np.zeros(len(table), dtype=bool)
    for s in sa:
        told |= table[f"{s} disclosed"].to_numpy(dtype=bool)
    chosen = np.concatenate(
        [
            np.flatnonzero(correct)[:3],
            np.flatnonzero(told & ~correct)[:3],
            np.flatnonzero(~correct & ~told)[:_CHAINS],
        ]
    )
    chosen = distinct(chosen)[:_CHAINS]
    starts = np.searchsorted(pair_i, np.arange(len(table) + 1))
    keys = release.iloc[classes.first_row][list(qi)].astype(object)
    steps = []
    for t in chosen.tolist():  # at most ten victims
        row = table.iloc[t]
        mine = pair_cls[starts[t] : starts[t + 1]]
        n = int(row["candidate_records"])
        steps.append(
            {
                "name": str(row["name"]),
                "person": [[str(q), str(row[q])] for q in qi],
                "classes": len(mine),
                "first_class": ", ".join(str(v) for v in keys.iloc[int(mine[0])].tolist())
                if len(mine)
                else None,
                "suppressed": bool(len(mine) == 0 and classes.ids[int(row["record"])] < 0),
                "candidates": n,
                "matched_record": int(row["matched_record"]) if n == 1 else None,
                "correct": bool(row["correct"]),
                "sensitive": [
                    [str(s), str(row[f"{s} values"]), bool(row[f"{s} disclosed"])] for s in sa
                ]
                if n
                else [],
            }
        )
    return steps


def chain_text(step: dict[str, Any]) -> str:
    """One victim's chain of reasoning (:func:`chain_steps`) in plain English."""
    person = ", ".join(f"{q} {v}" for q, v in step["person"])
    text = f"Voter {step['name']}, {person}"
    if step["classes"] == 0:
        text += " → no release class matches"
        if step["suppressed"]:
            text += " (their record was suppressed)"
    elif step["classes"] == 1:
        text += f" → release class {step['first_class']}"
    else:
        text += f" → {step['classes']} release classes ({step['first_class']}; …)"
    n = step["candidates"]
    if n == 1:
        who = "the right person" if step["correct"] else "someone else"
        text += f" → 1 candidate: record {step['matched_record']}, {who}"
    elif n:
        text += f" → {n:,} candidates"
    for s, values, disclosed in step["sensitive"]:
        text += f" → {s} {values}: {'disclosed' if disclosed else 'not disclosed'}"
    return text
