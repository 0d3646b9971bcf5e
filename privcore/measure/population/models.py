"""The three models of population uniqueness (Zayatz, Pitman, SNB) and Dankar et al.'s
choice among them; the formulas are in :mod:`privcore.measure.population`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from privcore.measure.population.sample import FrequencyOfFrequencies

DANKAR_THRESHOLD = 0.1  # Dankar et al. 2012: Pitman up to this sampling fraction
_TOLERANCE = 1e-9  # relative size of the score / residual accepted as a root
_MAX_STEPS = 200


# --------------------------------------------------------------------------- Zayatz


def _log_choose(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return special.gammaln(a + 1) - special.gammaln(b + 1) - special.gammaln(a - b + 1)


def _one_drawn(size: np.ndarray, population: int, records: int) -> np.ndarray:
    """h(i) = i·C(N−i, n−1)/C(N, n): the probability that exactly one person of a
    population class of i people is among n drawn without replacement from N."""
    size = np.asarray(size, dtype=np.float64)
    possible = population - size >= records - 1
    out = np.zeros(size.shape)
    i = size[possible]
    log_h = np.log(i) + _log_choose(population - i, records - 1) - _log_choose(population, records)
    out[possible] = np.exp(log_h)
    return out


def zayatz_uniques(frequencies: FrequencyOfFrequencies, population: int) -> float:
    """Zayatz (1991) estimate of the number of population uniques, as ARX's
    ``ModelZayatz``: U = c_1·P(F=1 | f=1)/π with
    P(F=1 | f=1) = c_1·h(1) / Σ_i c_i·h(i), h(i) = i·C(N−i, n−1)/C(N, n), π = n/N;
    since h(1) = π, U = c_1² / Σ_i c_i·h(i). At π = 1, h(i) = [i = 1] and U = c_1."""
    uniques = frequencies.of_size(1)
    if uniques == 0:
        return 0.0
    n = frequencies.records
    weights = _one_drawn(frequencies.sizes, population, n)
    weights[frequencies.sizes == 1] = n / population  # h(1) = π exactly
    # at most c_1/π (every sample unique a population unique), also in floating point
    return float(min(uniques**2 / (frequencies.counts * weights).sum(), uniques * population / n))


# --------------------------------------------------------------------------- Pitman


@dataclass(frozen=True)
class PitmanFit:
    """Pitman's sampling formula fitted to a sample: θ, α (maximum likelihood) and
    U = Γ(θ+1)/Γ(θ+α)·N^α population uniques (None when U is not in (0, N])."""

    theta: float
    alpha: float
    uniques: float | None


class _PitmanLikelihood:
    """Score and Hessian of the log-likelihood of Pitman's sampling formula (Pitman
    1995; Hoshino 2001) for a sample of n records in u classes, c_j of size j:

    L(θ, α) = Σ_{i=1}^{u−1} log(θ + iα) − Σ_{i=1}^{n−1} log(θ + i)
              + Σ_j c_j Σ_{i=1}^{j−1} log(i − α).

    Score: ∂L/∂θ = Σ_i 1/(θ+iα) − [ψ(θ+n) − ψ(θ+1)],
    ∂L/∂α = Σ_i i/(θ+iα) − Σ_j c_j [ψ(j−α) − ψ(1−α)]  (i = 1..u−1; ψ digamma);
    second derivatives with ψ₁ (trigamma) likewise. With r = θ/α, the sums over
    i = 1..u−1 have closed forms: Σ 1/(θ+iα) = [ψ(r+u) − ψ(r+1)]/α,
    Σ 1/(θ+iα)² = [ψ₁(r+1) − ψ₁(r+u)]/α², and Σ i/(θ+iα), Σ i/(θ+iα)², Σ i²/(θ+iα)²
    from these two; they are used when α > 0 and r ≤ u, where the subtractions they
    involve lose about one digit at worst (at r = u). Otherwise (α ≤ 0, or r > u) the
    sums are taken term by term.
    """

    def __init__(self, frequencies: FrequencyOfFrequencies) -> None:
        self.n = float(frequencies.records)
        self.u = float(frequencies.classes)
        self.sizes = frequencies.sizes.astype(np.float64)
        self.counts = frequencies.counts.astype(np.float64)

    def inside(self, theta: float, alpha: float) -> bool:
        """Every log of L is defined: θ ≥ 0 (ARX's constraint), θ + iα > 0, α < 1."""
        if not (math.isfinite(theta) and math.isfinite(alpha)) or theta < 0 or alpha >= 1:
            return False
        last = max(self.u - 1, 0.0)
        return theta + alpha > 0 and theta + last * alpha > 0

    def class_sums(self, theta: float, alpha: float) -> tuple[float, float, float, float, float]:
        """(Σ 1/v, Σ i/v, Σ 1/v², Σ i/v², Σ i²/v²) over i = 1..u−1, v = θ + iα."""
        u = self.u
        if alpha > 0 and theta <= alpha * u:
            r = theta / alpha
            s1 = (special.digamma(r + u) - special.digamma(r + 1)) / alpha
            t1 = (special.polygamma(1, r + 1) - special.polygamma(1, r + u)) / alpha**2
            s3 = ((u - 1) - theta * s1) / alpha  # Σ (v − θ)/(α v)
            t3 = (s1 - theta * t1) / alpha  # Σ (v − θ)/(α v²)
            t5 = ((u - 1) - 2 * theta * s1 + theta**2 * t1) / alpha**2  # Σ (v − θ)²/(α v)²
            return float(s1), float(s3), float(t1), float(t3), float(t5)
        i = np.arange(1, u, dtype=np.float64)
        v = theta + i * alpha
        inverse = 1.0 / v
        squared = inverse * inverse
        return (
            float(inverse.sum()),
            float((i * inverse).sum()),
            float(squared.sum()),
            float((i * squared).sum()),
            float((i * i * squared).sum()),
        )

    def score(self, theta: float, alpha: float) -> tuple[np.ndarray, np.ndarray, float]:
        """(score, Hessian, scale): scale is the size of the terms that cancel in the
        score, against which a root is judged."""
        s1, s3, t1, t3, t5 = self.class_sums(theta, alpha)
        s2 = special.digamma(theta + self.n) - special.digamma(theta + 1)
        t2 = special.polygamma(1, theta + 1) - special.polygamma(1, theta + self.n)
        c = self.counts
        s4 = (c * (special.digamma(self.sizes - alpha) - special.digamma(1 - alpha))).sum()
        t4 = (
            c * (special.polygamma(1, 1 - alpha) - special.polygamma(1, self.sizes - alpha))
        ).sum()
        score = np.array([s1 - s2, s3 - s4])
        hessian = np.array([[t2 - t1, -t3], [-t3, -t5 - t4]])
        return score, hessian, max(1.0, abs(s1) + abs(s2), abs(s3) + abs(s4))


def _pitman_start(frequencies: FrequencyOfFrequencies) -> tuple[float, float]:
    """ARX's starting point (``ModelPitman``; c_2 = 0 taken as 1)."""
    c1 = float(frequencies.of_size(1))
    c2 = float(frequencies.of_size(2)) or 1.0
    u, n = float(frequencies.classes), float(frequencies.records)
    c = c1 * (c1 - 1) / c2
    denominator = 2 * c1 * u + c1 * c - n * c
    theta = (n * u * c - c1 * (n - 1) * (2 * u + c)) / denominator if denominator else math.nan
    alpha = (theta * (c1 - n) + (n - 1) * c1) / (n * u)
    return theta, alpha


def _newton(
    evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, float] | None],
    start: np.ndarray,
) -> np.ndarray | None:
    """A root of ``evaluate``'s first value by Newton–Raphson from ``start``, halving a
    step that leaves the domain (``evaluate`` returns None there) or does not reduce the
    residual; None when no root with |residual| ≤ 1e-9·scale is reached in 200 steps."""
    x = np.asarray(start, dtype=np.float64)
    current = evaluate(x)
    if current is None:
        return None
    for _ in range(_MAX_STEPS):
        residual, jacobian, scale = current
        if np.abs(residual).max() <= _TOLERANCE * scale:
            return x
        try:
            step = np.linalg.solve(jacobian, residual)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        norm = np.abs(residual).max()
        for _ in range(60):
            candidate = x - step
            found = evaluate(candidate)
            if found is not None and np.abs(found[0]).max() < norm:
                break
            step = step / 2
        else:
            return None
        x, current = candidate, found
        if np.abs(step).max() <= 1e-15 * (1 + np.abs(x).max()):
            break
    residual, _, scale = current
    return x if np.abs(residual).max() <= _TOLERANCE * scale else None


def pitman_uniques(frequencies: FrequencyOfFrequencies, population: int) -> PitmanFit | None:
    """Hoshino's (2001) Pitman-model estimate of the number of population uniques, as
    ARX's ``ModelPitman``: (θ, α) maximize the likelihood of Pitman's sampling formula
    (:class:`_PitmanLikelihood`; Newton–Raphson from ARX's starting point, then from
    ARX's grid of starting points {0, 0.33, 0.66, 0.99}², with θ ≥ 0), and
    U = Γ(θ+1)/Γ(θ+α)·N^α. None when no start converges; ``uniques`` is None when the
    fit gives α = 0 or a U outside (0, N]."""
    if frequencies.of_size(1) == 0:
        return PitmanFit(math.nan, math.nan, 0.0)
    likelihood = _PitmanLikelihood(frequencies)

    def evaluate(x: np.ndarray):
        theta, alpha = float(x[0]), float(x[1])
        if not likelihood.inside(theta, alpha):
            return None
        found = likelihood.score(theta, alpha)
        return found if np.all(np.isfinite(found[0])) and np.all(np.isfinite(found[1])) else None

    starts = [_pitman_start(frequencies)]
    grid = (0.0, 0.33, 0.66, 0.99)
    starts += [(t, a) for t in grid for a in grid]
    for start in starts:
        root = _newton(evaluate, np.array(start))
        if root is not None:
            theta, alpha = float(root[0]), float(root[1])
            return PitmanFit(theta, alpha, _pitman_count(theta, alpha, population))
    return None


def _pitman_count(theta: float, alpha: float, population: int) -> float | None:
    if alpha == 0 or theta + alpha <= 0:
        return None
    log_u = (
        special.gammaln(theta + 1) - special.gammaln(theta + alpha) + alpha * math.log(population)
    )
    uniques = math.exp(log_u) if log_u < 700 else math.inf
    return uniques if 0 < uniques <= population else None


# --------------------------------------------------------------------------- SNB


@dataclass(frozen=True)
class SnbFit:
    """The slide negative binomial fitted to a sample: K non-empty population classes
    (Haas–Shlosser), NegBin shape α and probability β, and U = K·β^α population uniques
    (None when U is not in (0, N])."""

    classes: float
    alpha: float
    beta: float
    uniques: float | None


def haas_shlosser_classes(frequencies: FrequencyOfFrequencies, fraction: float) -> float:
    """K̂, the number of non-empty population classes (Haas, Naughton, Seshadri & Stokes
    1995, Shlosser-type estimator, as used by ARX's ``ModelSNB``), with q = π:

    K̂ = u + c_1 · [Σ_i i q² (1−q²)^(i−1) c_i / Σ_i ((1−q²)^i − (1−q)^i) c_i]
              · [Σ_i (1−q)^i c_i / Σ_i i q (1−q)^(i−1) c_i]²

    ((1−q²)^i − (1−q)^i = (1−q)^i((1+q)^i − 1)). At q = 1 every class is seen: K̂ = u."""
    u = float(frequencies.classes)
    if fraction >= 1.0:
        return u
    i = frequencies.sizes.astype(np.float64)
    c = frequencies.counts.astype(np.float64)
    q = float(fraction)
    kept = (1 - q) ** i
    first = (i * q**2 * (1 - q**2) ** (i - 1) * c).sum() / (((1 - q**2) ** i - kept) * c).sum()
    second = (kept * c).sum() / (i * q * (1 - q) ** (i - 1) * c).sum()
    return float(u + frequencies.of_size(1) * first * second**2)


def snb_expected_small_classes(
    classes: float, alpha: float, beta: float, fraction: float
) -> tuple[float, float]:
    """(E[c_1], E[c_2]) under the SNB model (Chen & McNulty 1998): K population classes
    of size F = 1 + X, X ~ NegBin(α, β) (P(X = x) = Γ(α+x)/(Γ(α) x!)·β^α(1−β)^x), each
    person sampled with probability π. With d = (1−π)(1−β), from the generating function
    of X:

    E[c_1] = K π (β/(1−d))^α (1 + α d/(1−d)),
    E[c_2] = K π² α β^α (1−β) (2 − (1−α) d) / (2 (1−d)^(α+2)).
    """
    log1, log2 = _snb_log_moments(alpha, beta, fraction)
    return classes * math.exp(log1), classes * math.exp(log2)


def _snb_log_moments(alpha: float, beta: float, fraction: float) -> tuple[float, float]:
    """(log E[c_1]/K, log E[c_2]/K) of :func:`snb_expected_small_classes`."""
    s = 1 - fraction
    d = s * (1 - beta)
    rest = 1 - d  # = π + (1−π)β > 0
    log1 = (
        math.log(fraction)
        + alpha * math.log(beta)
        - (alpha + 1) * math.log(rest)
        + math.log(rest + alpha * d)
    )
    log2 = (
        2 * math.log(fraction)
        + math.log(alpha)
        + alpha * math.log(beta)
        + math.log1p(-beta)
        + math.log(2 - (1 - alpha) * d)
        - math.log(2)
        - (alpha + 2) * math.log(rest)
    )
    return log1, log2


def _snb_parameters(
    classes: float, fraction: float, uniques: float, doubletons: float
) -> tuple[float, float] | None:
    """(α, β) solving E[c_1] = c_1 and E[c_2] = c_2 for K = ``classes`` by Newton–Raphson
    on the logarithms of both sides, in the unbounded coordinates (log α, logit β), from
    a fixed grid of starting points; None when none converges."""
    if uniques <= 0 or doubletons <= 0 or classes <= 0:
        return None
    s = 1 - fraction
    targets = np.array([math.log(uniques / classes), math.log(doubletons / classes)])

    def evaluate(x: np.ndarray):
        log_a, logit_b = float(x[0]), float(x[1])
        if abs(log_a) > 50 or abs(logit_b) > 50:
            return None
        a = math.exp(log_a)
        b = special.expit(logit_b)
        if not (0 < b < 1):
            return None
        d = s * (1 - b)
        rest = 1 - d
        log1, log2 = _snb_log_moments(a, b, fraction)
        residual = np.array([log1, log2]) - targets
        # ∂/∂α and ∂/∂β of both logs (∂d/∂β = −s)
        d1a = math.log(b) - math.log(rest) + d / (rest + a * d)
        d1b = a / b - (a + 1) * s / rest + s * (1 - a) / (rest + a * d)
        d2a = 1 / a + math.log(b) + d / (2 - (1 - a) * d) - math.log(rest)
        d2b = a / b - 1 / (1 - b) + (1 - a) * s / (2 - (1 - a) * d) - (a + 2) * s / rest
        jacobian = np.array([[d1a * a, d1b * b * (1 - b)], [d2a * a, d2b * b * (1 - b)]])
        if not (np.all(np.isfinite(residual)) and np.all(np.isfinite(jacobian))):
            return None
        return residual, jacobian, 1.0

    for a0 in (1.0, 0.1, 0.5, 2.0, 5.0):
        for b0 in (0.5, 0.1, 0.3, 0.7, 0.9):
            root = _newton(evaluate, np.array([math.log(a0), math.log(b0 / (1 - b0))]))
            if root is not None:
                return math.exp(float(root[0])), float(special.expit(float(root[1])))
    return None


def snb_uniques(
    frequencies: FrequencyOfFrequencies, population: int, fraction: float
) -> SnbFit | None:
    """Chen & McNulty's (1998) SNB estimate of the number of population uniques, as ARX's
    ``ModelSNB`` (with the published moment equations): K̂ from
    :func:`haas_shlosser_classes`, (α, β) solving E[c_1] = c_1, E[c_2] = c_2
    (:func:`snb_expected_small_classes`), U = K̂·β^α. None when no (α, β) solves the
    equations (e.g. no class of size 2)."""
    uniques = frequencies.of_size(1)
    if uniques == 0:
        return SnbFit(float(frequencies.classes), math.nan, math.nan, 0.0)
    classes = haas_shlosser_classes(frequencies, fraction)
    found = _snb_parameters(classes, fraction, uniques, frequencies.of_size(2))
    if found is None or not math.isfinite(classes):
        return None
    alpha, beta = found
    count = classes * beta**alpha
    return SnbFit(classes, alpha, beta, count if 0 < count <= population else None)


# --------------------------------------------------------------------------- Dankar


def dankar_choice(
    fraction: float, zayatz: float, pitman: float | None, snb: float | None
) -> tuple[str, float]:
    """Dankar, El Emam, Neisa & Roffey's (2012) decision rule, as ARX applies it:
    (model, estimate) from the three models' estimates of the number of population
    uniques (None: the model did not converge; 0 counts as not converged, as in ARX).

    - π ≤ 0.1: Pitman, or Zayatz when Pitman did not converge;
    - π > 0.1: the smaller of Zayatz and SNB (SNB on a tie), or Zayatz when SNB did not
      converge.
    """
    if fraction <= DANKAR_THRESHOLD:
        if _valid(pitman):
            return "pitman", float(pitman)
        return "zayatz", zayatz
    if _valid(snb):
        return ("zayatz", zayatz) if zayatz < snb else ("snb", float(snb))
    return "zayatz", zayatz


def _valid(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and value != 0
