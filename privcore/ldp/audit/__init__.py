"""Auditing an LDP mechanism: how much privacy does it really lose? (SPEC §7)

Three measures, each with its uncertainty:

- :func:`audit_ab` (white-box, seed 001 Alg. 1–4): run the mechanism on known inputs and
  map a counted proportion through the mechanism's formula — direct encoding by its
  disagreement rate, ε̂ = ln((k−1)(n−D)/D) (**seed erratum**: seed 001's Algorithm 2
  counts agreements, which its formula cannot take); Duchi by the frequency of +B at
  x = 1; every other mechanism by the frequencies of its own most distinguishing event
  under two inputs. Clopper–Pearson intervals are mapped through the (monotone) formula.
- :func:`audit_ob` (black-box, seed 001 §3.4): only outputs are used. Per input and per
  output coordinate, an empirical pmf (discrete outputs) or a density on a common grid
  (Gaussian KDE, or histogram bins — continuous outputs with atoms or jumps bias a
  KDE's log-ratio downwards, so both are offered); coordinates whose distributions are
  "the same" (JS ≤ τ_d, or sup |f − f'| ≤ τ_c) add 0; the others add their largest
  log-ratio over the support where both densities exceed a floor. ε̂(v, v') sums the
  coordinates; ε̂_max and ε̂_avg over input pairs, with bootstrap intervals.
  *Correction to seed 001*: the log-ratios are summed per direction (signed, v over v'
  and v' over v) and the larger sum is kept; summing absolute values lets each
  coordinate be at its worst in its own direction, which one output cannot be (it
  overstates optimized unary encoding by 2 ln((e^ε+1)/2) − ε).
  *Dependent coordinates*: summing coordinates is exact only when they are independent
  given the input (unary encodings). A discrete vector output is therefore measured as
  one joint symbol when that takes few distinct values (≤ 256, and at least 50 samples
  per value for the smallest input): the vector restricted to the coordinates whose pmf
  differs between some pair of inputs (those the sum would count), or else the whole
  vector. Subset selection's ω-hot vector: per-coordinate sums give ln(p/q*) +
  ln((1−q*)/(1−p)) ≈ 1.13 at ε = 1, d = 10 (≈ 1.065 at d = 20), the joint pmf gives ε.
  The joint symbol is used only when a G-test rejects that the coordinates are
  independent given the input (level 10⁻³, split over the inputs): for independent
  coordinates the sum is exact and the per-coordinate pmfs, with more samples per
  cell, are less noisy. Larger output spaces, and the support bits of hashed outputs
  (``comb``, exact per coordinate), are summed per coordinate (``details["joint"]`` is
  None; otherwise ``{"symbols", "coordinates", "p_value"}``).
- :func:`lower_bound` (beyond the seed): a distinguishing attack certifies
  ε_LB = ln(P_lower[A(v)∈S] / P_upper[A(v')∈S]) with one-sided Clopper–Pearson bounds
  (α/2 each, so the statement holds with confidence 1 − α). White-box, S is the
  mechanism's likelihood-ratio event; black-box, S is learned on half the samples
  (naive-Bayes log-likelihood-ratio score over the output coordinates estimated on one
  quarter, threshold chosen on the other quarter) and counted on the other half.

**Verdicts** (:func:`decide`; ``details["reason"]`` says why; ``decision_rule``,
``false_alarm_rate``, ``decision_lower`` and ``decision_upper`` in ``details`` state the
rule and its bounds). A *violation* needs a lower confidence bound on the privacy loss at
level 1 − 10⁻³ above the claim by more than 10⁻⁴ (the float32 samplers' quantization,
≤ 6·10⁻⁵ in ε, and rounding of the claim): false-alarm rate ≤ 0.1 % per audit, by the
exactness of Clopper–Pearson bounds (two one-sided bounds at 5·10⁻⁴ each where a ratio
of two proportions is bounded). The 95 % interval an audit shows describes the
estimate; the decision uses the stricter bound. *Consistent* is said only by the
white-box measures whose event is the mechanism's own worst case (AB, and the
white-box lower bound): the upper confidence bound at 1 − 10⁻³ of that event's loss is
at most 1.1 × the claim, and nothing, not even the shown interval, lies above the
claim. A measure that can underestimate never clears a mechanism on its own: OB
(a density estimate, blind to heavy tails at its resolution) and a learned black-box
bound say *inconclusive* with the reason (``no_evidence_at_resolution``,
``estimate_above_claim``, ``disjoint_outputs``; ``lower_bound_only``).

**Memory and cancelling.** Every measure streams: reports are generated (or read) in
chunks, each chunk is reduced to counts and freed, so the working memory does not grow
with n. Where a measure needs only counts of a frequency oracle's reports (AB, the
white-box bound, OB of independent coordinates or few outputs), the counts are drawn
from their exact law without the reports (:mod:`privcore.ldp.counts`).
:func:`memory_plan` checks, before any work, that one chunk plus what the
measure keeps (OB's per-input × coordinate × value/bin tables, the black-box bound's
score histograms) fits the budget of one audit (``PRIVCORE_AUDIT_MEMORY_MB``), and
otherwise raises :class:`ParameterError` saying what to lower and to what. OB's random
halves are drawn per chunk; the black-box bound reads each input's reports in order,
its first quarter to learn, the second to tune, the second half to certify. Continuous
outputs need a grid before counting: OB takes the pooled range of all samples from a
first pass (the seeded generator replays the same samples for the counting pass, so
nothing is kept), the black-box bound the range of its learning quarter. The
``progress`` callback is called between chunks (at most 2¹⁹ numbers and 32 MB of work,
a few tens of milliseconds) and in every later loop, so a callback that raises (a
Streamlit stop, :class:`~privcore.errors.CancelledError`) stops the audit promptly;
the audit's memory is then released (frames cleared, ``gc``, glibc ``malloc_trim``).

**Random streams.** Each audit draws from its own generator, seeded by a stable hash of
(user seed, mechanism, ε, domain, measure): two audits with the same user seed share no
noise, and the same request with the same seed gives the same result.

:func:`audit_samples` audits logged (input, output) pairs of any implementation from
the samples alone; :func:`sweep` audits one mechanism over a list of ε;
:func:`sample_size` is the planner n > z²_{α/2} p(1−p)/l².

**Modules.** :mod:`.verdicts` (verdicts, reasons, :class:`AuditReport`), :mod:`.memory`
(the memory plan and release, the heavy-work slot), :mod:`.sampling` (random streams,
reports and logged samples in chunks, event counts), :mod:`.whitebox` (AB),
:mod:`.passes`, :mod:`.estimate`, :mod:`.joint` and :mod:`.blackbox` (OB: counting
passes, the estimate from counted halves, joint symbols, the measure),
:mod:`.learned` and :mod:`.bound` (the lower bound), :mod:`.samples` (uploaded samples)
and :mod:`.sweeps`.
"""

from privcore.core.binomial import clopper_pearson  # shared with privcore.dp.audit
from privcore.ldp.audit.blackbox import audit_ob
from privcore.ldp.audit.bound import lower_bound
from privcore.ldp.audit.memory import (
    CHUNK_BYTES,
    CHUNK_ELEMENTS,
    MIN_CHUNK_ELEMENTS,
    MemoryPlan,
    memory_budget_mb,
    memory_plan,
    release_memory,
)
from privcore.ldp.audit.samples import audit_samples
from privcore.ldp.audit.sampling import max_samples, stream_seed
from privcore.ldp.audit.sweeps import sweep
from privcore.ldp.audit.verdicts import (
    CONSISTENT_MARGIN,
    DECISION_TOLERANCE,
    FALSE_ALARM_RATE,
    REASONS,
    VERDICTS,
    AuditReport,
    decide,
    ob_reason,
    sample_size,
    verdict_report,
)
from privcore.ldp.audit.whitebox import audit_ab

__all__ = [
    "CHUNK_BYTES",
    "CHUNK_ELEMENTS",
    "CONSISTENT_MARGIN",
    "DECISION_TOLERANCE",
    "FALSE_ALARM_RATE",
    "MIN_CHUNK_ELEMENTS",
    "REASONS",
    "VERDICTS",
    "AuditReport",
    "MemoryPlan",
    "audit_ab",
    "audit_ob",
    "audit_samples",
    "clopper_pearson",
    "decide",
    "lower_bound",
    "max_samples",
    "memory_budget_mb",
    "memory_plan",
    "ob_reason",
    "release_memory",
    "sample_size",
    "stream_seed",
    "sweep",
    "verdict_report",
]
