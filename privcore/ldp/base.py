"""The interface every LDP mechanism implements (encode → perturb → aggregate).

A mechanism is built for a claimed ε (and a domain size d for frequency oracles), turns
a batch of inputs into a batch of :class:`Outputs` with a seeded ``torch.Generator``
(vectorized, on the device of :mod:`privcore.ldp.device`), and estimates frequencies or
the mean from outputs without bias. For the auditors it also states, white-box, its
*true* ε (a deliberately broken variant leaks more than it claims) and the output
event on which two inputs are most distinguishable, with that event's exact
probabilities.

Output kinds:

- ``category``: one int per user in 0..m−1 (GRR: m = d);
- ``bits``: a 0/1 vector of length d per user (unary encodings, subset selection, THE);
- ``hash``: per user a hash function (a, b of ((a·v + b) mod P) mod g) and a value in
  0..g−1 (BLH, OLH); :meth:`Mechanism.vectors` combines it into d support bits
  (``comb``: bit u = 1 when the user's hash of u equals the reported value);
- ``real``: one float per user (Duchi, Piecewise, Laplace, Hybrid, Square Wave);
- ``reals``: a float vector of length d per user (SHE).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from privcore.errors import ParameterError

OUTPUT_KINDS = ("category", "bits", "hash", "real", "reals")


@dataclass(frozen=True, eq=False)
class Outputs:
    """A batch of perturbed reports.

    ``values``: tensor (n,) for category/real/hash values, (n, d) for bits/reals;
    ``hashes``: for ``hash`` outputs, a tensor (n, 2) of each user's (a, b).
    """

    kind: str
    values: Any
    hashes: Any = None

    def __len__(self) -> int:
        return int(self.values.shape[0])


class Mechanism(ABC):
    """Base class; see the module docstring. Subclasses validate their parameters in
    ``__init__`` (ε > 0 and finite; d ≥ 2 integer for frequency oracles) and raise
    :class:`~privcore.errors.ParameterError` with a clear message."""

    name: ClassVar[str]  # registry key, e.g. "grr", "broken_grr"
    title: ClassVar[str]  # display name, e.g. "Generalized randomized response"
    family: ClassVar[str]  # "frequency" or "mean"
    output_kind: ClassVar[str]  # one of OUTPUT_KINDS
    broken: ClassVar[bool] = False  # a deliberately wrong variant, for teaching/testing
    source: ClassVar[str] = ""  # the paper, e.g. "Wang et al. 2017 (USENIX Security)"

    epsilon: float  # the claimed ε
    d: int | None  # domain size for frequency oracles, None for mean mechanisms

    # Working memory of perturb() followed by vectors() on a batch, for the auditor's
    # memory budget: bytes per report plus bytes per output coordinate (peaks measured on
    # CPU batches of 2²⁰ numbers, rounded up; see privcore.ldp.audit.memory_plan).
    report_bytes: ClassVar[int] = 96
    coordinate_bytes: ClassVar[int] = 0

    @abstractmethod
    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """Reports for a batch of inputs (int64 tensor of values 0..d−1 for frequency
        oracles; float tensor in the mechanism's input range for mean mechanisms)."""

    @abstractmethod
    def estimate(self, outputs: Outputs) -> Any:
        """Unbiased estimate: a tensor of d frequencies (summing to ≈ 1), or the mean."""

    @abstractmethod
    def true_epsilon(self) -> float:
        """The privacy loss the mechanism really has (= ε unless broken)."""

    @abstractmethod
    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        """White-box: the output event S maximizing P[A(v)∈S]/P[A(w)∈S] (a function
        giving a bool tensor per report)."""

    @abstractmethod
    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        """Exact P[A(v)∈S] and P[A(w)∈S] for :meth:`event`; their log-ratio is the true ε."""

    @abstractmethod
    def vectors(self, outputs: Outputs) -> Any:
        """Reports as an (n, coordinates) float tensor for the black-box auditor
        (category → 1 column; hash → d support bits; bits/reals as they are)."""

    # -- the law of the reports, for counts drawn without the reports (privcore.ldp.counts)
    def coordinate_pmf(self, value: Any) -> Any:
        """When the output coordinates are independent given the input and take few
        values: a NumPy array (coordinates, values) of P[coordinate c reports value ℓ |
        ``value``] (GRR: one coordinate of d values; unary encodings, THE: d bits).
        None otherwise."""
        return None

    def symbol_pmf(self, value: Any) -> Any:
        """When the outputs are few: (codes, probabilities) — every possible output as a
        row of coordinate codes (NumPy int array, outputs × coordinates) and its
        probability under ``value``. None otherwise."""
        return None

    def _check_outputs(self, outputs: Outputs) -> int:
        """Number of reports, after checking they are of this mechanism's kind."""
        if outputs.kind != self.output_kind:
            raise ParameterError(
                f"{self.title} reads '{self.output_kind}' reports, got '{outputs.kind}'.",
                code="ldp.bad_outputs",
                kind=outputs.kind,
            )
        n = len(outputs)
        if n == 0:
            raise ParameterError("There are no reports to estimate from.", code="ldp.no_reports")
        return n

    def input_range(self) -> tuple[float, float]:
        """Mean mechanisms: the input interval ([−1, 1], or [0, 1] for Square Wave)."""
        return (-1.0, 1.0)

    def worst_pair(self) -> tuple[Any, Any]:
        """Two inputs whose reports are most distinguishable (0, 1 for frequency
        oracles by symmetry; the interval's ends for mean mechanisms)."""
        if self.family == "frequency":
            return 0, 1
        lo, hi = self.input_range()
        return hi, lo

    def describe(self) -> dict[str, Any]:
        return {
            "mechanism": self.name,
            "title": self.title,
            "family": self.family,
            "epsilon": self.epsilon,
            "domain": self.d,
            "broken": self.broken,
            "true_epsilon": self.true_epsilon(),
            "output": self.output_kind,
        }
