"""Singling out, linkability and inference: the three risks of the EU's Article 29 Working
Party (opinion 05/2014 on anonymisation techniques), measured as Anonymeter measures them
(Giomi, Boenisch, Wehmeyer & Tasnádi, "A Unified Framework for Quantifying Privacy Risk in
Synthetic Data", PoPETs 2023(2); the library ``anonymeter`` 1.1). SPEC §11.

Setting
-------
The original records are split into a **training** set (the records a release was made
from) and a **control** set (records of the same population that were never released).
An attacker holding the release attacks records of both. What an attack achieves on
control records it would achieve on anybody — it learned the population, not the
people — so only its excess success on training records is a privacy risk:

    risk = (r_train − r_control) / (1 − r_control),

each rate the centre of a Wilson score interval, the risk's interval propagated to first
order, and a naive attacker's **baseline** beside it
(:mod:`~privcore.attacks.gdpr_risks.statistics`).

Modules
-------
- :mod:`~privcore.attacks.gdpr_risks.singling_out_risk`: :func:`singling_out`
  (predicates: :mod:`~privcore.attacks.gdpr_risks.predicates`);
- :mod:`~privcore.attacks.gdpr_risks.linkability_risk`: :func:`linkability`;
- :mod:`~privcore.attacks.gdpr_risks.inference_risk`: :func:`inference` (both on the
  nearest released rows: :mod:`~privcore.attacks.gdpr_risks.neighbours`);
- :mod:`~privcore.attacks.gdpr_risks.combined`: :func:`gdpr_risks`, the three of one
  release;
- :mod:`~privcore.attacks.gdpr_risks.statistics`: rates, risk, baseline, the singling-out
  control-size correction;
- :mod:`~privcore.attacks.gdpr_risks.columns`: the attacked columns, generalized cells
  and missing values; :mod:`~privcore.attacks.gdpr_risks.inputs`: the checks of the
  arguments; :mod:`~privcore.attacks.gdpr_risks.results`: what the attacks return.

Where privcore departs from Anonymeter 1.1 (tests/crosscheck/test_anonymeter_oracle.py
checks the first two against Anonymeter itself):

- the control-size correction fits what Anonymeter's model describes; its own fit counts
  the predicates evaluated, not those that single out;
- the inference baseline guesses the secret of a random released row for every target;
  Anonymeter aligns its sampled guesses with the targets by index label, so most
  targets get no guess and its baseline is far below a random guess's success;
- distances with missing values: Anonymeter adds 1 for two missing values and makes a
  row with one missing number never the nearest; here missing is a value of its own;
- multivariate singling out tries at most :data:`ATTEMPTS_PER_ATTACK` × ``n_attacks``
  candidates by default (Anonymeter: 10,000,000);
- numeric inference with ``regression`` compares with |g| (Anonymeter divides by g, so a
  negative guess always counts as right).

Importing this package imports scipy.stats (:mod:`~privcore.attacks.gdpr_risks.statistics`);
the command line and the readiness report import it where they measure these risks.
"""

from __future__ import annotations

from privcore.attacks.gdpr_risks.columns import (
    OP_GE,
    OP_GT,
    OP_IN,
    OP_LE,
    OP_LT,
    OP_NOT_IN,
    OPERATORS,
    REGRESSION_TOLERANCE,
)
from privcore.attacks.gdpr_risks.combined import gdpr_risks
from privcore.attacks.gdpr_risks.inference_risk import inference
from privcore.attacks.gdpr_risks.linkability_risk import linkability
from privcore.attacks.gdpr_risks.results import ATTACKS, DEFAULT_ATTACKS, GdprRisks, RiskResult
from privcore.attacks.gdpr_risks.singling_out_risk import (
    ATTEMPTS_PER_ATTACK,
    DEFAULT_N_COLS,
    singling_out,
)
from privcore.attacks.gdpr_risks.statistics import Rate, residual_rate, success_rate

__all__ = [
    "ATTACKS",
    "ATTEMPTS_PER_ATTACK",
    "DEFAULT_ATTACKS",
    "DEFAULT_N_COLS",
    "OPERATORS",
    "OP_GE",
    "OP_GT",
    "OP_IN",
    "OP_LE",
    "OP_LT",
    "OP_NOT_IN",
    "REGRESSION_TOLERANCE",
    "GdprRisks",
    "Rate",
    "RiskResult",
    "gdpr_risks",
    "inference",
    "linkability",
    "residual_rate",
    "singling_out",
    "success_rate",
]
