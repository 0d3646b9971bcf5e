"""The reconstruction attack: rebuild a block's records from its published statistics.

Dinur & Nissim ("Revealing information while preserving privacy", PODS 2003) showed
that answering too many aggregate queries too accurately lets an adversary rebuild
nearly the whole database; Garfinkel, Abowd & Martindale ("Understanding database
reconstruction attacks on public data", ACM Queue 2018 / CACM 62(3), 2019) showed it on
census-style tables: the count, median and mean age of a block of seven people by sex,
race and marital status leave a single possible table.

The attack writes every published statistic as linear constraints on the counts of the
record types (:mod:`privcore.attacks.reconstruction.program`) and solves the integer program
with HiGHS (:func:`scipy.optimize.milp`):

1. *Rebuild*: one solve; with noisy statistics the table that fits them best (least
   absolute deviation) within their stated error.
2. *Count*: each table found is excluded by a no-good cut and the program solved again,
   until it is infeasible (the tables found are all of them) or ``max_solutions`` are
   found and one more exists ("at least N").
3. *Certain records* (Generate-then-Verify, Liu et al. 2025): with m_t the least
   number of times type t is held in the tables found, one solve asks for a table with
   ``x_t ≤ m_t − 1`` for at least one t (a binary per type held, as in a no-good cut):
   infeasible means the m_t records of every type are in every table; a table found
   instead lowers the m_t it undercuts and the check repeats (6–13 solves on a block
   of 100 people, where one solve per type took about 55). When the count of step 2 is
   complete, the minimum over all tables is the answer and no further solve is needed.

Inconsistent statistics (no table at all) are named by a deletion filter (Chinneck):
each statistic in turn is left out; if the rest is still infeasible it stays out. What
remains is an irreducible set of statistics that cannot all hold — dropping any one of
them restores a table.

Every solve gets the time left of ``time_limit`` seconds, and ``progress`` is called
between solves (a progress that raises cancels the attack there).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privcore.attacks.reconstruction.program import Clock, Outcome, Program
from privcore.attacks.reconstruction.report import Fit, Reconstruction, compare
from privcore.attacks.reconstruction.statistics import Publication
from privcore.core.progress import Progress, Stage
from privcore.errors import InfeasibleError, ParameterError


def reconstruct(
    publication: Publication,
    *,
    max_solutions: int = 10,
    certain: bool = True,
    truth: pd.DataFrame | None = None,
    tolerance: Mapping[str, float] | None = None,
    time_limit: float | None = 60.0,
    progress: Progress | None = None,
    explain: bool = True,
) -> Reconstruction:
    """Rebuild the records of ``publication`` (see the module's docstring).

    ``max_solutions`` caps the tables counted; ``certain`` verifies the records held in
    every table; ``truth`` (a table over the schema's columns) measures the share of
    records rebuilt exactly and within ``tolerance`` (numeric columns ± 1 by default).
    Raises :class:`~privcore.errors.InfeasibleError` (code
    ``reconstruction.inconsistent``) naming the statistics that contradict each other
    (``explain=False``: without looking for them, one solve per statistic).
    """
    if max_solutions < 1:
        raise ParameterError(
            "max_solutions must be at least 1.", code="reconstruction.max_solutions"
        )
    if time_limit is not None and time_limit <= 0:
        raise ParameterError(
            "The time limit must be a positive number of seconds.",
            code="reconstruction.time_limit",
        )
    started = time.perf_counter()
    stage = Stage(progress)
    clock = Clock(time_limit)  # the program's writing counts against the limit too
    stage(0.0, "Writing the published statistics as an integer program")
    program = Program(publication)
    run = _Run(program, clock, stage)
    first = run.solve(objective=True)
    if first.status == "infeasible":
        if not explain:
            raise InfeasibleError(
                "The published statistics contradict each other: no table satisfies them "
                "all together.",
                code="reconstruction.inconsistent",
                statistics=[],
            )
        whole = Program(publication, presolve=False)  # every statistic can be left out
        names = conflicting_statistics(whole, clock, stage.part(0.1, 1.0))
        raise InfeasibleError(
            "The published statistics contradict each other: no table satisfies "
            f"{_joined(names)} together. Correct or drop one of them.",
            code="reconstruction.inconsistent",
            statistics=names[:NAMED],
            more=max(0, len(names) - NAMED),
        )
    if first.counts is None:
        return run.result(None, [], False, 0, None, started, _why(False, time_limit))
    found, complete = run.enumerate(first.counts, max_solutions, stage.part(0.1, 0.6))
    sure = None
    if complete:
        sure = np.min(np.stack(found), axis=0)
    elif certain and not run.timed_out:
        sure = run.verify(np.min(np.stack(found), axis=0), stage.part(0.6, 1.0))
    schema = publication.schema
    table = schema.records(first.counts)
    result = run.result(
        table,
        [schema.records(c) for c in found[:max_solutions]],
        complete,
        len(found),
        None if sure is None else schema.records(sure),
        started,
        _why(True, time_limit) if run.timed_out else "",
    )
    result.fit = _fits(program, first.x)
    if truth is not None:
        result.accuracy = compare(truth, table, schema, tolerance)
    stage(1.0, f"Solutions: {result.solutions_text}")
    return result


def reconstruct_blocks(
    publications: Sequence[Publication],
    *,
    truth: Mapping[str, pd.DataFrame] | None = None,
    progress: Progress | None = None,
    **options,
) -> dict[str, Reconstruction]:
    """:func:`reconstruct` for each block on its own (statistics over one block only),
    by block name; ``truth`` maps a block's name to its true table; the other options
    (``time_limit`` per block) are :func:`reconstruct`'s. One progress bar for all."""
    names = [p.name for p in publications]
    if len(set(names)) != len(names):
        raise ParameterError(
            "Two blocks share a name: name each block once.", code="reconstruction.blocks"
        )
    stage = Stage(progress)
    results = {}
    for n, publication in enumerate(publications):
        part = stage.part(n / len(publications), (n + 1) / len(publications))
        true = None if truth is None else truth.get(publication.name)
        results[publication.name] = reconstruct(publication, truth=true, progress=part, **options)
    return results


class _Run:
    """The solves of one attack, against one clock."""

    def __init__(self, program: Program, clock: Clock, stage: Stage) -> None:
        self.program, self.clock, self.stage = program, clock, stage
        self.solves = 0
        self.timed_out = False

    def solve(self, **options) -> Outcome:
        self.solves += 1
        outcome = self.program.solve(seconds=self.clock.left(), **options)
        if outcome.status == "time":
            self.timed_out = True
        elif outcome.status == "error":
            raise ParameterError(
                "The solver failed on this program (HiGHS reported an error).",
                code="reconstruction.solver",
            )
        return outcome

    def enumerate(self, first: np.ndarray, cap: int, stage: Stage):
        """The tables that fit, up to ``cap`` and one more as a witness that there are
        more; ``complete`` when no other table fits."""
        found = [first]
        while len(found) <= cap:
            stage(len(found) / (cap + 1), f"{len(found)} table(s) found; looking for another")
            self.program.add_cut(found[-1])
            outcome = self.solve(cuts=True)
            if outcome.status == "infeasible":
                return found, True
            if outcome.counts is None:
                return found, False
            found.append(outcome.counts)
        return found, False

    def verify(self, least: np.ndarray, stage: Stage) -> np.ndarray | None:
        """The copies of each type held in every table: ask for a table holding some
        type fewer times than the least found (one solve, a binary per type held);
        a table found lowers the least, until none is (None when the time runs out)."""
        least = least.copy()
        held = int(least.sum())
        rounds = 0
        while least.any():
            rounds += 1
            stage(
                1.0 - least.sum() / max(held, 1),
                f"Verifying certain records (round {rounds}: {int(least.sum())} left)",
            )
            outcome = self.solve(fewer=least)
            if outcome.status == "infeasible":
                break
            if outcome.counts is None:
                return None
            least = np.minimum(least, outcome.counts)
        return least

    def result(self, table, solutions, complete, found, certain, started, message):
        return Reconstruction(
            table=table,
            solutions=solutions,
            complete=complete,
            at_least=found,
            certain=certain,
            timed_out=self.timed_out,
            message=message,
            seconds=time.perf_counter() - started,
            solves=self.solves,
        )


def conflicting_statistics(program: Program, clock: Clock, stage: Stage) -> list[str]:
    """An irreducible set of statistics that cannot all hold (deletion filter). When the
    time runs out the set still conflicts but may not be the smallest."""
    tags = program.tagged()
    dropped: set[int] = set()
    for n, tag in enumerate(tags):
        stage(
            n / max(len(tags), 1), f"Looking for the conflicting statistics: {program.names[tag]}"
        )
        outcome = program.solve(seconds=clock.left(), dropped=dropped | {tag})
        if outcome.status == "infeasible":
            dropped.add(tag)
        elif outcome.status == "time":
            break
    return [program.names[t] for t in tags if t not in dropped]


def _fits(program: Program, x: np.ndarray | None) -> list[Fit]:
    if x is None:
        return []
    return [
        Fit(
            statistic=program.names[d.statistic],
            published=float(d.published),
            model=d.model(x),
            bound=float(d.bound),
        )
        for d in program.deviations
    ]


def _why(found: bool, time_limit: float | None) -> str:
    """What a time limit that was hit leaves: nothing, or the tables found so far."""
    if not found:
        return f"The time limit of {time_limit:g} s was reached before any table was found."
    return (
        f"The time limit of {time_limit:g} s was reached: the tables counted are those "
        "found so far, and the certain records were not verified."
    )


#: The most conflicting statistics named in an error's words (the rest are counted).
NAMED = 8


def _joined(names: list[str]) -> str:
    if len(names) > NAMED:
        return _joined(names[:NAMED]) + f" and {len(names) - NAMED:,} other statistics"
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
