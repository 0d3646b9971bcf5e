"""The differencing attack and the bound differential privacy puts on it (SPEC §10).

The story (seed 000): ten friends dine together, eight in couples and two single. One of
them leaves; the count of singles drops from 2 to 1, so everyone learns that he is single.
Two counts that differ by exactly one person reveal that person's value with certainty.

With ε-DP answers the attacker learns little: for any prior p that the target has the
value, the posterior is at most p·e^ε / (p·e^ε + 1 − p) (Kasiviswanathan & Smith 2014,
"On the 'semantics' of differential privacy"; SPEC §10) — at p = 1/2 and ε = ln 3: 0.75.
The posteriors computed here are those of the strongest attacker, who knows every other
record (hence the count without the target exactly) and observes the noisy count with the
target; the second noisy count does not depend on the target and adds nothing. The two
queries together cost 2ε.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit

from privcore.core.jsonsafe import plain
from privcore.core.privacy_parameters import as_float
from privcore.dp.mechanisms import noise_mechanism
from privcore.dp.parameters import check_epsilon
from privcore.dp.queries import where_mask
from privcore.dp.sampling import generator
from privcore.errors import ParameterError

__all__ = [
    "DIFFERENCING_MECHANISMS",
    "DifferencingAttack",
    "DinnerStory",
    "differencing",
    "dinner_story",
    "dinner_table",
    "posterior_bound",
]

DIFFERENCING_MECHANISMS = ("geometric", "laplace")
SINGLE, COUPLE = "single", "couple"
_DINERS = (
    ("Zhang San", SINGLE),
    ("Li Si", COUPLE),
    ("Wang Wu", COUPLE),
    ("Zhao Liu", COUPLE),
    ("Sun Qi", COUPLE),
    ("Zhou Ba", COUPLE),
    ("Wu Jiu", COUPLE),
    ("Zheng Shi", COUPLE),
    ("Feng Yi", COUPLE),
    ("Chen Er", SINGLE),
)


def _check_prior(prior: Any) -> float:
    value = as_float(prior)
    if not (0.0 <= value <= 1.0):
        raise ParameterError(
            f"The prior must be a probability from 0 to 1, got {prior!r}.",
            code="dp.bad_prior",
            prior=prior,
        )
    return value


def _shifted_belief(prior: float, log_ratio: Any) -> Any:
    """Bayes' rule in log-odds: logit(posterior) = logit(prior) + log-likelihood ratio.
    A prior of 0 or 1 is certainty and no evidence moves it."""
    log_ratio = np.asarray(log_ratio, dtype=float)
    if prior in (0.0, 1.0):
        return np.full_like(log_ratio, prior)[()]
    return expit(math.log(prior) - math.log1p(-prior) + log_ratio)[()]


def posterior_bound(epsilon: float, prior: float) -> float:
    """p·e^ε / (p·e^ε + 1 − p): the largest posterior an attacker with prior p can reach on
    any fact about one person from an ε-DP answer (SPEC §10)."""
    return float(_shifted_belief(_check_prior(prior), check_epsilon(epsilon)))


@dataclass(frozen=True)
class DifferencingAttack:
    """Two counts that differ by one person: exact answers and ε-DP answers.

    ``posteriors`` are the attacker's beliefs, one per draw, that the target has the value
    counted by ``where``; they lie in [``posterior_min``, ``posterior_max``], the DP bounds.
    ``posterior_exact_answers`` is the attacker's belief in the target's true value from
    exact answers (1: learned for certain).
    """

    target_row: int
    where: Mapping[str, Any]
    count_with: int
    target_has_value: bool
    epsilon: float
    prior: float
    mechanism: str
    noisy_with: np.ndarray
    noisy_without: np.ndarray
    posteriors: np.ndarray

    @property
    def count_without(self) -> int:
        """The count of the rows meeting ``where`` without the target."""
        return self.count_with - int(self.target_has_value)

    @property
    def exact_difference(self) -> int:
        return self.count_with - self.count_without

    @property
    def posterior_exact_answers(self) -> float:
        """Exact answers: their difference is the indicator of the target's value, so the
        attacker's belief that the target has it becomes that difference, whatever the
        prior (the belief in the true value: 1)."""
        belief = float(self.exact_difference)
        return belief if self.target_has_value else 1.0 - belief

    @property
    def posterior_max(self) -> float:
        """p·e^ε/(p·e^ε + 1 − p): the largest posterior ε-DP answers allow."""
        return float(_shifted_belief(self.prior, self.epsilon))

    @property
    def posterior_min(self) -> float:
        """p·e^−ε/(p·e^−ε + 1 − p): the smallest posterior ε-DP answers allow."""
        return float(_shifted_belief(self.prior, -self.epsilon))

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "target_row": self.target_row,
                "where": dict(self.where),
                "count_with": self.count_with,
                "count_without": self.count_without,
                "exact_difference": self.exact_difference,
                "target_has_value": self.target_has_value,
                "posterior_exact_answers": self.posterior_exact_answers,
                "epsilon": self.epsilon,
                "prior": self.prior,
                "mechanism": self.mechanism,
                "noisy_with": self.noisy_with,
                "noisy_without": self.noisy_without,
                "posteriors": self.posteriors,
                "posterior_max": self.posterior_max,
                "posterior_min": self.posterior_min,
            }
        )


def differencing(
    frame: pd.DataFrame,
    target_row: int,
    where: Mapping[str, Any],
    *,
    epsilon: float,
    prior: float = 0.5,
    mechanism: str = "geometric",
    draws: int = 1,
    seed: Any = None,
) -> DifferencingAttack:
    """The differencing attack on the person in row ``target_row`` (0-based position):
    count the rows meeting ``where`` with and without that person.

    Exact answers: the difference is 1 exactly when the target meets ``where``, so the
    attacker's posterior in the target's true value is 1. DP answers (each count with
    ``mechanism``, geometric or Laplace, at ε, sensitivity 1): the log-likelihood ratio
    of "has the value" (true count c₀ + 1) against "has not" (c₀) for a noisy count y is
    −ε·(|y − c₀ − 1| − |y − c₀|) ∈ [−ε, ε], so the posterior stays within
    [p·e^−ε/(p·e^−ε + 1 − p), p·e^ε/(p·e^ε + 1 − p)].
    """
    epsilon = check_epsilon(epsilon)
    prior = _check_prior(prior)
    if mechanism not in DIFFERENCING_MECHANISMS:
        raise ParameterError(
            f"The differencing attack compares pure ε-DP counts: choose "
            f"{' or '.join(DIFFERENCING_MECHANISMS)}, got {mechanism!r}.",
            code="dp.bad_mechanism",
            mechanism=mechanism,
        )
    if (
        isinstance(target_row, bool)
        or not isinstance(target_row, (int, np.integer))
        or not (0 <= target_row < len(frame))
    ):
        raise ParameterError(
            f"The target must be a row number from 0 to {len(frame) - 1}, got {target_row!r}.",
            code="dp.bad_target",
            target_row=target_row,
            rows=len(frame),
        )
    if not where:
        raise ParameterError(
            "Choose the value the attacker wants to learn (a column and a value).",
            code="dp.no_condition",
        )
    mask = where_mask(frame, where)
    target_has_value = bool(mask[int(target_row)])
    count_with = int(mask.sum())
    count_without = count_with - int(target_has_value)
    rng = generator(seed)
    noise = noise_mechanism(mechanism, 1, epsilon)
    noisy_with = np.asarray(noise.release(count_with, size=draws, rng=rng))
    noisy_without = np.asarray(noise.release(count_without, size=draws, rng=rng))
    log_ratio = -epsilon * (
        np.abs(noisy_with - count_without - 1.0) - np.abs(noisy_with - count_without)
    )
    return DifferencingAttack(
        target_row=int(target_row),
        where=dict(where),
        count_with=count_with,
        target_has_value=target_has_value,
        epsilon=epsilon,
        prior=prior,
        mechanism=mechanism,
        noisy_with=noisy_with,
        noisy_without=noisy_without,
        posteriors=np.atleast_1d(_shifted_belief(prior, log_ratio)),
    )


def dinner_table() -> pd.DataFrame:
    """The ten diners of the story: ``name`` and ``status`` (eight ``couple``, two
    ``single``)."""
    return pd.DataFrame(_DINERS, columns=["name", "status"])


@dataclass(frozen=True)
class DinnerStory:
    """The dinner story played once: who left, the exact counts (diners 10 → 9, singles
    before → after) and the differencing attack on the singles count."""

    leaver: str
    leaver_status: str
    diners_before: int
    diners_after: int
    singles_before: int
    singles_after: int
    attack: DifferencingAttack

    @property
    def posterior_max(self) -> float:
        return self.attack.posterior_max

    @property
    def posterior_exact_answers(self) -> float:
        return self.attack.posterior_exact_answers

    def to_dict(self) -> dict[str, Any]:
        """Who left and the exact counts (the fields), the attacker's posteriors and the
        attack's own dictionary."""
        counts = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "attack"}
        return plain(
            {
                **counts,
                "posterior_max": self.posterior_max,
                "posterior_exact_answers": self.posterior_exact_answers,
                "attack": self.attack.to_dict(),
            }
        )


def dinner_story(
    epsilon: float,
    *,
    prior: float = 0.5,
    leaver: str = "Zhang San",
    mechanism: str = "geometric",
    draws: int = 1,
    seed: Any = None,
) -> DinnerStory:
    """One diner (``leaver``, by name) leaves; the attacker compares the number of singles
    before and after. ``prior`` is the attacker's prior that the leaver is single."""
    table = dinner_table()
    positions = np.flatnonzero(table["name"].to_numpy() == leaver)
    if positions.size == 0:
        raise ParameterError(
            f"{leaver!r} is not at the dinner; choose one of {', '.join(table['name'])}.",
            code="dp.bad_target",
            target=leaver,
        )
    row = int(positions[0])
    attack = differencing(
        table,
        row,
        {"status": SINGLE},
        epsilon=epsilon,
        prior=prior,
        mechanism=mechanism,
        draws=draws,
        seed=seed,
    )
    return DinnerStory(
        leaver=leaver,
        leaver_status=str(table.at[row, "status"]),
        diners_before=len(table),
        diners_after=len(table) - 1,
        singles_before=attack.count_with,
        singles_after=attack.count_without,
        attack=attack,
    )
