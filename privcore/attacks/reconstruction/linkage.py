"""Rebuilt records linked to a voter roll: the people a reconstruction names.

The Census Bureau's own attack on the 2010 tables (Abowd et al., arXiv 2312.11283)
linked the rebuilt records to commercial files holding names, block, sex and age: a
*putative* re-identification is a rebuilt record that matches exactly one person of the
file on those columns; it is *confirmed* when that person truly has the record's other
values (race, ethnicity) — the attacker then knows, by name, what the tables were meant
to keep private.

Here the file is the attack simulator's synthetic voter roll
(:func:`privcore.attacks.build_roll`), built around the true table on the linking
columns (the block and what a roll lists: age, sex, ZIP); by default it holds exactly
the true table's people, as a census does. The match is the simulator's own linkage
(:func:`privcore.matching.match_roll`): a rebuilt record and a roll person are a pair
when the record's linking values are the person's and no other record or person shares
them (a class of one record matched by one person). Confirmed pairs are those whose
person is in the table and whose true record equals the rebuilt one on every published
column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.attacks.roll import build_roll, is_age_like, is_sex_like, is_zip_like
from privcore.core.progress import Progress
from privcore.errors import ParameterError
from privcore.matching import match_roll

__all__ = ["Reidentification", "default_link_columns", "reidentify"]


@dataclass(frozen=True)
class Reidentification:
    """The rebuilt records linked to the roll (see the module's docstring). ``named``
    holds the confirmed pairs — the person's synthetic name beside the rebuilt record —
    for the page to show; it is never recorded in the history."""

    link_on: tuple[str, ...]
    roll_size: int
    people: int
    putative: int
    confirmed: int
    named: pd.DataFrame

    @property
    def confirmed_share(self) -> float:
        """Confirmed re-identifications over the people of the table."""
        return self.confirmed / self.people if self.people else 0.0

    def summary(self) -> dict:
        return {
            "link_on": list(self.link_on),
            "roll_size": self.roll_size,
            "putative": self.putative,
            "reidentified": self.confirmed,
            "reidentified_share": self.confirmed_share,
        }


def default_link_columns(columns: Sequence[str], block: str | None) -> tuple[str, ...]:
    """What a voter roll lists among the published columns: the block, and the columns
    named like an age, a sex or a ZIP code."""
    listed = [c for c in columns if is_age_like(c) or is_sex_like(c) or is_zip_like(c)]
    return tuple(([block] if block is not None else []) + listed)


def reidentify(
    truth: pd.DataFrame,
    rebuilt: pd.DataFrame,
    columns: Sequence[str],
    link_on: Sequence[str],
    *,
    roll_size: int | None = None,
    seed: int = 0,
    locale: str = "en",
    progress: Progress | None = None,
) -> Reidentification:
    """Link ``rebuilt`` records to a voter roll built around ``truth`` on ``link_on``
    (see the module's docstring). Both tables hold ``columns`` (the published ones) and
    the linking columns, with the same values for the same thing (the block as text in
    both). ``roll_size``: the roll's people (the table's, when None)."""
    link_on = tuple(dict.fromkeys(link_on))
    if not link_on:
        raise ParameterError(
            "Linking the rebuilt records to a voter roll needs the columns a roll lists "
            "(a block, an age, a sex): none is published.",
            code="reconstruction.no_link_columns",
        )
    missing = [c for c in link_on if c not in truth.columns or c not in rebuilt.columns]
    if missing:
        raise ParameterError(
            f"The linking column(s) {', '.join(missing)} are not in the rebuilt records.",
            code="reconstruction.link_columns",
            columns=missing,
        )
    size = len(truth) if roll_size is None else int(roll_size)
    roll = build_roll(truth, list(link_on), size=size, seed=seed, locale=locale)
    if not len(rebuilt):
        return Reidentification(link_on, roll.size, len(truth), 0, 0, _named(rebuilt, roll, []))
    matches = match_roll(rebuilt[list(link_on)], link_on, roll.frame, progress=progress)
    classes = matches.classes
    person = np.flatnonzero(matches.matched_record >= 0)
    record = matches.matched_record[person]
    one_to_one = (classes.sizes[classes.ids[record]] == 1) & (
        matches.population[classes.ids[record]] == 1
    )
    person, record = person[one_to_one], record[one_to_one]
    true_row = roll.frame["record"].to_numpy()[person]
    in_table = true_row >= 0
    same = np.zeros(len(person), dtype=bool)
    if in_table.any():
        kept = list(dict.fromkeys([*columns, *link_on]))
        left = truth[kept].iloc[true_row[in_table]].reset_index(drop=True)
        right = rebuilt[kept].iloc[record[in_table]].reset_index(drop=True)
        agree = np.ones(len(left), dtype=bool)
        for column in kept:
            agree &= (
                left[column].astype(object).to_numpy() == right[column].astype(object).to_numpy()
            )
        same[in_table] = agree
    confirmed = np.flatnonzero(same)
    named = _named(rebuilt, roll, list(zip(person[confirmed], record[confirmed], strict=True)))
    return Reidentification(link_on, roll.size, len(truth), len(person), len(confirmed), named)


def _named(rebuilt: pd.DataFrame, roll, pairs: list[tuple[int, int]]) -> pd.DataFrame:
    """The confirmed pairs: each person's roll name beside the rebuilt record."""
    people = [p for p, _ in pairs]
    records = [r for _, r in pairs]
    names = roll.frame["name"].to_numpy()[people] if people else np.empty(0, dtype=object)
    out = rebuilt.iloc[records].reset_index(drop=True)
    out.insert(0, "name", names)
    return out
