"""Requests for the analyses around a release that are not a request family of their
own: the background-knowledge, row-order and complementary-release attacks, an ε sweep
of an LDP mechanism, randomization with reconstruction, the database reconstruction
from a table's published counts, the profile of a table's columns with the roles
confirmed for it, and a front end's opening of a table in an engine
(:class:`OpenTableRequest`).

Each is a frozen request checked by :data:`privcore.runs.registry.OPTIONS`, computed by
its runner (:mod:`privcore.runs.runners`) from the request and its
:class:`~privcore.runs.Inputs`, and recorded by :func:`privcore.runs.run` like any other
run — the same for the pages and the command line. ``to_dict()`` keeps names and
numbers only (a prior's weights, which name values of the data, are not kept).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from privcore.errors import ParameterError
from privcore.runs.requests import Request, _dp_epsilon

__all__ = [
    "BackgroundRequest",
    "ComplementaryRequest",
    "DatabaseReconstructionRequest",
    "DifferencingRequest",
    "OpenTableRequest",
    "OrderingRequest",
    "ProfileRequest",
    "ReconstructionRequest",
    "RollRequest",
    "SweepRequest",
]


@dataclass(frozen=True)
class BackgroundRequest(Request):
    """The background-knowledge attack (Machanavajjhala et al. 2007, §3.1 and §4): an attacker
    who rules out ``m`` wrong sensitive values per record, with an optional ``prior``
    (relative weights per value), reads each class of the original (before) and of the
    release (after); a record is at risk when the posterior of its true value is at least
    ``tau``. ``sa``: the one sensitive attribute attacked."""

    kind: ClassVar[str] = "attack"
    option_names: ClassVar[Mapping[str, str]] = {"tau": "posterior_tau"}
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    m: int = 1
    tau: float = 0.8
    prior: Mapping[Any, float] | None = field(default=None, hash=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.sa) != 1:
            raise ParameterError(
                f"The background-knowledge attack reads one sensitive attribute; "
                f"{len(self.sa)} were given.",
                code="runs.one_sensitive",
                count=len(self.sa),
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": "background knowledge",
            "qi": list(self.qi),
            "sa": self.sa[0],
            "m": self.m,
            "tau": self.tau,
            "prior": self.prior is not None,
        }


@dataclass(frozen=True)
class OrderingRequest(Request):
    """The unsorted-matching attack (Sweeney 2002, §4.1): how far the release's row order
    still follows the original's, and the same figures for its rows shuffled with
    ``seed`` (the seed a release made here is exported with). A release made here is
    traced to its records by construction; a file through ``key``, a column present in
    both tables."""

    kind: ClassVar[str] = "attack"
    qi: tuple[str, ...] = ()
    key: str | None = None
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": "unsorted matching",
            "qi": list(self.qi),
            "key": self.key,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class ComplementaryRequest(Request):
    """The complementary-release attack (Sweeney 2002, §4.3): two releases of the same
    records (:attr:`Inputs.release` and :attr:`Inputs.second_release`), paired row by row
    — by position, or through ``key``, a column present in both — and intersected class
    by class; the effective k of each record and what the intersections disclose of
    ``sa``."""

    kind: ClassVar[str] = "attack"
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": "complementary",
            "qi": list(self.qi),
            "sa": list(self.sa),
            "key": self.key,
        }


@dataclass(frozen=True)
class SweepRequest(Request):
    """An LDP mechanism audited at each claimed ε of ``epsilons`` with the white-box,
    black-box and lower-bound measures (:func:`privcore.ldp.audit.sweep`); ``domain``
    for the frequency oracles."""

    kind: ClassVar[str] = "audit"
    mechanism: str | None = None
    epsilons: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
    domain: int | None = None

    def __post_init__(self) -> None:
        # each ε as an LDP mechanism checks its claim (ldp.bad_epsilon, the page's words)
        from privcore.ldp.mechanisms.validation import _check_epsilon

        given = self.epsilons
        if isinstance(given, (int, float)) and not isinstance(given, bool):
            given = (given,)
        if isinstance(given, Sequence) and not isinstance(given, (str, bytes)):
            object.__setattr__(self, "epsilons", tuple(_check_epsilon(e) for e in given))
        super().__post_init__()
        if self.mechanism is None:
            raise ParameterError(
                "An ε sweep needs a mechanism.", code="runs.audit_target", missing="mechanism"
            )

    def to_dict(self) -> dict[str, Any]:
        return {"sweep": self.mechanism, "epsilons": list(self.epsilons), "domain": self.domain}


@dataclass(frozen=True)
class ReconstructionRequest(Request):
    """Randomization and reconstruction (Agrawal & Srikant 2000): ``values`` simulated
    values of a known bimodal truth on [0, 100] are published with ``noise`` of
    ``noise_scale`` added, and their distribution is rebuilt on 20 intervals by the
    ``reconstruction`` method. No data of the user's is read."""

    kind: ClassVar[str] = "ldp_reconstruction"
    option_names: ClassVar[Mapping[str, str]] = {"noise": "randomization_noise"}
    noise: str = "uniform"
    noise_scale: float = 25.0
    values: int = 100_000
    reconstruction: str = "bayes"


#: ``publish`` of a database reconstruction whose tables are suggested from the roles.
SUGGEST = "suggest"


@dataclass(frozen=True)
class DatabaseReconstructionRequest(Request):
    """The database-reconstruction attack on the original's own counts
    (:func:`privcore.attacks.reconstruction.published.attack_table`; Garfinkel, Abowd &
    Martindale 2019): the contingency tables of the column sets of ``publish``
    (``"sex,age;race,age"``, or ``"suggest"``: those an agency would publish beside a
    release, from the roles ``qi`` and ``sa``) and each block's total, per value of
    ``block`` when given, cells below ``suppress_below`` withheld (or all rounded to a
    multiple of ``round_to``); with a release among
    the inputs, its cells too (a generalized release); the records rebuilt from them,
    compared with the original and linked to a voter roll of ``roll_size`` people (the
    table's, by default) on ``link_on`` (by default the block and the columns a roll
    lists). ``noise_epsilons``: the same tables also published with discrete Laplace
    noise at each ε (budget split equally across the tables), attacked with seeds
    ``seed`` … ``seed + seeds − 1`` (``noise_law`` ``gaussian``: the analytic Gaussian at
    (ε, ``noise_delta``) instead). ``within``: the tolerance per numeric column
    (``"age=1"``), or one for every numeric column published (``"1"``);
    ``max_solutions`` and ``time_limit`` (seconds per block) bound the solving.
    ``to_dict()`` keeps column names and numbers only."""

    kind: ClassVar[str] = "reconstruction"
    option_names: ClassVar[Mapping[str, str]] = {"within": "record_tolerance"}
    publish: str | None = None
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    block: str | None = None
    suppress_below: int | None = None
    noise_epsilons: tuple[float, ...] | None = None
    noise_law: str = "discrete_laplace"
    noise_delta: float = 1e-6
    round_to: int | None = None
    seed: int = 0
    seeds: int = 1
    within: str | None = None
    link_on: tuple[str, ...] | None = None
    roll_size: int | None = None
    max_solutions: int = 10
    time_limit: float = 60.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.noise_epsilons is not None:  # the registry's rule, under the flag --epsilon
            from dataclasses import replace

            from privcore.runs.registry import REQUEST_OPTIONS

            rule = replace(REQUEST_OPTIONS["reconstruction_epsilons"], name="epsilon")
            object.__setattr__(self, "noise_epsilons", rule.check(self.noise_epsilons))
        if self.publish is None:
            raise ParameterError(
                "The database reconstruction needs --publish: the column sets whose counts "
                "are published (sex,age;race,age), or 'suggest' with --qi (and --sa).",
                code="reconstruction.publish_missing",
            )
        if self.suggested and not self.qi:
            raise ParameterError(
                "--publish suggest proposes the tables from the quasi-identifiers: give "
                "--qi (and --sa).",
                code="reconstruction.suggest_no_qi",
            )
        tables = () if self.suggested else self.tables  # refused in words when malformed
        if self.block is not None and any(self.block in t for t in tables):
            raise ParameterError(
                f"The block column {self.block!r} cannot also be published: the blocks "
                "are rebuilt each on its own.",
                code="reconstruction.block_published",
                column=self.block,
            )
        _ = self.tolerance

    @property
    def suggested(self) -> bool:
        """Are the tables the ones suggested from the roles (``publish="suggest"``)?"""
        return (self.publish or "").strip().lower() == SUGGEST

    @property
    def tables(self) -> tuple[tuple[str, ...], ...]:
        """The column sets of ``publish``: ``;`` between tables, ``,`` between columns
        (with ``publish="suggest"``, :meth:`tables_for` the table)."""
        text = (self.publish or "").strip()
        tables = tuple(
            tuple(c.strip() for c in part.split(",")) for part in text.split(";") if part.strip()
        )
        bad = (
            not tables
            or any("" in t or len(set(t)) != len(t) for t in tables)
            or len({frozenset(t) for t in tables}) != len(tables)
        )
        if bad:
            raise ParameterError(
                f"--publish must name the column sets to publish, ';' between tables and "
                f"',' between a table's columns (sex,age;race,age), each table once and each "
                f"column once in it, not {self.publish!r}.",
                code="reconstruction.publish",
                publish=str(self.publish),
            )
        return tables

    @property
    def tolerance(self) -> dict[str, float] | float | None:
        """``within`` read as column → width ≥ 0 (``age=1,income=500``), or one width
        for every numeric column published (``2``); None when not given."""
        if self.within is None:
            return None
        out: dict[str, float] = {}
        for pair in self.within.split(","):
            column, sep, width = pair.rpartition("=")
            try:
                value = float(width)
            except ValueError:
                value = math.nan
            whole = not sep and "," not in self.within  # one width for every column
            if not (whole or column.strip()) or not (math.isfinite(value) and value >= 0):
                raise ParameterError(
                    f"--tolerance must be COL=WIDTH pairs separated by commas, or one WIDTH "
                    f"for every numeric column, each width a number of at least 0 (age=1, "
                    f"or 1), not {self.within!r}.",
                    code="reconstruction.tolerance",
                    tolerance=self.within,
                )
            if whole:
                return value
            out[column.strip()] = value
        return out

    def tables_for(self, frame: Any) -> tuple[tuple[str, ...], ...]:
        """The tables published of ``frame``: ``publish``'s, or those suggested from the
        roles (:func:`privcore.attacks.reconstruction.release_cells.suggest_tables`)."""
        if not self.suggested:
            return self.tables
        from privcore.attacks.reconstruction.release_cells import suggest_tables

        return suggest_tables(frame, self.qi, self.sa).tables

    def to_dict(self) -> dict[str, Any]:
        return {
            "publish": SUGGEST if self.suggested else [list(t) for t in self.tables],
            "qi": list(self.qi),
            "sa": list(self.sa),
            "link_on": None if self.link_on is None else list(self.link_on),
            "roll_size": self.roll_size,
            "block": self.block,
            "suppress_below": self.suppress_below,
            "epsilon": None if self.noise_epsilons is None else list(self.noise_epsilons),
            "noise_law": self.noise_law,
            "noise_delta": self.noise_delta,
            "round_to": self.round_to,
            "record_tolerance": self.tolerance,
            "seed": self.seed,
            "seeds": self.seeds,
            "max_solutions": self.max_solutions,
            "time_limit": self.time_limit,
        }


@dataclass(frozen=True)
class RollRequest(Request):
    """A synthetic voter roll around the original (:func:`privcore.attacks.build_roll`):
    ``roll_size`` people (default 10 × rows) named in ``locale``, drawn with ``seed``;
    ``joint``: the others' QI values drawn as whole tuples of the data set's records."""

    kind: ClassVar[str] = "roll"
    qi: tuple[str, ...] = ()
    roll_size: int | None = None
    seed: int = 0
    locale: str = "en"
    joint: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "qi": list(self.qi),
            "size": self.roll_size,
            "seed": self.seed,
            "locale": self.locale,
            "joint": self.joint,
        }


@dataclass(frozen=True)
class DifferencingRequest(Request):
    """The differencing attack on one person (seed 000): the count of the rows meeting
    ``where`` with and without the person of row ``row``, each answered at ``epsilon``
    with ``noise``; ``prior`` is the attacker's prior. ``to_dict()`` keeps the columns of
    ``where``, never its values, nor the row."""

    kind: ClassVar[str] = "dp_differencing"
    row: int = 0
    where: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    epsilon: float = 1.0
    prior: float = 0.5
    noise: str = "geometric"
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        _dp_epsilon(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "prior": self.prior,
            "noise": self.noise,
            "where": sorted(map(str, self.where)),
            "seed": self.seed,
        }


@dataclass(frozen=True)
class ProfileRequest(Request):
    """The profile of a table's columns (:func:`privcore.data.profile`: type, distinct
    values, missing cells, uniqueness, examples) and the roles confirmed for it:
    ``roles`` (column → role), ``hierarchies`` (the columns given one) and
    ``suggested`` (column → the role suggested before the user's edits; None: the run
    suggests them from the table, :func:`privcore.data.suggest_roles`, as
    ``privcore profile`` does). The history keeps the roles and the hierarchies'
    columns: names only.

    ``in_place``: the table is profiled where it is, never in a worker process — a table
    opened in an engine holds a connection of this process, and a table in memory is
    profiled in one pass over its columns."""

    kind: ClassVar[str] = "profile"
    in_place: ClassVar[bool] = True
    roles: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
    hierarchies: tuple[str, ...] = ()
    suggested: Mapping[str, str] | None = field(default=None, hash=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"roles": dict(self.roles), "hierarchies": sorted(self.hierarchies)}

    @classmethod
    def confirming(cls, schema: Any, suggested: Mapping[str, str]) -> ProfileRequest:
        """The profile run that records the roles of ``schema`` (a
        :class:`~privcore.data.Schema`) confirmed for a table: its roles, the columns it
        gives a hierarchy, and the roles ``suggested`` for the table before (column →
        role)."""
        return cls(
            roles={str(column): role.value for column, role in schema.roles.items()},
            hierarchies=tuple(schema.hierarchies),
            suggested=dict(suggested),
        )


@dataclass(frozen=True)
class OpenTableRequest(Request):
    """Open the table at ``path`` — a Parquet file, a glob or folder of Parquet parts, a
    CSV/TSV file, or the ``table`` of a DuckDB database file — in ``engine`` ("duckdb",
    with ``memory_limit`` such as ``4GB`` and ``temp_dir`` where it spills; or "spark"
    on ``master``): its rows counted, its preview and its profile computed by the
    engine, at most ``profile_limit`` distinct values of a column brought into memory
    (None: :data:`privcore.engines.opening.PROFILE_LIMIT`), roles suggested from them
    (:func:`privcore.engines.opening.open_table`). The result is the opened
    :class:`~privcore.engines.opening.LargeTable`. The history keeps the engine's name
    only (a path names folders of the user's machine).

    ``in_place``: the table is opened in this process, never in a worker — the engine's
    connection, which the result holds, lives in the process that opened it."""

    kind: ClassVar[str] = "open_table"
    in_place: ClassVar[bool] = True
    path: str = ""
    table: str | None = None
    engine: str = "duckdb"
    memory_limit: str | None = None
    temp_dir: str | None = None
    master: str | None = None
    profile_limit: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine}
