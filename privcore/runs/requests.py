"""What a user asked for, as frozen request objects — one per family of runs.

A page's widgets or the command line's options become a request; :func:`privcore.runs.run`
executes it. A request checks its own values on creation (the rules of
:data:`privcore.runs.registry.OPTIONS`) and builds the privacy models it names
(:meth:`constraints`), so both front ends get the same defaults and the same errors.
``to_dict()`` is what the history keeps as the run's parameters, and what a release's
spec records of how the release was made; ``from_dict()`` reads it back.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from privcore.core.jsonsafe import plain
from privcore.core.parameters import Parameter
from privcore.core.privacy_parameters import check_epsilon
from privcore.errors import ParameterError
from privcore.models import KAnonymity, PrivacyModel, TCloseness, l_diversity
from privcore.runs.registry import ALGORITHMS, OPTIONS, REQUEST_OPTIONS, algorithm_parameters

__all__ = [
    "AnonymizeRequest",
    "AttackRequest",
    "AuditRequest",
    "DinnerRequest",
    "DpAccuracyRequest",
    "DpAuditRequest",
    "DpQueryRequest",
    "DpReleaseRequest",
    "MeasureRequest",
    "ReplayRequest",
    "ReportRequest",
    "Request",
    "RiskRequest",
    "TaskRequest",
    "request_from_dict",
]


def _bad(name: str, value: Any, what: str) -> ParameterError:
    option = REQUEST_OPTIONS.get(name)
    if option is not None:
        return option.refusal(value, what)
    return ParameterError(
        f"{name} must be {what}, not {value!r}.",
        code="parameter.invalid",
        option=name,
        allowed=what,
    )


def check_value(name: str, value: Any) -> Any:
    """``value`` for the option ``name``, checked against :data:`OPTIONS`
    (:meth:`privcore.core.parameters.Parameter.check`: numbers in range and finite, whole
    where asked, choices known, columns a list of names; a refusal names the whole valid
    range)."""
    return OPTIONS[name].check(value)


class Request:
    """Shared behaviour of the request dataclasses (``kind`` names the history kind)."""

    kind: ClassVar[str]
    #: A field checked by an option of another name (``{"tau": "posterior_tau"}``): the
    #: same letter can mean different things in two requests.
    option_names: ClassVar[Mapping[str, str]] = {}

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            name = self.option_names.get(f.name, f.name)
            if name in REQUEST_OPTIONS:
                object.__setattr__(self, f.name, check_value(name, getattr(self, f.name)))

    @classmethod
    def parameters(cls) -> dict[str, Parameter]:
        """Parameters the request takes beyond its fields (an algorithm's own options),
        by name; none by default."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """The parameters as plain JSON types (the history's ``params``)."""
        out = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def reproduction_params(self) -> dict[str, Any]:
        """Every parameter :meth:`from_dict` needs to make this request again (its
        reproduction in Python: :mod:`privcore.runs.reproduction`); the history's
        :meth:`to_dict` unless that leaves one out."""
        return self.to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]):
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in data.items() if k in names})

    def replace(self, **changes: Any):
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


def _models(request: Any, *, with_k: bool) -> list[PrivacyModel]:
    models: list[PrivacyModel] = []
    if with_k and request.k is not None:
        models.append(KAnonymity(request.k))
    if request.l is not None:
        models.append(l_diversity(request.l_kind, request.l, request.c))
    if request.t is not None:
        models.append(TCloseness(request.t, request.t_distance))
    return models


@dataclass(frozen=True, init=False)
class AnonymizeRequest(Request):
    """Anonymize a table: the algorithm, the columns, the privacy models (k always; l and
    t when given), the suppression limit, the algorithm's own options and the seed.

    The algorithms' own options are declared by each algorithm (its line of
    :data:`privcore.anonymize.ALGORITHMS`; :func:`registry.algorithm_parameters`), not
    here: the request holds every declared option — given, or its declared default — in
    ``settings``, and shows each one as a field of its own (``request.noise_level``,
    :func:`dataclasses.fields`, :meth:`to_dict`, :meth:`replace`; :class:`_DeclaredFields`).
    So an option added to an algorithm's declaration is a keyword of the request, an
    option of the command line and a widget of the page with nothing else to change."""

    kind: ClassVar[str] = "anonymize"
    algorithm: str = "optimal"
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    k: int = 5
    l: float | None = None  # noqa: E741 - the paper's letter
    l_kind: str = "distinct"
    c: float = 3.0
    t: float | None = None
    t_distance: str = "auto"
    max_suppression: float = 0.05
    #: Every algorithm's own options, (name, value) in declaration order: shown as fields.
    settings: tuple[tuple[str, Any], ...] = ()
    seed: int = 0
    #: On an engine: also write the shuffled release in the table's order to this path,
    #: from the same search (:func:`privcore.runs.tables.anonymize_table`); None: no copy.
    order_copy: str | None = None

    def __init__(self, **values: Any) -> None:
        declared = algorithm_parameters()
        settings = dict(values.pop("settings", ()) or ())
        for name in list(values):
            if name in declared:
                settings[name] = values.pop(name)
        own = _own_fields(type(self))
        unknown = set(values) - set(own)
        if unknown:
            raise TypeError(
                f"AnonymizeRequest got an unexpected keyword argument '{sorted(unknown)[0]}'"
            )
        for name, f in own.items():
            object.__setattr__(self, name, values.get(name, f.default))
        checked = tuple(
            (name, parameter.check(settings.get(name, parameter.default)))
            for name, parameter in declared.items()
        )
        object.__setattr__(self, "settings", checked)
        self.__post_init__()

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.k is None:  # an anonymization always has a class size to reach
            raise _bad("k", None, "a whole number of at least 1")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "settings":
            raise AttributeError(name)
        for key, value in self.__dict__.get("settings", ()):
            if key == name:
                return value
        declared = algorithm_parameters().get(name)  # an algorithm added since: its default
        if declared is not None:
            return declared.default
        raise AttributeError(f"'AnonymizeRequest' object has no attribute '{name}'")

    @classmethod
    def parameters(cls) -> dict[str, Parameter]:
        return algorithm_parameters()

    def constraints(self) -> list[PrivacyModel]:
        return _models(self, with_k=True)

    def options(self) -> dict[str, Any]:
        """The chosen algorithm's own options (:data:`ALGORITHMS` says which)."""
        return {name: getattr(self, name) for name in ALGORITHMS[self.algorithm].options}

    def to_dict(self) -> dict[str, Any]:
        """The parameters (:meth:`Request.to_dict`); ``order_copy`` only when asked for,
        so a run without a copy keeps the parameters it always had."""
        out = super().to_dict()
        if out.get("order_copy") is None:
            out.pop("order_copy", None)
        return out


class _DeclaredFields(dict):
    """The fields :func:`dataclasses.fields` shows of :class:`AnonymizeRequest`: its own,
    with one field per declared algorithm option (default: the declared one) where
    ``settings`` stands, read from the algorithms on each access. The dict itself keeps
    the request's own fields (the storage the dataclass machinery built)."""

    def _shown(self) -> dict[str, dataclasses.Field]:
        shown: dict[str, dataclasses.Field] = {}
        for name, f in dict.items(self):
            if name == "settings":
                shown.update(_declared_fields(tuple(algorithm_parameters().values())))
            else:
                shown[name] = f
        return shown

    def __getitem__(self, name: str) -> dataclasses.Field:
        return self._shown()[name]

    def __contains__(self, name: object) -> bool:
        return name in self._shown()

    def __iter__(self):
        return iter(self._shown())

    def __len__(self) -> int:
        return len(self._shown())

    def get(self, name: str, default: Any = None) -> Any:
        return self._shown().get(name, default)

    def keys(self):
        return self._shown().keys()

    def values(self):
        return self._shown().values()

    def items(self):
        return self._shown().items()


@functools.cache
def _declared_fields(parameters: tuple[Parameter, ...]) -> dict[str, dataclasses.Field]:
    """A dataclass field per declared parameter, with its default (built by
    :func:`dataclasses.make_dataclass`, so each is a complete field)."""
    made = dataclasses.make_dataclass(
        "DeclaredOptions",
        [(p.name, Any, dataclasses.field(default=p.default)) for p in parameters],
        frozen=True,
    )
    return dict(made.__dataclass_fields__)


def _own_fields(cls: type) -> dict[str, dataclasses.Field]:
    """The request's own fields (not ``settings``, not the declared options)."""
    return {n: f for n, f in dict.items(cls.__dataclass_fields__) if n != "settings"}


AnonymizeRequest.__dataclass_fields__ = _DeclaredFields(AnonymizeRequest.__dataclass_fields__)


@dataclass(frozen=True)
class MeasureRequest(Request):
    """Measure a release against its original; a model is checked (a verdict) only when
    its threshold is given. ``t_distance`` is the distance t is reported with;
    ``alignment`` how rows are paired without a ``key`` (:data:`registry.ALIGNMENTS`)."""

    kind: ClassVar[str] = "measure"
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    key: str | None = None
    k: int | None = None
    l: float | None = None  # noqa: E741 - the paper's letter
    l_kind: str = "distinct"
    c: float = 3.0
    t: float | None = None
    t_distance: str = "auto"
    risk_threshold: float = 0.2
    alignment: str = "position"

    def constraints(self) -> list[PrivacyModel]:
        return _models(self, with_k=True)


@dataclass(frozen=True)
class AttackRequest(Request):
    """Attack the original and a release with a synthetic voter roll: linkage and
    homogeneity, before vs after. ``tolerance``: a numeric sensitive value counts as
    learnt when every candidate value lies within ± tolerance of the true one, relative
    to it."""

    kind: ClassVar[str] = "attack"
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    key: str | None = None
    roll_size: int | None = None
    seed: int = 0
    locale: str = "en"
    tau: float = 1.0
    risk_threshold: float = 0.2
    tolerance: float = 0.1


@dataclass(frozen=True)
class AuditRequest(Request):
    """Audit a built-in LDP mechanism (``mechanism``, ``epsilon``, ``domain``) with one
    or more measures, or — with ``input_column`` and ``output_columns`` — logged samples
    of any implementation claiming ``epsilon``. ``method_samples`` gives a measure its own
    number of samples (``{"ab": 100000, "lb": 200000}``); the others take ``samples``."""

    kind: ClassVar[str] = "audit"
    mechanism: str | None = None
    epsilon: float = 1.0
    domain: int | None = None
    methods: tuple[str, ...] = ("ob",)
    samples: int | None = None
    seed: int = 0
    density: str = "kde"
    inputs: tuple[float, ...] | None = None
    input_column: str | None = None
    output_columns: tuple[str, ...] = ()
    method_samples: Mapping[str, int] | None = field(default=None, hash=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.method_samples is not None:
            counts = {check_value("method", m): n for m, n in dict(self.method_samples).items()}
            object.__setattr__(
                self, "method_samples", {m: check_value("samples", n) for m, n in counts.items()}
            )
        methods = (self.methods,) if isinstance(self.methods, str) else tuple(self.methods)
        for method in methods:
            check_value("method", method)
        if not methods:
            raise _bad("method", methods, "at least one of ab, ob, lb")
        object.__setattr__(self, "methods", methods)
        object.__setattr__(self, "output_columns", tuple(self.output_columns))
        if self.inputs is not None:
            object.__setattr__(self, "inputs", tuple(self.inputs))
        if self.mechanism is None and self.input_column is None:
            raise ParameterError(
                "An audit needs a mechanism, or logged samples with their input and "
                "output columns.",
                code="runs.audit_target",
            )

    @property
    def on_samples(self) -> bool:
        return self.input_column is not None

    def samples_of(self, method: str) -> int | None:
        """The number of samples of ``method`` (None: the measure's own default)."""
        return (self.method_samples or {}).get(method, self.samples)


@dataclass(frozen=True)
class ReportRequest(Request):
    """Release readiness: measure and attack a release and check it against the
    thresholds (:class:`privcore.report.Thresholds` as a mapping; ``None`` keeps the
    defaults)."""

    kind: ClassVar[str] = "report"
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    key: str | None = None
    thresholds: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    roll_size: int | None = None
    seed: int = 0
    #: The tables of counts published with the release (each a tuple of columns): the
    #: report rebuilds the records from them (the context's ``published_tables``).
    published_tables: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        from privcore.report.context import published_tables

        object.__setattr__(self, "published_tables", published_tables(self.published_tables))

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["thresholds"] = dict(self.thresholds) if self.thresholds else None
        out["published_tables"] = [list(t) for t in self.published_tables] or None
        return out


@dataclass(frozen=True)
class ReplayRequest(Request):
    """Make again the release a generalization spec describes, from the same input
    (:func:`privcore.anonymize.spec.reproduce`: the input and the result are checked by
    fingerprint; nothing is chosen). Recorded as an anonymize run: ``to_dict()`` keeps
    what the spec says of the run (algorithm, columns, suppression limit, seed), not the
    spec itself, whose hierarchies hold values of the data."""

    kind: ClassVar[str] = "anonymize"
    spec: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        from privcore.anonymize.spec import check_spec  # anonymize is loaded when used

        object.__setattr__(self, "spec", check_spec(self.spec))

    def to_dict(self) -> dict[str, Any]:
        keys = ("algorithm", "qi", "sa", "max_suppression", "seed")
        return {key: plain(self.spec.get(key)) for key in keys}

    def reproduction_params(self) -> dict[str, Any]:
        return {"spec": plain(dict(self.spec))}


@dataclass(frozen=True)
class TaskRequest(Request):
    """A run that no request kind describes yet — confirming a table's roles (a
    profile), opening a table in an engine: its history ``task`` kind and its ``params``
    (names and numbers, never values of the data) are given, and
    :attr:`privcore.runs.Inputs.work` computes it, in place. :func:`privcore.runs.run`
    records it with the same policy as every other run."""

    task: str = "profile"
    params: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.task

    def to_dict(self) -> dict[str, Any]:
        return plain(dict(self.params))


def _dp_epsilon(request: Request) -> None:
    """A DP request's ε, checked beyond the option's rule (finite, > 0): from
    :data:`privcore.dp.parameters.MIN_EPSILON` to :data:`~privcore.dp.parameters.MAX_EPSILON`
    (``dp.epsilon_too_small``, ``dp.epsilon_too_large``), the range in which the noise is
    sampled exactly; a subnormal ε (5e-324) would make the noise scale Δ/ε infinite, a huge
    one (1e308) the noise zero and its variance a division by zero."""
    from privcore.dp.parameters import EPSILON_CEILING, EPSILON_FLOOR  # numpy/scipy when used

    epsilon = check_epsilon(request.epsilon, at_least=EPSILON_FLOOR, at_most=EPSILON_CEILING)
    object.__setattr__(request, "epsilon", epsilon)


def _where_names(where: Mapping[str, Any] | None) -> list[str]:
    """A query's conditions as the history keeps them: the columns they test, not the
    values (a value of the data, even hashed, is never written to the history)."""
    return sorted(str(column) for column in (where or {}))


@dataclass(frozen=True)
class DpQueryRequest(Request):
    """A query on a table answered with central differential privacy (SPEC §10):
    ``query`` is count, sum, mean or histogram; ``where`` the conditions of a count (or of
    the rows a sum or mean covers), ``column`` and ``clamp`` (a, b) those of a sum or mean,
    ``columns`` those of a histogram; ``noise`` the mechanism (laplace, geometric,
    gaussian; None: geometric for integer queries, else laplace); ``draws`` independent
    answers (the spread of the noise; each costs ε)."""

    kind: ClassVar[str] = "dp_query"
    query: str = "count"
    where: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    column: str | None = None
    clamp: tuple[float, float] | None = None
    columns: tuple[str, ...] = ()
    epsilon: float = 1.0
    delta: float | None = None
    noise: str | None = None
    draws: int = 1
    seed: int = 0
    relation: str = "add_remove"

    def __post_init__(self) -> None:
        super().__post_init__()
        _dp_epsilon(self)
        if self.query not in DP_QUERIES:
            raise _bad("query", self.query, "one of " + ", ".join(DP_QUERIES))
        object.__setattr__(self, "columns", tuple(self.columns))
        if self.clamp is not None:
            object.__setattr__(self, "clamp", tuple(self.clamp))
        if self.where is not None:
            object.__setattr__(self, "where", dict(self.where))
        if self.query in ("sum", "mean") and (self.column is None or self.clamp is None):
            raise ParameterError(
                f"A DP {self.query} needs a column and its clamping range a,b "
                "(the sensitivity comes from the range).",
                code="dp.needs_clamp",
                query=self.query,
            )
        if self.query == "histogram" and not self.columns:
            raise ParameterError(
                "A DP histogram needs the columns whose combinations it counts.",
                code="dp.needs_columns",
            )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["where"] = _where_names(self.where)  # the columns only
        return out


DP_QUERIES = ("count", "sum", "mean", "histogram")

#: The ε of the accuracy view: twelve values from 0.05 to 5, evenly on a log scale.
ACCURACY_GRID = tuple(round(0.05 * 100 ** (i / 11), 4) for i in range(12))


@dataclass(frozen=True)
class DpAccuracyRequest(DpQueryRequest):
    """The accuracy of a DP query against ε (:func:`privcore.dp.accuracy.accuracy_curve`):
    the query of :class:`DpQueryRequest` answered ``draws`` times (default 200) at each ε
    of ``grid`` (its ``epsilon`` is not used). A view of the noise, not a release: it
    spends no budget."""

    kind: ClassVar[str] = "dp_accuracy"
    draws: int = 200
    grid: tuple[float, ...] = ACCURACY_GRID

    def __post_init__(self) -> None:
        super().__post_init__()
        grid = tuple(float(check_value("epsilon", e)) for e in self.grid)
        if not grid:
            raise _bad("epsilon", self.grid, "at least one value of ε")
        object.__setattr__(self, "grid", grid)


@dataclass(frozen=True)
class DinnerRequest(Request):
    """The dinner story of the differencing attack (seed 000): ``leaver`` leaves, the
    attacker compares the count of singles before and after, each answered at ``epsilon``
    with ``noise`` (geometric or laplace); ``prior`` is the attacker's prior."""

    kind: ClassVar[str] = "dp_dinner"
    epsilon: float = 1.0
    prior: float = 0.5
    leaver: str = "Zhang San"
    noise: str = "geometric"
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        _dp_epsilon(self)


@dataclass(frozen=True)
class DpReleaseRequest(Request):
    """A differentially private release of a table (noisy marginals of each QI with the
    SA, made consistent, and records synthesized from them; or records synthesized by
    MST or AIM: ``method``) at ``epsilon``, compared on
    the same queries with a k-anonymous release (``k``, ``algorithm``) of the same data
    when ``k`` is given. ``gdpr``: also singling out, linkability and inference of each
    method (:func:`privcore.report.risk.held_out_risks`: each release made again from a
    seeded 80 % of the records, attacked against the other 20 %)."""

    kind: ClassVar[str] = "dp_release"
    option_names: ClassVar[Mapping[str, str]] = {"method": "release_method"}
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    epsilon: float = 1.0
    seed: int = 0
    relation: str = "add_remove"
    k: int | None = None
    algorithm: str = "optimal"
    max_suppression: float = 0.05
    gdpr: bool = False
    #: "marginals" (noisy QI × SA marginals, ε-DP), "mst" or "aim" ((ε, δ)-DP synthesis,
    #: :mod:`privcore.dp.synthesis`); ``delta`` for the latter (None: its default);
    #: ``bounds``: public (column, lower, upper) of numeric columns to bin, in ``bins``
    #: intervals (a numeric column with many values and no bounds gets DP-chosen ones)
    method: str = "marginals"
    delta: float | None = None
    bounds: tuple[tuple[str, float, float], ...] = ()
    bins: int = 10
    #: methods compared on the workload of all 2- and 3-way marginals, a regression and
    #: (with ``gdpr``) the held-out risks: :func:`privcore.report.method_comparison.compare_methods`
    compare: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        _dp_epsilon(self)
        object.__setattr__(self, "bounds", tuple(tuple(b) for b in self.bounds))
        object.__setattr__(self, "compare", tuple(self.compare))
        from privcore.report.method_comparison import DP_METHODS, OTHER_METHODS

        unknown = [m for m in self.compare if m not in (*DP_METHODS, *OTHER_METHODS)]
        if unknown:
            raise ParameterError(
                f"Unknown method(s) to compare: {', '.join(map(str, unknown))}; choose among "
                f"{', '.join((*DP_METHODS, *OTHER_METHODS))}.",
                code="dp.bad_compare",
                methods=", ".join(map(str, unknown)),
                choices=", ".join((*DP_METHODS, *OTHER_METHODS)),
            )
        if len(self.sa) != 1:
            raise ParameterError(
                "A DP release synthesizes one sensitive attribute; name exactly one.",
                code="dp.one_sa",
                columns=list(self.sa),
            )


@dataclass(frozen=True)
class DpAuditRequest(Request):
    """Audit a central DP mechanism (``audited``: one of
    :data:`privcore.dp.audit.AUDIT_MECHANISMS`, correct or deliberately broken) claiming
    ``epsilon`` (and ``delta``) with ``samples`` draws on each of two neighbouring data
    sets; or, with ``output_columns`` (two columns of :attr:`privcore.runs.Inputs.samples`,
    one per data set), outputs of any implementation."""

    kind: ClassVar[str] = "dp_audit"
    audited: str = "laplace_count"
    epsilon: float = 1.0
    delta: float | None = None
    samples: int | None = None
    seed: int = 0
    output_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "output_columns", tuple(self.output_columns))
        if self.output_columns and len(self.output_columns) != 2:
            raise ParameterError(
                "An audit of uploaded outputs reads two columns: the outputs on D and on D′.",
                code="dp.two_columns",
                columns=list(self.output_columns),
            )
        _dp_epsilon(self)


@dataclass(frozen=True)
class RiskRequest(Request):
    """Risk beyond class sizes (SPEC §11) of a release against its original: population
    uniqueness and individual risk at ``sampling_fraction`` (None: from the population
    table of the inputs, else that of the default voter roll), SUDA2, δ-presence and
    k-map (with a population), and singling out, linkability and inference against a
    control set (the inputs' ``control``, else a seeded share of the original held out;
    ``gdpr=False`` leaves them out)."""

    kind: ClassVar[str] = "risk"
    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    sampling_fraction: float | None = None
    seed: int = 0
    gdpr: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        fraction = self.sampling_fraction
        if fraction is not None and not (0.0 < float(fraction) <= 1.0):
            raise ParameterError(
                "The sampling fraction must lie in (0, 1]: a sample cannot be larger than "
                "its population.",
                code="population.bad_sampling_fraction",
                value=fraction,
            )


_KINDS: dict[str, type[Request]] = {
    cls.kind: cls
    for cls in (
        AnonymizeRequest,
        MeasureRequest,
        AttackRequest,
        AuditRequest,
        ReportRequest,
        DpQueryRequest,
        DinnerRequest,
        DpReleaseRequest,
        DpAuditRequest,
        RiskRequest,
    )
}


def request_from_dict(kind: str, data: Mapping[str, Any]) -> Request:
    """The request of a recorded run (its history ``kind`` and ``params``)."""
    try:
        cls = _KINDS[kind]
    except KeyError as exc:
        raise ParameterError(
            f"No request of kind {kind!r}.", code="runs.unknown_kind", kind=str(kind)
        ) from exc
    return cls.from_dict(data)
