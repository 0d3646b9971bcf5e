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

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from privcore.anonymize.parameters import own
from privcore.core.kinds import ReleaseKind
from privcore.core.parameters import Parameter
from privcore.errors import ParameterError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from privcore.anonymize.base import Progress, Release
    from privcore.data.schema import Schema
    from privcore.models import PrivacyModel

#: Names this package offers that live in its modules (imported on first use: the table
#: of algorithms is read by the command line's parser, which must not load them).
_LAZY = {
    "Release": "privcore.anonymize.base",
    "LatticeTrace": "privcore.anonymize.base",
    "Progress": "privcore.anonymize.base",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'privcore.anonymize' has no attribute '{name}'")


def _constant(module: str, name: str) -> Callable[[], tuple[str, ...]]:
    """A constant of ``module`` read when first asked for (a choice list kept beside the
    code that uses it)."""

    def read() -> tuple[str, ...]:
        return tuple(getattr(importlib.import_module(module), name))

    return read


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: ``target`` (the function of the shared signature, or its path
    ``"module:function"``), its ``title`` (English; the
    pages translate ``alg.<name>``), ``family`` ("full_domain": a node of the
    generalization lattice; "local": per-record recoding; "synthetic": synthetic
    records; "perturbative": values changed — averaged, randomized, swapped, coded or
    blanked, :mod:`privcore.anonymize.perturbative`), the paper (``source``) and the
    options it has of its own (``parameters``: each a
    :class:`~privcore.core.parameters.Parameter` with its default, range or choices, step,
    help and words — the request, the command line, the Anonymize page's widgets, the
    spec and the History read them from here).
    ``enforces_models``: the release meets the constraints (or the algorithm raises
    :class:`~privcore.errors.InfeasibleError`); False for the perturbative methods that
    release what the perturbation gives and report the k, l and t it has. Calling it
    calls the function (imported on first call when named by its path)."""

    name: str
    target: Callable[..., Release] | str
    title: str
    family: str
    source: str
    parameters: tuple[Parameter, ...] = ()
    enforces_models: bool = True

    def __post_init__(self) -> None:
        own(*self.parameters)

    @property
    def options(self) -> tuple[str, ...]:
        """The names of its own parameters."""
        return tuple(p.name for p in self.parameters)

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

    @property
    def function(self) -> Callable[..., Release]:
        """The function: ``target`` itself, or the one it names as ``"module:function"``
        (imported now)."""
        if callable(self.target):
            return self.target
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Release:
        return self.function(*args, **kwargs)


def _number(
    name: str,
    help: str,
    default: float,
    step: float,
    low: float,
    high: float,
    *,
    above: bool = False,
) -> Parameter:
    """An algorithm's number option from ``low`` (excluded when ``above``) to ``high``,
    labelled ``an.<name>`` on the pages."""
    return Parameter(
        name,
        "float",
        help,
        minimum=low,
        maximum=high,
        open_minimum=above,
        default=default,
        step=step,
        label=f"an.{name}",
    )


def _choice(
    name: str,
    help: str,
    choices: Callable[[], tuple[str, ...]],
    default: str,
    **words: str,
) -> Parameter:
    """An algorithm's choice option, labelled ``an.<name>`` on the pages; its choices are
    read when asked for (the command line's help lists them after the help text)."""
    return Parameter(
        name, "choice", help, choices=choices, default=default, label=f"an.{name}", **words
    )


#: The lattice searches' loss (samarati, incognito, optimal: one parameter, three owners).
LOSS_METRIC = _choice(
    "loss_metric",
    "loss minimized by samarati/incognito/optimal",
    _constant("privcore.anonymize.lattice_loss", "LOSS_METRICS"),
    "ncp",
    choice_words="metric.",
)
SUMMARY = _choice(
    "summary",
    "how Mondrian shows numeric partitions",
    _constant("privcore.anonymize.mondrian", "SUMMARIES"),
    "range",
)
BETA = _number(
    "beta",
    "kaca: exponent β of the weights 1/(j−1)^β of the weighted hierarchical distance "
    "between classes (0: every generalization step costs the same)",
    1.0,
    0.1,
    0.0,
    10.0,
)
PRAM_RETAIN = _number(
    "pram_retain",
    "pram: least probability of a category keeping itself (sdcMicro pd), 0–1",
    0.8,
    0.05,
    0.0,
    1.0,
)
PRAM_ALPHA = _number(
    "pram_alpha",
    "pram: share of the invariant transition matrix, the rest unchanged (sdcMicro alpha), 0–1",
    0.5,
    0.05,
    0.0,
    1.0,
)
NOISE_LEVEL = _number(
    "noise_level",
    "noise: noise covariance as a share of the data's (0.1: 10 percent of each variance), "
    "above 0, at most 10",
    0.1,
    0.01,
    0.0,
    10.0,
    above=True,
)
NOISE_KIND = _choice(
    "noise_kind",
    "noise: added to the values, or to their logarithms (multiplicative)",
    _constant("privcore.anonymize.noise", "NOISE_KINDS"),
    "additive",
)
SWAP_PERCENT = _number(
    "swap_percent",
    "rank_swap: largest rank distance of a swap, percent of the records",
    5.0,
    0.5,
    0.0,
    100.0,
    above=True,
)
TOP_PERCENTILE = _number(
    "top_percentile",
    "top_bottom: values above this percentile are coded (100: none)",
    95.0,
    0.5,
    0.0,
    100.0,
    above=True,
)
BOTTOM_PERCENTILE = _number(
    "bottom_percentile",
    "top_bottom: values below this percentile are coded (0: none)",
    5.0,
    0.5,
    0.0,
    100.0,
)

_LOCAL, _PERTURBATIVE = "local", "perturbative"
ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "datafly",
            "privcore.anonymize.fulldomain:datafly",
            "Datafly",
            "full_domain",
            "Sweeney 2002",
        ),
        Algorithm(
            "samarati",
            "privcore.anonymize.fulldomain:samarati",
            "Samarati",
            "full_domain",
            "Samarati 2001",
            (LOSS_METRIC,),
        ),
        Algorithm(
            "incognito",
            "privcore.anonymize.fulldomain:incognito",
            "Incognito",
            "full_domain",
            "LeFevre, DeWitt & Ramakrishnan 2005",
            (LOSS_METRIC,),
        ),
        Algorithm(
            "optimal",
            "privcore.anonymize.fulldomain:optimal",
            "Optimal full-domain search",
            "full_domain",
            "Kohlmayer et al. 2012 (ARX's Flash)",
            (LOSS_METRIC,),
        ),
        Algorithm(
            "mondrian",
            "privcore.anonymize.mondrian:mondrian",
            "Mondrian",
            _LOCAL,
            "LeFevre, DeWitt & Ramakrishnan 2006",
            (SUMMARY,),
        ),
        Algorithm(
            "kaca",
            "privcore.anonymize.kaca:kaca",
            "KACA",
            _LOCAL,
            "Li, Wong, Fu & Pei 2006",
            (BETA,),
        ),
        Algorithm(
            "condensation",
            "privcore.anonymize.condensation:condensation",
            "Condensation",
            "synthetic",
            "Aggarwal & Yu 2004",
        ),
        Algorithm(
            "mdav",
            "privcore.anonymize.mdav:mdav",
            "MDAV microaggregation",
            _PERTURBATIVE,
            "Domingo-Ferrer & Mateo-Sanz 2002",
        ),
        Algorithm(
            "pram",
            "privcore.anonymize.pram:pram",
            "Invariant PRAM",
            _PERTURBATIVE,
            "Gouweleeuw, Kooiman, Willenborg & de Wolf 1998",
            (PRAM_RETAIN, PRAM_ALPHA),
            enforces_models=False,
        ),
        Algorithm(
            "noise",
            "privcore.anonymize.noise:noise",
            "Correlated noise",
            _PERTURBATIVE,
            "Kim 1986; Brand 2002",
            (NOISE_LEVEL, NOISE_KIND),
            enforces_models=False,
        ),
        Algorithm(
            "rank_swap",
            "privcore.anonymize.rank_swap:rank_swap",
            "Rank swapping",
            _PERTURBATIVE,
            "Moore 1996",
            (SWAP_PERCENT,),
            enforces_models=False,
        ),
        Algorithm(
            "top_bottom",
            "privcore.anonymize.top_bottom:top_bottom",
            "Top and bottom coding",
            _PERTURBATIVE,
            "sdcMicro topBotCoding (Templ, Kowarik & Meindl 2015)",
            (TOP_PERCENTILE, BOTTOM_PERCENTILE),
            enforces_models=False,
        ),
        Algorithm(
            "local_suppression",
            "privcore.anonymize.local_suppression:local_suppression",
            "Local suppression",
            _PERTURBATIVE,
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
