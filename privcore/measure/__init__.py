"""Measures of a release (SPEC §3, §5, §6).

- :mod:`privcore.measure.entropy`: entropy, discrimination rate, privacy level PL,
  the PL matrix and utility loss UL (seed 001 §4), and row alignment of two tables;
- :mod:`privcore.measure.loss`: information loss (WHD, discernibility, C_avg, NCP/GCP,
  precision, generalization height);
- :mod:`privcore.risk`: prosecutor, journalist and marketer risk;
- :mod:`privcore.measure.report`: everything at once for a release against its
  original (:func:`~privcore.measure.report.measure_release`), its rows paired by
  :mod:`privcore.measure.pairing`, and the released rows that are real records
  (:func:`~privcore.measure.records.real_records`);
- population risk (SPEC §11), imported from their modules when used:
  :mod:`privcore.measure.population` (population uniqueness, individual risk),
  :mod:`privcore.measure.suda2` (SUDA2), :mod:`privcore.measure.presence`
  (δ-presence, k-map), :mod:`privcore.measure.utility` (utility of a perturbed release).
"""

from privcore.measure.entropy import (
    NOTE_CONSTANT,
    NOTE_NOT_MEANINGFUL,
    PrivacyLevel,
    align,
    conditional_entropy,
    discrimination_rate,
    entropy,
    local_privacy_level,
    mutual_information,
    pl_matrix,
    privacy_level,
    utility_loss,
)
from privcore.measure.loss import (
    average_class_size,
    discernibility,
    gcp,
    generalization_height,
    generalization_levels,
    ncp,
    precision,
    whd,
    whd_distortion,
)
from privcore.measure.records import real_records
from privcore.risk import RiskSummary, record_risk, risk_summary

__all__ = [
    "NOTE_CONSTANT",
    "NOTE_NOT_MEANINGFUL",
    "PrivacyLevel",
    "RiskSummary",
    "align",
    "average_class_size",
    "conditional_entropy",
    "discernibility",
    "discrimination_rate",
    "entropy",
    "gcp",
    "generalization_height",
    "generalization_levels",
    "local_privacy_level",
    "mutual_information",
    "ncp",
    "pl_matrix",
    "precision",
    "privacy_level",
    "real_records",
    "record_risk",
    "risk_summary",
    "utility_loss",
    "whd",
    "whd_distortion",
]
