"""Auditing a central DP mechanism: does it lose more privacy than it claims? (SPEC §10)

**Method** (black-box, from outputs only). Two neighbouring data sets D and D′ differ by
one person's record; the mechanism M is run n times on each. If M is (ε, δ)-DP then for
every event E, P[M(D) ∈ E] ≤ e^ε·P[M(D′) ∈ E] + δ, and the same with D and D′ swapped,
so any event gives ε ≥ ln((P[M(D) ∈ E] − δ)/P[M(D′) ∈ E]) (Ding, Wang, Wang, Zhang &
Kifer 2018, "Detecting violations of differential privacy", CCS). The audit

1. learns an event E on the first half of each sample: the candidate whose
   Clopper–Pearson bound (step 2) is largest on that half, separately for each order
   (D over D′, D′ over D);
2. counts E on the other half and bounds P[M(D) ∈ E] from below and P[M(D′) ∈ E] from
   above by one-sided Clopper–Pearson bounds (Clopper & Pearson 1934), giving
   ε_LB = ln((lower − δ)/upper) (:func:`privcore.core.binomial.log_ratio_lower`; the
   auditing recipe of Jagielski, Ullman & Oprea 2020 and Nasr, Song, Thakurta, Papernot
   & Carlini 2021);
3. reports the larger ε_LB of the two orders (a bound below 0 is reported as 0, since
   ε ≥ 0 always), and the interval [ε_LB, ε_UB] of the loss of the event found, with
   ε_UB = ln((upper on the first data set − δ)/lower on the second) from the same
   one-sided bounds (each end fails with probability at most FALSE_ALARM_RATE).

Because E is chosen on data the bound never sees, the bound of each order exceeds the
true privacy loss with probability at most FALSE_ALARM_RATE/2 (α/4 for each of the two
one-sided bounds); with Bonferroni over the two orders the reported ε_LB exceeds the
mechanism's true ε with probability at most FALSE_ALARM_RATE. Only one event per order
is ever certified, so the number of candidates costs no confidence: it only changes
which event step 1 picks.

**Events** (candidates, all evaluated at once on sorted draws and bit counts):

- thresholds x ≥ t and x ≤ t, t from quantiles of the pooled training draws (finely
  spaced in the tails, where the loss of Laplace and Gaussian noise concentrates);
- the low-order-bit events of Mironov's attack (Mironov 2012, "On significance of the
  least significant bits for differential privacy", CCS): "|x| ≤ r and x is not a
  multiple of 2^−j", r from quantiles of the pooled |x|, j = 0 … 64. A textbook
  floating-point Laplace sampler run on a count of 1 returns, between −1 and 1, only
  multiples of 2⁻⁵³ (1 + Y rounded), while on a count of 0 most of its outputs there
  are finer doubles: the event with j = 53 has probability 0 under one data set and a
  large one under the other, an unbounded loss;
- point events x = v, for the values v seen at least twice among one data set's draws
  (the _MAX_POINTS = 64 most frequent of each): a mechanism that now and then returns
  the exact answer puts a point mass on it that the other data set's output almost
  never hits; a threshold through that point sees only a loss near the claim;
- histogram events: the bins between consecutive thresholds, each alone, and unions of
  the bins (and of the points) — the first 1, 2, … of them ranked by their likelihood
  ratio ((k₁ + ½)/n₁)/((k₂ + ½)/n₂) in each order, an estimate of the best
  (Neyman–Pearson) event. The ranking and the point values are learned on the first
  half of the training draws and a union is scored on the second half, so that a
  ranking's luck on the draws it saw does not make its union look better than it is.

**Verdicts** (:func:`decide`):

- ``violation`` (reason ``bound_above_claim``): ε_LB > ε + DECISION_TOLERANCE; a
  mechanism that keeps its claim is called a violation in at most FALSE_ALARM_RATE of
  audits;
- ``consistent`` (``bound_near_claim``, the library's own mechanisms only): no
  violation, and ε_LB ≥ CONSISTENT_SHARE·ε — the audit found the mechanism spending at
  least half of its claimed budget and nothing above it. This is evidence for the claim
  at these data sets and events, not a proof that the mechanism is DP;
- ``inconclusive`` (``bound_below_claim``): no violation, but the events found certify
  less than half of ε (too few draws for the events where the loss sits, or a mechanism
  that adds more noise than its claim needs);
- ``inconclusive`` (``no_violation_found``) for uploaded outputs whenever there is no
  violation: outputs of an unknown implementation can prove a leak but not its
  absence (a leak on an event not searched, or too rare for the sample, stays unseen),
  so an upload is never called consistent.

The same machinery audits the outputs of any implementation (:func:`audit_outputs`).

Modules: :mod:`~privcore.dp.audit.catalogue` (the mechanisms audited and their data
sets), :mod:`~privcore.dp.audit.events` (the candidate events),
:mod:`~privcore.dp.audit.certify` (steps 1–3 and the verdict) and
:mod:`~privcore.dp.audit.run` (the entry points and their checks).
"""

from privcore.dp.audit.catalogue import (
    AUDIT_MECHANISMS,
    DEFAULT_GAUSSIAN_DELTA,
    SUM_CLAMP,
    SUM_COLUMN,
    SUM_RECORDS,
    UNCLAMPED_OUTLIER,
    AuditedMechanism,
)
from privcore.dp.audit.certify import (
    CONSISTENT_SHARE,
    DECISION_TOLERANCE,
    FALSE_ALARM_RATE,
    REASONS,
    VERDICTS,
    CentralAudit,
    decide,
)
from privcore.dp.audit.events import fraction_bits
from privcore.dp.audit.run import (
    DEFAULT_SAMPLES,
    MAX_SAMPLES,
    MIN_SAMPLES,
    audit_mechanism,
    audit_outputs,
)

__all__ = [
    "AUDIT_MECHANISMS",
    "CONSISTENT_SHARE",
    "DECISION_TOLERANCE",
    "DEFAULT_GAUSSIAN_DELTA",
    "DEFAULT_SAMPLES",
    "FALSE_ALARM_RATE",
    "MAX_SAMPLES",
    "MIN_SAMPLES",
    "REASONS",
    "SUM_CLAMP",
    "SUM_COLUMN",
    "SUM_RECORDS",
    "UNCLAMPED_OUTLIER",
    "VERDICTS",
    "AuditedMechanism",
    "CentralAudit",
    "audit_mechanism",
    "audit_outputs",
    "decide",
    "fraction_bits",
]
