"""Mean mechanisms: one real report per user for inputs in [−1, 1] ([0, 1] for Square
Wave), estimating the mean — Duchi et al., Piecewise, Laplace, Hybrid, Square Wave, and
broken variants of Piecewise and Laplace."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from privcore.errors import ParameterError
from privcore.ldp.base import Mechanism, Outputs
from privcore.ldp.device import torch_module
from privcore.ldp.mechanisms.draws import _laplace
from privcore.ldp.mechanisms.validation import _bad_inputs, _batch, _check_epsilon


class _MeanMechanism(Mechanism):
    """Inputs: floats in :meth:`input_range`; one real report per user; estimate the mean."""

    family = "mean"
    output_kind = "real"
    extra_params: ClassVar[tuple[str, ...]] = ()
    report_bytes = 128  # a handful of float64 temporaries per report

    def __init__(self, epsilon: float) -> None:
        self.epsilon = _check_epsilon(epsilon)
        self.d = None

    def _values(self, inputs: Any, generator: Any) -> Any:
        torch = torch_module()
        values = _batch(inputs, generator)
        if values.dtype == torch.bool or values.is_complex():
            raise _bad_inputs(
                f"{self.title} takes real numbers, got {values.dtype}.", dtype=str(values.dtype)
            )
        values = values.to(torch.float64)
        lo, hi = self.input_range()
        if values.numel() and bool((~((values >= lo) & (values <= hi))).any()):
            raise _bad_inputs(
                f"{self.title} takes inputs in [{lo:g}, {hi:g}] (no NaN).", low=lo, high=hi
            )
        return values

    def _pair(self, v: Any, w: Any) -> tuple[float, float]:
        lo, hi = self.input_range()
        try:
            pair = (float(v), float(w))
        except (TypeError, ValueError):
            pair = (math.nan, math.nan)
        if not all(lo <= x <= hi for x in pair) or pair[0] == pair[1]:
            raise ParameterError(
                f"An input pair needs two different values in [{lo:g}, {hi:g}], got {v!r}, {w!r}.",
                code="ldp.bad_pair",
                v=v,
                w=w,
            )
        return pair

    def _report_mean(self, outputs: Outputs) -> Any:
        n = self._check_outputs(outputs)
        return outputs.values.sum(dtype=torch_module().float64) / n

    def estimate(self, outputs: Outputs) -> Any:
        """Unbiased mean of the inputs (0-dim float64 tensor on the reports' device)."""
        return self._report_mean(outputs)

    def vectors(self, outputs: Outputs) -> Any:
        """One column: the reported real."""
        self._check_outputs(outputs)
        return outputs.values.unsqueeze(1)

    def _parameters(self) -> dict[str, Any]:
        return {}

    def describe(self) -> dict[str, Any]:
        lo, hi = self.input_range()
        return {
            **super().describe(),
            "input_range": [lo, hi],
            **self._parameters(),
            "source": self.source,
        }


class _TwoLevels(_MeanMechanism):
    """A report density of two levels: ``high`` on a window around the input and ``low``
    on the rest of the support (Piecewise, Square Wave); a report falls in the window
    with the window's mass, uniformly, else uniformly on the rest. The density ratio is at most
    high/low, reached on the window of v minus the window of w (:meth:`_difference`): the
    true ε is ln(high/low), tight on that event, whose probabilities are high·length and
    low·length."""

    @abstractmethod
    def _levels(self) -> tuple[float, float]:
        """(high, low): the report's density inside and outside the input's window."""

    @abstractmethod
    def _window_mass(self) -> float:
        """The probability that a report falls in its input's window."""

    @abstractmethod
    def _placed(self, x: Any, u: Any) -> tuple[Any, Any]:
        """For inputs x and uniforms u on [0, 1): the report placed by u uniformly on the
        input's window, and uniformly on the rest of the support."""

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """In the window with its mass (one uniform), placed there or outside by a
        second uniform (:meth:`_placed`)."""
        torch = torch_module()
        x = self._values(inputs, generator)
        inside = (
            torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
            < self._window_mass()
        )
        u = torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
        return Outputs("real", torch.where(inside, *self._placed(x, u)))

    @abstractmethod
    def _difference(self, v: float, w: float) -> tuple[float, float]:
        """The window of v minus the window of w, as a closed interval."""

    def true_epsilon(self) -> float:
        high, low = self._levels()
        return math.log(high / low)

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        lo, hi = self._difference(*self._pair(v, w))
        return lambda outputs: (outputs.values >= lo) & (outputs.values <= hi)

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        lo, hi = self._difference(*self._pair(v, w))
        high, low = self._levels()
        return high * (hi - lo), low * (hi - lo)


class Duchi(_MeanMechanism):
    """Duchi et al.'s one-dimensional mechanism.

    Report ±B with B = (e^ε+1)/(e^ε−1) and P(+B) = ½ + x/(2B) = ½ + x(e^ε−1)/(2(e^ε+1)), so
    E[y] = x. The likelihood ratio is (B + x)/(B + x') ≤ (B+1)/(B−1) = e^ε (x = 1, x' = −1,
    event {+B}): ε-LDP, tight.

    Duchi, Jordan & Wainwright 2013 (FOCS), 2018 (JASA), "Minimax optimal procedures for
    locally private estimation".
    """

    name = "duchi"
    title = "Duchi et al. (±B)"
    source = "Duchi, Jordan & Wainwright 2013 (FOCS), 2018 (JASA)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        m = math.expm1(self.epsilon)
        self.bound = (m + 2.0) / m

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        u = torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
        plus = u < 0.5 + x / (2.0 * self.bound)
        atoms = torch.full_like(x, self.bound)  # float64: B exactly, for the event y = B
        return Outputs("real", torch.where(plus, atoms, -atoms))

    def true_epsilon(self) -> float:
        return math.log1p(2.0 / (self.bound - 1.0))

    def _plus_probability(self, x: float) -> float:
        return 0.5 + x / (2.0 * self.bound)

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        atom = self.bound if v > w else -self.bound
        return lambda outputs: outputs.values == atom

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        v, w = self._pair(v, w)
        if v > w:
            return self._plus_probability(v), self._plus_probability(w)
        return 1.0 - self._plus_probability(v), 1.0 - self._plus_probability(w)

    def _parameters(self) -> dict[str, Any]:
        return {"B": self.bound}


class Piecewise(_TwoLevels):
    """Piecewise Mechanism (PM).

    C = (e^{ε/2}+1)/(e^{ε/2}−1), l(x) = (C+1)x/2 − (C−1)/2, r(x) = l(x) + C − 1. The report
    has density p = (e^ε − e^{ε/2})/(2e^{ε/2}+2) on [l(x), r(x)] and p/e^ε on the rest of
    [−C, C]; sampled as: with probability (inner mass) e^{ε/2}/(e^{ε/2}+1) uniform on
    [l, r], else uniform on the two outer pieces by length. E[y] = x. The density ratio is
    at most e^ε, reached on [l(v), r(v)] ∖ [l(w), r(w)] for every v ≠ w: ε-LDP, tight.

    Wang et al. 2019, "Collecting and analyzing multidimensional data with local
    differential privacy" (ICDE).
    """

    name = "piecewise"
    title = "Piecewise mechanism"
    source = "Wang et al. 2019 (ICDE)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.C, self.inner_mass = self._shape()
        c, pi = self.C, self.inner_mass
        self.inner_density = pi / (c - 1.0)
        self.outer_density = (1.0 - pi) / (c + 1.0)
        # E[y | x] = x·(πC − (C−1)/2): 1 for the correct PM, derived in the class docstring
        self.mean_scale = self._mean_scale()

    def _shape(self) -> tuple[float, float]:
        """(C, inner mass)."""
        half = self.epsilon / 2.0
        m = math.expm1(half)
        return (m + 2.0) / m, 1.0 / (1.0 + math.exp(-half))

    def _mean_scale(self) -> float:
        return 1.0

    def _ends(self, x: Any) -> tuple[Any, Any]:
        left = (self.C + 1.0) / 2.0 * x - (self.C - 1.0) / 2.0
        return left, left + (self.C - 1.0)

    def _window_mass(self) -> float:
        return self.inner_mass

    def _placed(self, x: Any, u: Any) -> tuple[Any, Any]:
        c = self.C
        left, _ = self._ends(x)
        in_piece = left + (c - 1.0) * u
        z = (c + 1.0) * u  # position along the outer pieces [−C, l) ∪ [r, C), length C + 1
        out_piece = z - c + (c - 1.0) * (z >= left + c).to(torch_module().float64)
        return in_piece, out_piece

    def estimate(self, outputs: Outputs) -> Any:
        return self._report_mean(outputs) / self.mean_scale

    def _levels(self) -> tuple[float, float]:
        return self.inner_density, self.outer_density

    def _difference(self, v: float, w: float) -> tuple[float, float]:
        """[l(v), r(v)] ∖ [l(w), r(w)] as a closed interval (boundaries have measure 0)."""
        lv, rv = self._ends(v)
        lw, rw = self._ends(w)
        return (max(lv, rw), rv) if v > w else (lv, min(rv, lw))

    def _parameters(self) -> dict[str, Any]:
        names = ("C", "inner_mass", "inner_density", "outer_density")
        return {name: getattr(self, name) for name in names}


class BrokenPiecewise(Piecewise):
    """BROKEN on purpose: PM whose C is computed from ε instead of ε/2.

    C' = (e^ε+1)/(e^ε−1) (narrower support), while the sampler keeps the correct PM's inner
    mass π = e^{ε/2}/(e^{ε/2}+1). With t = e^{ε/2}: the inner piece has length C'−1 =
    2/(t²−1) and density π/(C'−1); the outer pieces length C'+1 = 2t²/(t²−1) and density
    (1−π)/(C'+1). Both densities are constant in x, and for v = 1, w = −1 the inner pieces
    [1, C'] and [−C', −1] are disjoint, so the worst ratio over outputs and inputs is

        (π/(1−π)) · (C'+1)/(C'−1) = t · t² = e^{3ε/2}:  true ε = 3ε/2.

    It is also biased: E[y] = x(πC' − (C'−1)/2) = x(t²+t+1)/(t+1)²; the estimator divides
    by that factor, so it stays unbiased.
    """

    name = "broken_piecewise"
    title = "Piecewise mechanism with C from ε (broken)"
    broken = True
    source = "Wang et al. 2019 (ICDE), mis-parametrized"

    def _shape(self) -> tuple[float, float]:
        m = math.expm1(self.epsilon)
        return (m + 2.0) / m, 1.0 / (1.0 + math.exp(-self.epsilon / 2.0))

    def _mean_scale(self) -> float:
        return self.inner_mass * self.C - (self.C - 1.0) / 2.0


class LaplaceMean(_MeanMechanism):
    """Laplace mechanism on [−1, 1]: y = x + Lap(2/ε).

    The sensitivity of the identity on [−1, 1] is 2, so the density ratio
    exp((|y−x'| − |y−x|)ε/2) ≤ e^ε, reached on {y ≥ 1} for x = 1, x' = −1: ε-LDP, tight.

    Dwork, McSherry, Nissim & Smith 2006 (TCC), "Calibrating noise to sensitivity".
    """

    name = "laplace"
    title = "Laplace mechanism"
    source = "Dwork et al. 2006 (TCC)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.scale = self._scale()

    def _scale(self) -> float:
        return 2.0 / self.epsilon

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        return Outputs(
            "real", x + _laplace(tuple(x.shape), self.scale, generator, torch.float64, x.device)
        )

    def true_epsilon(self) -> float:
        return 2.0 / self.scale

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        if v > w:
            return lambda outputs: outputs.values >= v
        return lambda outputs: outputs.values <= v

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        v, w = self._pair(v, w)
        return 0.5, 0.5 * math.exp(-abs(v - w) / self.scale)

    def _parameters(self) -> dict[str, Any]:
        return {"scale": self.scale}


class BrokenLaplace(LaplaceMean):
    """BROKEN on purpose: Laplace on [−1, 1] with scale 1/ε, i.e. sensitivity taken as 1
    instead of 2. The density ratio reaches exp(2/(1/ε)) = e^{2ε}: true ε = 2ε."""

    name = "broken_laplace"
    title = "Laplace mechanism with scale 1/ε (broken)"
    broken = True
    source = "Dwork et al. 2006 (TCC), mis-calibrated"

    def _scale(self) -> float:
        return 1.0 / self.epsilon


class Hybrid(_MeanMechanism):
    """Hybrid Mechanism (HM).

    With probability α = 1 − e^{−ε/2} run the Piecewise mechanism, else Duchi et al.'s, both
    at ε, when ε > 0.61 (ε* of the paper); only Duchi's otherwise. Both are unbiased, so
    HM is. A mixture of ε-LDP mechanisms is ε-LDP; the tight event for v = 1, w = −1 is the
    union of PM's [l(v), r(v)] ∖ [l(w), r(w)] and Duchi's atom +B (PM puts no mass on the
    atom, Duchi none between atoms), both with ratio e^ε.

    Wang et al. 2019, "Collecting and analyzing multidimensional data with local
    differential privacy" (ICDE).
    """

    name = "hybrid"
    title = "Hybrid mechanism"
    source = "Wang et al. 2019 (ICDE)"

    THRESHOLD = 0.61

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.piecewise = Piecewise(self.epsilon)
        self.duchi = Duchi(self.epsilon)
        self.alpha = -math.expm1(-self.epsilon / 2.0) if self.epsilon > self.THRESHOLD else 0.0

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        use_pm = (
            torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
            < self.alpha
        )
        pm = self.piecewise.perturb(x, generator).values
        du = self.duchi.perturb(x, generator).values
        return Outputs("real", torch.where(use_pm, pm, du))

    def true_epsilon(self) -> float:
        if self.alpha == 0.0:
            return self.duchi.true_epsilon()
        return max(self.piecewise.true_epsilon(), self.duchi.true_epsilon())

    def _parts(self, v: float, w: float) -> tuple[bool, bool]:
        """Which pieces the maximizing event takes: PM's interval and/or Duchi's atom
        (whichever has the larger ratio for this pair; both when they tie, as at ±1)."""
        if self.alpha == 0.0:
            return False, True
        pm = self.piecewise.event_probabilities(v, w)
        du = self.duchi.event_probabilities(v, w)
        pm_ratio, du_ratio = pm[0] / pm[1], du[0] / du[1]
        return du_ratio <= pm_ratio * (1 + 1e-12), du_ratio >= pm_ratio * (1 - 1e-12)

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        take_pm, take_atom = self._parts(v, w)
        in_pm = self.piecewise.event(v, w)
        at_atom = self.duchi.event(v, w)
        bound = self.duchi.bound

        def happened(outputs: Outputs) -> Any:
            hit = torch_module().zeros_like(outputs.values, dtype=torch_module().bool)
            if take_pm:  # Duchi's atoms never fall in PM's event, even inside its interval
                hit |= in_pm(outputs) & (outputs.values.abs() != bound)
            if take_atom:
                hit |= at_atom(outputs)
            return hit

        return happened

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        v, w = self._pair(v, w)
        take_pm, take_atom = self._parts(v, w)
        pv = pw = 0.0
        if take_pm:
            a, b = self.piecewise.event_probabilities(v, w)
            pv, pw = pv + self.alpha * a, pw + self.alpha * b
        if take_atom:
            a, b = self.duchi.event_probabilities(v, w)
            pv, pw = pv + (1.0 - self.alpha) * a, pw + (1.0 - self.alpha) * b
        return pv, pw

    def _parameters(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "C": self.piecewise.C, "B": self.duchi.bound}


class SquareWave(_TwoLevels):
    """Square Wave mechanism (SW) on [0, 1].

    b = (εe^ε − e^ε + 1)/(2e^ε(e^ε − 1 − ε)); the report has density e^ε/(2be^ε+1) on
    |y − v| ≤ b and 1/(2be^ε+1) elsewhere on [−b, 1+b]; sampled as: with probability
    2be^ε/(2be^ε+1) uniform on [v−b, v+b], else U ~ [0, 1) mapped to U − b (U < v) or
    U + b. Density ratio ≤ e^ε, reached on [v−b, v+b] ∖ [w−b, w+b]: ε-LDP, tight.

    The paper reconstructs the input distribution (EMS); here ``estimate`` is the mean:
    with λ = 1/(2be^ε+1), E[y | v] = 2bλ(e^ε−1)·v + λ(½ + b) (an affine map, derived from
    the two pieces), inverted on the mean report.

    Li et al. 2020, "Estimating numerical distributions under local differential privacy"
    (SIGMOD).
    """

    name = "square_wave"
    title = "Square wave"
    source = "Li et al. 2020 (SIGMOD)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        eps = self.epsilon
        m = math.expm1(eps)  # e^ε − 1, stable for small ε
        self.b = (eps * (m + 1.0) - m) / (2.0 * (m + 1.0) * (m - eps))
        scale = 2.0 * self.b * (m + 1.0) + 1.0
        self.high = (m + 1.0) / scale
        self.low = 1.0 / scale
        self.slope = 2.0 * self.b * self.low * m
        self.intercept = self.low * (0.5 + self.b)

    def input_range(self) -> tuple[float, float]:
        return (0.0, 1.0)

    def _window_mass(self) -> float:
        return 2.0 * self.b * self.high

    def _placed(self, v: Any, u: Any) -> tuple[Any, Any]:
        b = self.b
        y_near = v - b + 2.0 * b * u
        y_far = u - b + 2.0 * b * (u >= v).to(torch_module().float64)
        return y_near, y_far

    def estimate(self, outputs: Outputs) -> Any:
        return (self._report_mean(outputs) - self.intercept) / self.slope

    def _levels(self) -> tuple[float, float]:
        return self.high, self.low

    def _difference(self, v: float, w: float) -> tuple[float, float]:
        """[v−b, v+b] ∖ [w−b, w+b] as a closed interval (boundaries have measure 0)."""
        b = self.b
        return (max(v - b, w + b), v + b) if v > w else (v - b, min(v + b, w - b))

    def _parameters(self) -> dict[str, Any]:
        return {"b": self.b, "high_density": self.high, "low_density": self.low}
