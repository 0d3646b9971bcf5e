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

from privcore.measure.entropy import *  # noqa: F403 - the information measures, alignment
from privcore.measure.entropy import __all__ as _INFORMATION
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
    *_INFORMATION,
    "RiskSummary",
    "average_class_size",
    "discernibility",
    "gcp",
    "generalization_height",
    "generalization_levels",
    "ncp",
    "precision",
    "real_records",
    "record_risk",
    "risk_summary",
    "whd",
    "whd_distortion",
]
