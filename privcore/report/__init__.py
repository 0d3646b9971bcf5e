"""Release readiness: may this anonymized table be published? (SPEC §2, §3, §6)

A compliance officer sets :class:`Thresholds`; :func:`readiness` measures the release
against its original (:func:`~privcore.measure.report.measure_release`: k, l, t, PL, DR,
UL, risk, information loss), attacks it with a synthetic voter roll
(:func:`~privcore.attacks.simulate`: linkage and homogeneity, before vs after), measures
singling out, linkability and inference when they are required, checks
the row order of the file to publish and the columns left in the release, and returns a
:class:`ReadinessReport` with one of three verdicts:

- ``"not_ready"``: at least one check failed (``reasons``, each with the ``action``
  that would fix it, e.g. k = 3 < 5 → ``{"action": "anonymize", "k": 5}``);
- ``"ready_with_conditions"``: every check passed, but something must be handled before
  publishing (``conditions``: shuffle the rows, drop an identifier column, document the
  suppressed rows…);
- ``"ready"``: every check passed and nothing is left to handle.

Checks (each ``pass`` or ``fail``; PL and journalist risk ``warn`` within 20 % of their
limit, which adds a condition):

- ``k``: smallest equivalence class (suppressed rows excluded) ≥ ``min_k``;
- ``l_distinct`` (per SA): fewest distinct SA values in a class ≥ ``min_l``;
- ``t`` (per SA): largest class distance (auto: ordered or equal) ≤ ``max_t``;
- ``pl``: PL(all SAs | all QIs) of SPEC §3 ≤ ``max_pl``;
- ``prosecutor``: highest record risk 1/|class| ≤ ``max_prosecutor`` (the same
  requirement as ``min_k``: one is derived from the other, see :class:`Thresholds`);
- ``journalist``: highest 1/F, F = roll people matching a class, ≤ ``max_journalist``;
- ``reidentified_share``: people the linkage attack re-identifies ÷ people ≤
  ``max_reidentified_share``;
- ``disclosed_share``: the largest, over SAs, share of people whose true value the
  linkage attacker reads off all their candidate records ≤ ``max_disclosed_share``;
- ``suppressed_share``: suppressed rows ÷ rows ≤ ``max_suppressed_share``;
- ``ul``: utility UL of SPEC §3 ≥ ``min_ul``;
- ``singling_out``, ``linkability``, ``inference`` (the largest over the SAs): the three
  risks of the Article 29 Working Party as Anonymeter measures them
  (:func:`~privcore.attacks.gdpr_risks.gdpr_risks`, a seeded held-out control set),
  point estimate ≤ ``max_singling_out`` / ``max_linkability`` / ``max_inference``
  (each limit by default the prosecutor limit 1/k, None waives it); ``warn`` when the
  point passes but the upper end of its 95 % interval lies above the limit, which adds a
  condition.

Conditions (:data:`CONDITIONS`):

- ``suppressed_rows``: some rows are suppressed (within the limit) — document them;
- ``homogeneous_classes``: classes whose SA has one value (homogeneity attack, τ = 1);
- ``row_order_unverified``: rows were matched by position (no key), so the file is in
  the original order — shuffle before publishing;
- ``row_order``: with a key, the release still follows the original order
  (|Spearman ρ|·√(n−1) ≥ 3, or |ρ| = 1 with n ≥ 5, or at least min(n, 5) rows in place;
  a random shuffle leaves about one) — shuffle;
- ``row_order_download``: a release made here whose download keeps the original order
  — download it shuffled. A file published shuffled (``readiness(shuffled=True)``: the
  default download of a release made here) has no row-order condition;
- ``key_identifier`` / ``key_sequential``: the matching key looks like an identifier
  (by its name or values) or its values follow the original row order (the same test
  as ``row_order``) — drop it or replace it with a random surrogate;
- ``identifiers_present``: other columns of the release look like direct identifiers
  (:func:`~privcore.data.suggest_roles`) — remove them;
- ``unanalysed_columns``: other columns whose names or values suggest a
  quasi-identifier or a sensitive attribute were not analysed — review their roles;
- ``near_limit``: PL or journalist risk passes but lies within 20 % of its limit;
- ``interval_above_limit``: an Article 29 risk passes, but its confidence interval
  reaches above the limit;
- ``pl_note``: PL(all) or the PL of an SA is flagged (``constant_original``: the
  attribute has one value in the original; ``constant_release``: the release gives it
  one value where the original has several — the findings' ``constant`` says which;
  ``not_meaningful``: the release has more entropy than the original); a QI's flag is
  a note only (local recoding adds labels);
- ``unparsed_cells``: the attacker could not read some released cells (no hierarchy),
  so the attack figures are a lower bound — give the hierarchies;
- ``not_measured``: a required figure could not be computed.

Everything is a code with parameters (:mod:`privcore.report.checks`); the words, in
English and Chinese, and the HTML document live in :mod:`privcore.words`
(``catalog``, ``report_html``), shared by the command line and the pages. The report
holds fingerprints of both tables and aggregate figures only, never rows.
:func:`readiness` writes nothing; :func:`privcore.runs.run` records a ``ReportRequest``
as its ``measure``, ``attack`` and ``report`` runs, from which
:func:`readiness_from_history` rebuilds the report.
"""

from privcore.report.checks import *  # noqa: F403 - the codes and their evaluation
from privcore.report.checks import __all__ as _CHECKS
from privcore.report.readiness import ReadinessReport, readiness
from privcore.report.stored import readiness_from_history, report_from_history
from privcore.report.thresholds import Thresholds, k_for_risk

__all__ = [
    *_CHECKS,
    "ReadinessReport",
    "Thresholds",
    "k_for_risk",
    "readiness",
    "readiness_from_history",
    "report_from_history",
]
