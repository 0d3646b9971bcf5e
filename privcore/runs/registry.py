"""Everything a user can run, with its options, defaults and choices — written once.

The command line's options (``privcore COMMAND --help``) and the pages' widgets are built
from these entries, so a choice list, a default or a range exists in one place:

- :data:`REQUEST_OPTIONS`: every parameter of a request (:mod:`privcore.runs.requests`)
  — its type, range or choices, and its help text. A request's *default* is the default
  of its dataclass field; the option says what a valid value is.
- An algorithm's own options are declared by the algorithm (its line of
  :data:`privcore.anonymize.ALGORITHMS`: a :class:`~privcore.core.parameters.Parameter`
  with its default, range or choices, step, help and words): :func:`algorithm_parameters`
  gathers them, and :data:`OPTIONS` shows both kinds under one name.
- :data:`ALGORITHMS`, :data:`MODELS`, :data:`MECHANISMS`, :data:`ATTACKS`: name →
  :class:`Entry` (title, family, source, the options it adds).

Adding an algorithm is one module under :mod:`privcore.anonymize` plus one line in its
table :data:`privcore.anonymize.ALGORITHMS` (function, title, family, source, options),
which :data:`ALGORITHMS` here shows as entries; the command line's ``--algorithm``
choices, the Anonymize page's list and the request's validation follow
(docs/ARCHITECTURE.md, "Adding an algorithm").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from privcore.core.parameters import Parameter
from privcore.models import DISTANCES, L_KINDS

__all__ = [
    "ALGORITHMS",
    "ALIGNMENTS",
    "ATTACKS",
    "AUDIT_METHODS",
    "DENSITIES",
    "MECHANISMS",
    "MODELS",
    "OPTIONS",
    "REQUEST_OPTIONS",
    "Entry",
    "Option",
    "algorithm_parameters",
    "mechanism_entries",
]

AUDIT_METHODS = ("ab", "ob", "lb")
#: How the rows of a release are paired with the original's when no key column is given:
#: by position (the order checked unless the release was made here), "auto" (by position
#: when the rows line up, else "none"), or "none" (only the figures that need no pairing).
ALIGNMENTS = ("position", "auto", "none")
DENSITIES = ("kde", "histogram")


#: A parameter of a request (:class:`privcore.core.parameters.Parameter`).
Option = Parameter


@dataclass(frozen=True)
class Entry:
    r"""Something runnable: ``name`` (the key used everywhere), ``title`` (English; the
    pages translate ``<registry>.<name>``), ``family``, ``source`` (the paper), the
    names of the options it adds (an algorithm's own :class:`Parameter`\ s in
    ``parameters``), and ``run`` (the library function)."""

    name: str
    title: str
    family: str
    source: str = ""
    options: tuple[str, ...] = ()
    run: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    extra: Mapping[str, Any] = field(default_factory=dict)
    parameters: tuple[Parameter, ...] = ()


class _Live(Mapping[str, Entry]):
    """A read-only view of a table kept elsewhere (the algorithms of
    :data:`privcore.anonymize.ALGORITHMS`, the LDP mechanisms), as :class:`Entry`s,
    read on each access so that an algorithm added there is offered everywhere."""

    def __init__(self, entries: Callable[[], dict[str, Entry]]) -> None:
        self._entries = entries

    def __getitem__(self, name: str) -> Entry:
        return self._entries()[name]

    def __iter__(self):
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())


def _constant(module: str, name: str) -> Callable[[], tuple[str, ...]]:
    """The choices kept as a constant in ``module``, read when first asked for: the
    command line builds its options from this registry, and a command imports only the
    parts of privcore it runs."""

    def read() -> tuple[str, ...]:
        return tuple(getattr(importlib.import_module(module), name))

    return read


def algorithm_entries() -> dict[str, Entry]:
    """The algorithms of :data:`privcore.anonymize.ALGORITHMS` as entries (the package
    imported on first use)."""
    from privcore.anonymize import ALGORITHMS as ALGORITHM_TABLE

    return {
        name: Entry(
            name,
            a.title,
            a.family,
            a.source,
            tuple(a.options),
            a.function,
            parameters=tuple(a.parameters),
        )
        for name, a in ALGORITHM_TABLE.items()
    }


def algorithm_parameters() -> dict[str, Parameter]:
    """Every algorithm's own parameters by name, in the order of the algorithms' table
    (read on each call, so that an algorithm added there brings its options). A name
    two algorithms share is one parameter (the lattice searches' ``loss_metric``)."""
    from privcore.anonymize import ALGORITHMS as ALGORITHM_TABLE

    out: dict[str, Parameter] = {}
    for algorithm in ALGORITHM_TABLE.values():
        for parameter in algorithm.parameters:
            out.setdefault(parameter.name, parameter)
    return out


ALGORITHMS: Mapping[str, Entry] = _Live(algorithm_entries)

MODELS: dict[str, Entry] = {
    "k": Entry("k", "k-anonymity", "class_size", "Samarati & Sweeney 1998", ("k",)),
    "l": Entry(
        "l",
        "l-diversity",
        "sensitive",
        "Machanavajjhala et al. 2007",
        ("l", "l_kind", "c"),
    ),
    "t": Entry(
        "t",
        "t-closeness",
        "sensitive",
        "Li, Li & Venkatasubramanian 2007",
        ("t", "t_distance"),
    ),
}

ATTACKS: dict[str, Entry] = {
    "linkage": Entry(
        "linkage",
        "Linkage with a voter roll",
        "roll",
        "Sweeney 2002",
        ("roll_size", "locale", "tolerance"),
    ),
    "homogeneity": Entry("homogeneity", "Homogeneity", "classes", "Machanavajjhala 2007", ("tau",)),
    "background": Entry("background", "Background knowledge", "classes", "Machanavajjhala 2007"),
    "ordering": Entry("ordering", "Unsorted matching", "order", "Sweeney 2002"),
    "composition": Entry("composition", "Complementary releases", "classes", "Sweeney 2002"),
}


def mechanism_entries() -> dict[str, Entry]:
    """The LDP mechanisms (imported on first use: the auditor's torch is lazy)."""
    from privcore.ldp.mechanisms import MECHANISMS as classes

    return {
        name: Entry(
            name,
            cls.title,
            cls.family,
            getattr(cls, "source", ""),
            extra={"broken": bool(getattr(cls, "broken", False))},
        )
        for name, cls in classes.items()
    }


MECHANISMS: Mapping[str, Entry] = _Live(mechanism_entries)


def _mechanism_names() -> tuple[str, ...]:
    return tuple(mechanism_entries())


def _o(name: str, kind: str, help: str, **more: Any) -> Option:
    return Option(name, kind, help, **more)


REQUEST_OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        # columns and rows
        _o("qi", "columns", "quasi-identifiers, comma-separated"),
        _o("sa", "columns", "sensitive attributes, comma-separated"),
        _o(
            "key",
            "text",
            "row key present in both tables (default: row order)",
            optional=True,
        ),
        # algorithms
        _o("algorithm", "choice", "the anonymization algorithm", choices=lambda: tuple(ALGORITHMS)),
        _o(
            "max_suppression",
            "float",
            "share of rows that may be suppressed, 0–1",
            minimum=0.0,
            maximum=1.0,
        ),
        _o("seed", "int", "seed of the algorithm, roll or sampling", minimum=0, maximum=2**63 - 1),
        _o(
            "order_copy",
            "text",
            "also write the release in the table's order to PATH, from the same run, for "
            "measure, attack and report to pair by position while the shuffled file is "
            "published",
            optional=True,
            metavar="PATH",
        ),
        # privacy models
        _o(
            "k",
            "int",
            "k-anonymity: every class holds at least k records",
            minimum=1,
            optional=True,
        ),
        _o("l", "float", "l-diversity with this l", minimum=1.0, optional=True),
        _o("l_kind", "choice", "form of l-diversity", choices=L_KINDS),
        _o(
            "c",
            "float",
            "c of recursive (c,l)-diversity",
            minimum=0.0,
            open_minimum=True,
        ),
        _o(
            "t",
            "float",
            "t-closeness with this t",
            minimum=0.0,
            optional=True,
        ),
        _o("t_distance", "choice", "t-closeness ground distance", choices=DISTANCES),
        # measurement and attacks
        _o(
            "alignment",
            "choice",
            "without a key: position (rows in the original's order), none (only figures "
            "that need no pairing of rows), auto (position when the rows line up, else none)",
            choices=ALIGNMENTS,
        ),
        _o(
            "risk_threshold",
            "float",
            "record risk above which a record counts as at risk",
            minimum=0.0,
            maximum=1.0,
        ),
        _o(
            "roll_size",
            "int",
            "people in the voter roll (default 10 × rows)",
            minimum=1,
            optional=True,
        ),
        _o(
            "locale",
            "choice",
            "names in the voter roll",
            choices=_constant("privcore.attacks.roll", "LOCALES"),
        ),
        _o(
            "tolerance",
            "float",
            "linkage: a numeric sensitive value counts as learnt when every candidate value "
            "lies within ± this share of the true value, relative to it (0.1: ±10 percent)",
            minimum=0.0,
            maximum=1.0,
        ),
        _o(
            "tau",
            "float",
            "homogeneity: top-value share that exposes a class",
            minimum=0.0,
            maximum=1.0,
            open_minimum=True,
        ),
        # LDP audits
        _o(
            "mechanism",
            "choice",
            "the LDP mechanism",
            choices=_mechanism_names,
            optional=True,
        ),
        _o("epsilon", "float", "the claimed ε", minimum=0.0, open_minimum=True),
        _o(
            "release_method",
            "choice",
            "how a DP release is made: marginals (noisy QI × SA marginals, ε-DP), mst or "
            "aim (records synthesized from a graphical model, (ε, δ)-DP)",
            choices=_constant("privcore.dp.synthesis", "METHODS"),
        ),
        _o(
            "bins",
            "int",
            "intervals a numeric column with many values is cut into (MST, AIM)",
            minimum=2,
            maximum=100,
        ),
        _o("domain", "int", "domain size d (frequency oracles)", minimum=2, optional=True),
        _o("samples", "int", "samples per input", minimum=100, optional=True),
        _o(
            "method",
            "choice",
            "ab (white-box), ob (black-box), lb (lower bound)",
            choices=AUDIT_METHODS,
        ),
        _o("density", "choice", "OB on continuous outputs: KDE or histogram", choices=DENSITIES),
        _o(
            "epsilons",
            "numbers",
            "the claimed ε values of a sweep, comma-separated",
            minimum=0.0,
            open_minimum=True,
        ),
        # background knowledge
        _o(
            "m",
            "int",
            "background knowledge: wrong sensitive values the attacker rules out per record",
            minimum=0,
        ),
        _o(
            "posterior_tau",
            "float",
            "background knowledge: posterior confidence in the true sensitive value at which a "
            "record counts as at risk",
            minimum=0.0,
            maximum=1.0,
            open_minimum=True,
        ),
        # randomization and reconstruction (Agrawal & Srikant 2000)
        _o(
            "randomization_noise",
            "choice",
            "randomization: the published noise added to each value",
            choices=_constant("privcore.ldp.reconstruction", "NOISE_KINDS"),
        ),
        _o(
            "noise_scale",
            "float",
            "randomization: half-width of uniform noise, or standard deviation of Gaussian "
            "noise, on values in [0, 100]",
            minimum=0.0,
            maximum=1000.0,
            open_minimum=True,
        ),
        _o(
            "values",
            "int",
            "randomization: simulated values to perturb and reconstruct",
            minimum=100,
            maximum=10_000_000,
        ),
        _o(
            "reconstruction",
            "choice",
            "randomization: how the distribution is rebuilt (bayes: iterative Bayesian "
            "update; em: expectation maximization)",
            choices=_constant("privcore.ldp.reconstruction", "METHODS"),
        ),
        # database reconstruction from published counts (Garfinkel, Abowd & Martindale 2019)
        _o(
            "publish",
            "text",
            "database reconstruction: the column sets whose counts are published, ';' between "
            "tables, ',' between a table's columns",
            optional=True,
            metavar="COLS;COLS",
        ),
        _o(
            "block",
            "text",
            "database reconstruction: the column whose values are the blocks, each published "
            "and rebuilt on its own",
            optional=True,
            metavar="COL",
        ),
        _o(
            "suppress_below",
            "int",
            "database reconstruction: cells holding fewer records are withheld",
            minimum=1,
            optional=True,
        ),
        _o(
            "reconstruction_epsilons",
            "numbers",
            "database reconstruction: the tables also published with discrete Laplace noise "
            "at each ε, the budget split equally across the tables; separated by commas or "
            "spaces",
            minimum=0.0,
            open_minimum=True,
            optional=True,
        ),
        _o(
            "seeds",
            "int",
            "database reconstruction: noise draws per ε (seeds --seed, --seed + 1, …)",
            minimum=1,
            maximum=1000,
        ),
        _o(
            "record_tolerance",
            "text",
            "database reconstruction: a rebuilt record counts as within tolerance when each "
            "named numeric column is within ± its width of the true value (default: age=1 "
            "when an age column is published)",
            optional=True,
            metavar="COL=W[,COL=W]",
        ),
        _o(
            "round_to",
            "int",
            "database reconstruction: the tables' cells published rounded to the nearest "
            "multiple of N (the attack keeps each within ± N/2 of its value)",
            minimum=2,
            maximum=1000,
            optional=True,
        ),
        _o(
            "noise_law",
            "choice",
            "database reconstruction: the noise of the curve — discrete_laplace (ε-DP) or "
            "gaussian (the analytic Gaussian at (ε, δ))",
            choices=("discrete_laplace", "gaussian"),
        ),
        _o(
            "noise_delta",
            "float",
            "database reconstruction: δ of the Gaussian noise, split across the tables",
            minimum=0.0,
            maximum=0.1,
            open_minimum=True,
        ),
        _o(
            "link_on",
            "columns",
            "database reconstruction: the columns the rebuilt records are linked to a voter "
            "roll on (default: the block and the published columns named like an age, a "
            "sex or a ZIP code)",
            optional=True,
        ),
        _o(
            "max_solutions",
            "int",
            "database reconstruction: tables counted per block before 'at least N'",
            minimum=1,
            maximum=1000,
        ),
        _o(
            "time_limit",
            "float",
            "database reconstruction: seconds of solving per block",
            minimum=0.0,
            maximum=86_400.0,
            open_minimum=True,
        ),
    )
}


class _Options(MutableMapping[str, Option]):
    """Every option by name: the requests' (:data:`REQUEST_OPTIONS`) and the algorithms'
    own, declared in their lines of :data:`privcore.anonymize.ALGORITHMS` — a view, not a
    second copy. A name among the requests' options is found without reading the
    algorithms (the command line imports only what a command runs)."""

    def __getitem__(self, name: str) -> Option:
        if name in REQUEST_OPTIONS:
            return REQUEST_OPTIONS[name]
        return algorithm_parameters()[name]

    def __contains__(self, name: object) -> bool:
        return name in REQUEST_OPTIONS or name in algorithm_parameters()

    def __setitem__(self, name: str, option: Option) -> None:
        """A request option set (a test that widens a choice): kept among the requests'."""
        REQUEST_OPTIONS[name] = option

    def __delitem__(self, name: str) -> None:
        del REQUEST_OPTIONS[name]

    def __iter__(self):
        yield from REQUEST_OPTIONS
        yield from (name for name in algorithm_parameters() if name not in REQUEST_OPTIONS)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: Every option: the requests' and the algorithms' own.
OPTIONS: MutableMapping[str, Option] = _Options()
