"""Anonymization: the algorithms behind one signature (SPEC §4, §11, ARCHITECTURE.md).

``anonymize(df, schema, constraints, *, algorithm, max_suppression, seed, progress,
weights)`` dispatches to the algorithm's own function of the same signature; each
returns a :class:`~privcore.anonymize.base.Release`. ``weights`` make ``df`` a frequency
set (:mod:`privcore.anonymize.base`).

:data:`ALGORITHMS` is the one table of algorithms: its entries are what the command
line's ``--algorithm``, the Anonymize page's list and :mod:`privcore.runs.registry` offer.
Adding an algorithm is one module (a function of the shared signature) and one
:class:`Algorithm` line here (docs/ARCHITECTURE.md, "Adding an algorithm").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.anonymize.base import LatticeTrace, Progress, Release
from privcore.anonymize.condensation import condensation
from privcore.anonymize.fulldomain import datafly, incognito, optimal, samarati
from privcore.anonymize.kaca import kaca
from privcore.anonymize.local_suppression import local_suppression
from privcore.anonymize.mdav import mdav
from privcore.anonymize.mondrian import mondrian
from privcore.anonymize.noise import noise
from privcore.anonymize.pram import pram
from privcore.anonymize.rank_swap import rank_swap
from privcore.anonymize.top_bottom import top_bottom
from privcore.core.kinds import ReleaseKind
from privcore.data.schema import Schema
from privcore.errors import ParameterError
from privcore.models import PrivacyModel


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: ``function`` (the shared signature), its ``title`` (English; the
    pages translate ``alg.<name>``), ``family`` ("full_domain": a node of the
    generalization lattice; "local": per-record recoding; "synthetic": synthetic
    records; "perturbative": values changed — averaged, randomized, swapped, coded or
    blanked, :mod:`privcore.anonymize.perturbative`), the paper (``source``) and the
    names of its own options (request fields, :data:`privcore.runs.registry.OPTIONS`).
    ``enforces_models``: the release meets the constraints (or the algorithm raises
    :class:`~privcore.errors.InfeasibleError`); False for the perturbative methods that
    release what the perturbation gives and report the k, l and t it has. Calling it
    calls the function."""

    name: str
    function: Callable[..., Release]
    title: str
    family: str
    source: str
    options: tuple[str, ...] = ()
    enforces_models: bool = True

    @property
    def kind(self) -> ReleaseKind:
        """The kind of release it makes (:class:`~privcore.core.kinds.ReleaseKind`):
        generalized for the lattice searches, local recoding and local suppression
        (every cell its value or a label covering it), synthetic for condensation,
        perturbed for the other perturbative methods."""
        if self.family == "synthetic":
            return ReleaseKind.SYNTHETIC
        if self.family == "perturbative" and self.name != "local_suppression":
            return ReleaseKind.PERTURBED
        return ReleaseKind.GENERALIZED

    def __call__(self, *args: Any, **kwargs: Any) -> Release:
        return self.function(*args, **kwargs)


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm("datafly", datafly, "Datafly", "full_domain", "Sweeney 2002"),
        Algorithm(
            "samarati",
            samarati,
            "Samarati",
            "full_domain",
            "Samarati 2001",
            ("loss_metric",),
        ),
        Algorithm(
            "incognito",
            incognito,
            "Incognito",
            "full_domain",
            "LeFevre, DeWitt & Ramakrishnan 2005",
            ("loss_metric",),
        ),
        Algorithm(
            "optimal",
            optimal,
            "Optimal full-domain search",
            "full_domain",
            "Kohlmayer et al. 2012 (ARX's Flash)",
            ("loss_metric",),
        ),
        Algorithm(
            "mondrian",
            mondrian,
            "Mondrian",
            "local",
            "LeFevre, DeWitt & Ramakrishnan 2006",
            ("summary",),
        ),
        Algorithm("kaca", kaca, "KACA", "local", "Li, Wong, Fu & Pei 2006"),
        Algorithm(
            "condensation",
            condensation,
            "Condensation",
            "synthetic",
            "Aggarwal & Yu 2004",
        ),
        Algorithm(
            "mdav",
            mdav,
            "MDAV microaggregation",
            "perturbative",
            "Domingo-Ferrer & Mateo-Sanz 2002",
        ),
        Algorithm(
            "pram",
            pram,
            "Invariant PRAM",
            "perturbative",
            "Gouweleeuw, Kooiman, Willenborg & de Wolf 1998",
            ("pram_retain", "pram_alpha"),
            enforces_models=False,
        ),
        Algorithm(
            "noise",
            noise,
            "Correlated noise",
            "perturbative",
            "Kim 1986; Brand 2002",
            ("noise_level", "noise_kind"),
            enforces_models=False,
        ),
        Algorithm(
            "rank_swap",
            rank_swap,
            "Rank swapping",
            "perturbative",
            "Moore 1996",
            ("swap_percent",),
            enforces_models=False,
        ),
        Algorithm(
            "top_bottom",
            top_bottom,
            "Top and bottom coding",
            "perturbative",
            "sdcMicro topBotCoding (Templ, Kowarik & Meindl 2015)",
            ("top_percentile", "bottom_percentile"),
            enforces_models=False,
        ),
        Algorithm(
            "local_suppression",
            local_suppression,
            "Local suppression",
            "perturbative",
            "sdcMicro localSuppression (Templ, Kowarik & Meindl 2015)",
        ),
    )
}
FULL_DOMAIN = tuple(n for n, a in ALGORITHMS.items() if a.family == "full_domain")
PERTURBATIVE = tuple(n for n, a in ALGORITHMS.items() if a.family == "perturbative")


def anonymize(
    df: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    algorithm: str = "optimal",
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
    weights: np.ndarray | None = None,
    **options: Any,
) -> Release:
    """Anonymize ``df`` under ``constraints`` with the named algorithm.

    ``options`` are the algorithm's own keywords (``loss_metric`` for the lattice
    searches, ``summary`` for Mondrian, …). ``weights`` (int64 ≥ 1 per row of ``df``;
    None: each row is one record) make ``df`` a frequency set: row i stands for
    ``weights[i]`` records identical in every QI and SA (SPEC §9); they reach the
    algorithm only when given.
    """
    try:
        function = ALGORITHMS[algorithm]
    except KeyError as exc:
        raise ParameterError(
            f"Unknown algorithm '{algorithm}'. Choose one of {', '.join(ALGORITHMS)}.",
            code="anonymize.unknown_algorithm",
            algorithm=algorithm,
        ) from exc
    if weights is not None:
        options["weights"] = weights
    return function(
        df,
        schema,
        constraints,
        max_suppression=max_suppression,
        seed=seed,
        progress=progress,
        **options,
    )


__all__ = [
    "ALGORITHMS",
    "FULL_DOMAIN",
    "PERTURBATIVE",
    "Algorithm",
    "LatticeTrace",
    "Release",
    "anonymize",
]
