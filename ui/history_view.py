"""The History page in words: the run list, a run's parameters and results, the comparison.

A run is recorded with its parameters and results as JSON (:mod:`privcore.history`):
keys such as ``risk_threshold`` or ``l_distinct``, codes such as ``grr`` or
``within_margin``. Nothing of that form reaches the page; every part is worded here.

- The run list: kind, page and status by their labels (``kind.<kind>``,
  ``history.page.<page>`` or the page's navigation title, ``history.status.<status>``).
- A run's parameters and results become rows "what · value" (:func:`describe`). A key has
  a label, the first the catalogue holds of: ``history.field.<parent>.<key>`` (a key whose
  meaning depends on where it sits), ``history.field.<key>``, a figure's or a readiness
  threshold's name (``figure.<key>``, ``report.threshold.<key>``), the label another page
  shows for it (:data:`REUSED`), a parameter's name (``param.<key>``); a key nobody
  labelled is humanized (``risk_threshold`` → "Risk threshold"); a top-level key that
  means something else in one kind of run has that kind's label (:data:`KIND_LABELS`:
  a DP query's ``epsilon`` is its guarantee, an audit's a claim). Nested mappings are
  flattened into labelled paths ("Re-identification risk · Highest record risk"); a
  mapping keyed by columns puts the column in parentheses ("Distinct l (Salary)").
  Values are formatted for people: lists joined with ", ", an interval as "a – b",
  booleans yes/no, None "—", shares as percentages, other numbers to four significant
  digits, codes by their label (an algorithm's or mechanism's title, a verdict, a
  reason). A list of privacy-model reports is one row per model ("k-anonymity: k ≥ 5 —
  achieved k = 9 — passed"); a readiness report's checks, reasons, conditions and notes
  are the report's own sentences (:mod:`privcore.words.catalog`); an error is its message in the
  language of the page; the library's notes (English sentences) are shown as they are,
  one row each under "Notes".
- The comparison (:func:`compare`): the same rows, one column per run.
- Times are shown in UTC to the second (:func:`privcore.history.display_time`); a run
  that assessed a release names it (:func:`release_line`): its name, how it was made,
  its fingerprint and the run that made it.

The JSON itself stays one click away: :func:`run_json` is the download of a run's
parameters and results.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from privcore import history
from privcore.runs.registry import ALGORITHMS, MECHANISMS
from privcore.words.catalog import (
    catalogue,
    check_label,
    check_sentence,
    condition_sentence,
    figure,
    format_text,
    has,
    note_sentence,
    percent,
    text,
)
from privcore.words.labels import dataset_name, humanize, model_title, requirement, sentence_text
from ui.components import escape_md
from ui.i18n import current_language, t

__all__ = [
    "Line",
    "compare",
    "describe",
    "error_sentence",
    "header",
    "kind_label",
    "page_label",
    "run_json",
    "run_list",
    "show_comparison",
    "show_details",
    "status_label",
    "value_text",
]

#: Pages that record runs, by the navigation title of the page.
PAGE_TITLES = {
    "anonymize": "nav.anonymize",
    "privacy_level": "nav.privacy",
    "attack": "nav.attack",
    "ldp": "nav.ldp",
    "dp": "nav.dp",
    "report": "nav.report",
    "data": "nav.data",
    "history": "nav.history",
    "home": "nav.home",
}

#: Keys whose label another page already shows (one term, one translation). A key
#: ``"<parent>.<key>"`` applies only under that parent.
REUSED = {
    "algorithm": "an.algorithm",
    "qi": "pl.qi",
    "sa": "pl.sa",
    "key": "pl.key",
    "l_kind": "pl.l_kind",
    "t_distance": "pl.t_distance",
    "risk_threshold": "pl.risk_threshold",
    "max_suppression": "an.max_suppression",
    "loss_metric": "an.loss_metric",
    "summary": "an.summary",
    "pram_retain": "an.pram_retain",
    "pram_alpha": "an.pram_alpha",
    "noise_level": "an.noise_level",
    "noise_kind": "an.noise_kind",
    "swap_percent": "an.swap_percent",
    "top_percentile": "an.top_percentile",
    "bottom_percentile": "an.bottom_percentile",
    "seed": "an.seed",
    "keep_order": "an.keep_order",
    "mechanism": "ldp.mechanism",
    "sweep": "ldp.mechanism",
    "epsilon": "ldp.claimed",
    "epsilon_claimed": "ldp.claimed",
    "epsilon_hat": "ldp.measured",
    "epsilon_lb": "ldp.lb",
    "epsilons": "ldp.sweep_list",
    "domain": "ldp.domain",
    "methods": "ldp.methods",
    "density": "ldp.density_mode",
    "input_column": "ldp.input_col",
    "confidence": "ldp.planner_confidence",
    "output": "ldp.output_shape",
    "ab": "ldp.method_ab",
    "ob": "ldp.method_ob",
    "lb": "ldp.method_lb",
    "m": "at.m",
    "prior": "at.use_prior",
    "locale": "at.locale",
    "roll_size": "at.roll_size",
    "tau": "at.tau",
    "roll": "at.roll_source",
    "joint": "at.joint",
    "release_b": "at.second_release",
    "attribute": "at.sa",
    "records": "at.records",
    "reidentified": "at.reidentified",
    "attribute_disclosed": "at.disclosed",
    "baseline": "at.baseline",
    "min_effective_k": "at.min_effective_k",
    "records_effective_k_1": "at.effective_k_1",
    "k": "explain.name_k",
    "l": "explain.name_l",
    "t": "explain.name_t",
    "t_closeness": "model.t",
    "attributes": "param.attributes",
    "pl": "explain.name_pl",
    "dr": "explain.name_dr",
    "ul": "explain.name_ul",
    "records_at_risk": "explain.name_at_risk",
    "prosecutor_max": "pl.prosecutor_max",
    "prosecutor_avg": "pl.prosecutor_avg",
    "journalist_max": "pl.journalist_max",
    "journalist_avg": "pl.journalist_avg",
    "marketer": "pl.marketer",
    "risk": "pl.risk_title",
    "loss": "pl.loss_title",
    "risk.threshold": "pl.risk_threshold",
    "real_records": "an.real_records",
    "suppressed_rows": "an.suppressed",
    "quasi_identifiers": "pl.qi",
    "sensitive": "pl.sa",
    "classes": "report.html.classes",
    "rows": "report.html.rows",
    "columns": "report.html.columns",
    "name": "report.html.name",
    "l_distinct": "report.html.l_distinct",
    "l_entropy": "report.html.l_entropy",
    "targets": "report.html.targets",
    "unique_matches": "report.html.unique_matches",
    "false_matches": "report.html.false_matches",
    "classes_exposed": "report.html.homogeneous_classes",
    "records_exposed": "report.html.homogeneous_records",
    "before": "report.html.before",
    "after": "report.html.after",
    "spearman": "report.html.spearman",
    "rows_in_place": "report.html.rows_in_place",
    "thresholds": "report.html.thresholds",
    "threshold": "report.html.threshold",
    "verdict": "report.html.verdict",
    "verdicts": "report.html.models",
    "checks": "report.html.checks",
    "notes": "report.html.notes",
    "reasons": "report.html.reasons",
    "conditions": "report.html.conditions",
    "created": "report.html.created",
    "roles": "report.html.roles",
    "release": "report.html.release",
    "release_fingerprint": "report.html.release",
    "sha256": "report.html.sha256",
    "alignment": "report.html.matched_by",
    "matched_by": "report.html.matched_by",
    "order": "report.html.order",
    "page": "history.col_page",
    "cached": "history.col_cached",
    # central differential privacy: the DP page's own terms
    "answer": "dp.noisy_answer",
    "sensitivity": "dp.sensitivity",
    "interval": "dp.interval95",
    "cells": "dp.cells",
    "query": "dp.query",
    "noise": "dp.mechanism",
    "relation": "dp.relation",
    "neighbours": "dp.relation",
    "audited": "dp.audited",
    "leaver": "dp.leaver",
    "posterior_max": "dp.posterior_bound",
    "posterior_exact_answers": "dp.posterior_exact",
    "zero_in_truth": "dp.zero_in_truth",
    "mean_abs_error": "dp.mean_abs_error",
    "median_abs_error": "dp.median_abs_error",
    "max_abs_error": "dp.max_abs_error",
    "mean_relative_error": "dp.mean_relative_error",
    "zero_answered_positive": "dp.zero_answered",
    "ledger": "dp.release_ledger",
    "ledger.label": "dp.ledger_query",
    "ledger.epsilon": "param.epsilon",
    "ledger.columns": "dp.marginal",
    "ledger.spent": "dp.spent",
    "dp.epsilon": "param.epsilon",
    "attack.epsilon": "param.epsilon",
    "attack.prior": "dp.prior",
    "where.status": "dp.status",
    "scale.sum": "dp.query_sum",
    "scale.count": "dp.query_count",
    "sensitivity.sum": "dp.query_sum",
    "sensitivity.count": "dp.query_count",
    "mechanism.sum": "dp.query_sum",
    "mechanism.count": "dp.query_count",
}

#: Top-level keys that mean something else in one kind of run: (kind, key) → label.
KIND_LABELS = {
    **{
        (kind, "epsilon"): "param.epsilon"  # the ε of a guarantee, not an audited claim
        for kind in ("dp_query", "dp_dinner", "dp_release", "dp_differencing")
    },
    ("dp_dinner", "prior"): "dp.prior",
    ("dp_differencing", "prior"): "dp.prior",
    ("dp_query", "columns"): "dp.histogram_columns",
    ("dp_release", "records"): "history.field.synthesized_records",
    ("dp_audit", "samples"): "dp.audit_samples",
    ("dp_audit", "tolerance"): "history.field.decision_tolerance",
}
#: Top-level numbers of one kind of run that are not shares (elsewhere they are): the
#: DP audit's tolerance is an ε.
KIND_NUMBERS = frozenset({("dp_audit", "tolerance")})

#: Mappings keyed by the data's columns (or "all"): the column goes in parentheses.
BY_COLUMN = frozenset(
    {
        "l_distinct",
        "l_entropy",
        "recursive_c",
        "t_closeness",
        "pl",
        "pl_notes",
        "attribute_disclosed",
        "attribute_disclosed_share",
        "attribute_within_tolerance",
        "node",
        "levels",
        "per_attribute",
        "unparsed_cells",
        "hierarchy_files",
        "rows_outside_domain",
        "inference",  # a risk run's inference, per sensitive attribute
        "attribute_contributions",  # SUDA2's, per quasi-identifier
    }
)
#: Mappings keyed by columns or by fields (the report's ``roles``: qi, sa, key; a
#: profile's ``roles``: column → role): a key with a label is a field, else a column.
BY_COLUMN_OR_FIELD = frozenset({"roles"})

#: Fields whose value is a code, worded by a label (first catalogue key that exists).
CODE_WORDS: dict[str, tuple[str, ...]] = {
    "algorithm": ("alg.{v}",),
    "mechanism": ("mechanism.{v}", "dp.noise_{v}", "dp.audited_{v}"),
    "sweep": ("mechanism.{v}",),
    "l_kind": ("pl.l_kind_{v}",),
    "t_distance": ("distance.{v}",),
    "distance": ("distance.{v}",),
    "loss_metric": ("metric.{v}",),
    "summary": ("an.summary_{v}",),
    "noise_kind": ("an.noise_kind_{v}",),
    "density": ("ldp.density_{v}", "history.value.density.{v}"),
    "method": ("ldp.method_{v}",),
    "methods": ("ldp.method_{v}",),
    "status": ("report.status.{v}", "dp.status_{v}"),
    "locale": ("at.locale_{v}",),
    "roles": ("role.{v}",),
    "alignment": ("param.alignment.{v}", "param.pairing.{v}"),
    "matched_by": ("param.alignment.{v}", "param.pairing.{v}"),
    "pairing": ("param.pairing.{v}",),
    "reason": ("history.value.reason.{v}",),
    "decision_rule": ("history.value.decision_rule.{v}",),
    "device": ("history.value.device.{v}",),
    "output": ("history.value.output.{v}",),
    "family": ("history.value.family.{v}",),
    "mode": ("history.value.mode.{v}",),
    "grid_source": ("history.value.grid_source.{v}",),
    "attack": ("history.value.attack.{v}",),
    "noise": ("dp.noise_{v}",),
    "relation": ("dp.relation_{v}",),
    "query": ("dp.query_{v}",),
    "audited": ("dp.audited_{v}",),
    "leaver": ("history.value.leaver.{v}",),
    "leaver_status": ("dp.status_{v}",),
    "kind": ("history.value.kind.{v}",),  # a DP audit's event
    "order": ("history.value.order.{v}",),  # the data set on which the event is likelier
    "sum": ("dp.noise_{v}",),  # a DP mean's two parts: the mechanism of each
    "count": ("dp.noise_{v}",),
    "source": ("risk.control_{v}",),  # a risk run's control set
    "control": ("risk.control_{v}",),  # a report's singling out, linkability and inference
    "sampling_fraction_source": ("risk.source_{v}",),
    "warnings": ("gdpr_risk.warning.{v}",),
}

#: Fields whose value is a code under one parent only: (parent, field) → labels.
CODE_WORDS_UNDER: dict[tuple[str, str], tuple[str, ...]] = {
    ("population_uniqueness", "model"): ("risk.model_{v}",),  # the model Dankar's rule chose
}

#: Keys whose numbers are shares of a whole (shown as percentages).
SHARES = frozenset({"max_suppression", "consistent_margin", "false_alarm_rate"})
#: Keys that hold a share under one parent only (elsewhere a count or another figure).
SHARES_UNDER = frozenset(
    {
        ("risk", "records_at_risk"),
        ("linkage", "precision"),
        (None, "rows_in_place"),
        ("shuffled", "rows_in_place"),
    }
)
#: Keys whose two numbers are an interval (shown "a – b").
INTERVALS = frozenset(
    {
        "ci",
        "baseline_ci",
        "ci_avg",
        "input_range",
        "interval",
        "clamp",
        "p_d",
        "p_d_prime",
        "loss_interval",
    }
)
#: Parents under which a key holds ε (not a share): the audit measures.
AUDIT_MEASURES = frozenset({"ab", "ob", "lb"})
#: Keys left out: said by their parent already (a measure's own name, a mechanism's
#: English title next to its code).
SKIPPED = frozenset(
    {
        ("ab", "method"),
        ("ob", "method"),
        ("lb", "method"),
        ("mechanism", "title"),
        ("event", "text"),  # a DP audit's event in English: said by its kind and parameters
    }
)
#: Report results whose items the readiness report words itself.
REPORT_ITEMS = frozenset({"checks", "reasons", "conditions", "notes"})
#: Lists of privacy models: a model report (``verdicts``) or a model's parameters.
MODEL_LISTS = frozenset({"verdicts", "constraints"})
#: Digests shown by their first characters.
DIGESTS = frozenset({"sha256", "release_sha256", "dataset_sha256"})

SEPARATOR = " · "


# --------------------------------------------------------------------------- words


def _word(key: str, lang: str, **params: Any) -> str | None:
    """The catalogue's text of ``key``, or None when there is none."""
    return text(key, lang, **params) if has(key) else None


def page_label(page: Any, lang: str) -> str:
    """The page a run came from: the page's title, "command line", or "—"."""
    if page is None or page is pd.NA or (isinstance(page, float) and math.isnan(page)):
        return "—"
    if str(page) == "":
        return "—"
    name = str(page)
    for key in (f"history.page.{name}", PAGE_TITLES.get(name)):
        if key and has(key):
            return text(key, lang)
    return humanize(name)


def kind_label(kind: Any, lang: str) -> str:
    return _word(f"kind.{kind}", lang) or humanize(str(kind))


def status_label(status: Any, lang: str) -> str:
    return _word(f"history.status.{status}", lang) or humanize(str(status))


def _label_keys(key: Any, parent: Any) -> list[str]:
    """Catalogue keys that may label ``key`` under ``parent``, the most specific first."""
    keys = []
    if parent is not None:
        keys += [f"history.field.{parent}.{key}", REUSED.get(f"{parent}.{key}")]
    keys += [
        f"history.field.{key}",
        f"figure.{key}",
        f"report.threshold.{key}",
        REUSED.get(str(key)),
        f"param.{key}",
    ]
    return [k for k in keys if k]


def field_label(key: Any, parent: Any, lang: str) -> str:
    """The label of ``key`` (under ``parent``): see the module docstring."""
    for candidate in _label_keys(key, parent):
        if has(candidate):
            return text(candidate, lang)
    return humanize(str(key))


def _labelled(key: Any, parent: Any) -> bool:
    return any(has(candidate) for candidate in _label_keys(key, parent))


def code_word(
    field: str, value: str, lang: str, kind: str | None = None, parent: Any = None
) -> str:
    """A code in words: an algorithm's title, a verdict, a reason, a role…"""
    keys = list(CODE_WORDS_UNDER.get((parent, field), CODE_WORDS.get(field, ())))
    if field == "verdict":
        keys = ["report.verdict.{v}"] if kind == "report" else ["ldp.verdict_{v}"]
    normal = str(value).strip().replace(" ", "_")
    for template in [*keys, f"history.value.{field}.{{v}}"]:
        word = _word(template.format(v=normal), lang)
        if word is not None:
            return word
    if field == "algorithm" and value in ALGORITHMS:
        return ALGORITHMS[value].title
    if field in ("mechanism", "sweep") and value in MECHANISMS:
        return MECHANISMS[value].title
    return humanize(str(value))


def _number(value: float | int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if abs(value) < 1e-12:
            return "0"
    return figure(value, 4)


def _is_share(field: str, parent: Any, kind: str | None = None) -> bool:
    if parent is None and (kind, field) in KIND_NUMBERS:
        return False
    if field in SHARES or field.endswith("_share") or (parent, field) in SHARES_UNDER:
        return True
    return field == "tolerance" and parent not in AUDIT_MEASURES


def _neighbours_words(value: str, lang: str) -> str:
    """A DP audit's neighbouring data sets (stored as the library's English) in ``lang``:
    the words of the first audited mechanism with those data sets (the page's rule)."""
    from privcore.dp.audit import AUDIT_MECHANISMS, DEFAULT_GAUSSIAN_DELTA, SUM_RECORDS

    first = next((n for n, e in AUDIT_MECHANISMS.items() if e.neighbours == value), None)
    key = f"dp.neighbours_{first}"
    if first is None or not has(key):
        return value
    return text(
        key, lang, delta=f"{DEFAULT_GAUSSIAN_DELTA:g}", records=", ".join(map(str, SUM_RECORDS))
    )


def value_text(
    field: str, value: Any, lang: str, *, parent: Any = None, kind: str | None = None
) -> str:
    """A recorded value for people (see the module docstring)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return text("words.yes" if value else "words.no", lang)
    if isinstance(value, (int, float)):
        if field.endswith("_run"):
            return f"#{int(value)}"
        if _is_share(field, parent, kind) and not (isinstance(value, float) and math.isnan(value)):
            return percent(value)
        return _number(value)
    if isinstance(value, str):
        if field in DIGESTS:
            return value[:16] + "…" if len(value) > 16 else value
        if field in CODE_WORDS or field == "verdict" or (parent, field) in CODE_WORDS_UNDER:
            return code_word(field, value, lang, kind, parent)
        if field in ("notes", "pl_notes", "note"):  # the library's notes, as stored
            return sentence_text(value, lang)
        if field == "neighbours":
            return _neighbours_words(value, lang)
        return dataset_name(value, lang) if value else value  # a bundled sample in words
    if isinstance(value, Mapping):
        if not value:
            return "—"
        return "; ".join(
            f"{field_label(k, field, lang)}: {value_text(str(k), v, lang, parent=field, kind=kind)}"
            for k, v in value.items()
        )
    if isinstance(value, Sequence):
        if not value:
            return "—"
        if field in INTERVALS and len(value) == 2:
            low, high = (value_text(field, v, lang, parent=parent, kind=kind) for v in value)
            if field == "loss_interval" and value[1] is None:
                high = "∞"  # a DP audit's event never seen on the second data set
            return f"{low} – {high}"
        parts = []
        for item in value:
            if isinstance(item, int) and not isinstance(item, bool):
                parts.append(str(item))  # no thousands separator: the list's is ", "
                continue
            shown = value_text(field, item, lang, parent=parent, kind=kind)
            is_list = isinstance(item, Sequence) and not isinstance(item, str)
            parts.append(f"({shown})" if is_list else shown)
        return ", ".join(parts)
    return str(value)


# --------------------------------------------------------------------------- models


def _achieved(achieved: Any, lang: str) -> str:
    """``{"k": 9}`` → "k = 9"; ``{"l": {"Salary": 9}}`` → "l = 9 (Salary)"."""
    if not isinstance(achieved, Mapping):
        return value_text("achieved", achieved, lang)
    parts = []
    for name, value in achieved.items():
        if name == "distance":
            continue  # said by the requirement
        if isinstance(value, Mapping):
            each = ", ".join(
                text("history.by_column", lang, label=value_text(name, v, lang), name=sa)
                for sa, v in value.items()
            )
            parts.append(f"{name} = {each}" if each else f"{name} = —")
        else:
            parts.append(f"{name} = {value_text(name, value, lang)}")
    return "; ".join(parts) or "—"


def verdict_line(verdict: Mapping[str, Any], lang: str) -> str:
    """One model report: "k-anonymity: k ≥ 5 — achieved k = 9 — passed"."""
    parameters = verdict.get("parameters")
    return text(
        "history.verdict_line",
        lang,
        model=model_title(parameters, str(verdict.get("model") or "—"), lang),
        requirement=requirement(parameters, str(verdict.get("requirement") or ""), lang),
        achieved=_achieved(verdict.get("achieved"), lang),
        status=text("history.passed" if verdict.get("passed") else "history.failed", lang),
    )


def model_line(model: Mapping[str, Any], lang: str) -> str:
    """A model asked for: "k-anonymity: k ≥ 5"."""
    if "passed" in model:
        return verdict_line(model, lang)
    return text(
        "history.model_line",
        lang,
        model=model_title(model, str(model.get("model") or "—"), lang),
        requirement=requirement(model, "", lang),
    )


# --------------------------------------------------------------------------- a run


@dataclass(frozen=True)
class Line:
    """One row of a run's parameters or results: where it is in the JSON (``path``),
    what it is in words (``label``) and its value in words (``value``)."""

    path: tuple[Any, ...]
    label: str
    value: str


def error_sentence(error: Any, lang: str) -> str | None:
    """A recorded error in words: a ``{"code", "params"}`` by the catalogue's message for
    its code (as :func:`ui.i18n.error_text` does; a code without one by its parameters,
    never the code itself), a code alone likewise, a message or an exception's name as
    it was recorded."""
    if not error:
        return None
    if isinstance(error, Mapping):
        code, params = str(error.get("code") or ""), dict(error.get("params") or {})
    elif isinstance(error, str) and has(f"error.{error}"):
        code, params = error, {}
    else:
        return str(error)
    shown = {k: _error_value(k, v, lang) for k, v in params.items()}
    template = _error_template(code, params, lang)
    if template is not None:
        return format_text(template, shown)
    if not shown:  # no wording for this code yet: what it was about, in words
        return text("history.error_plain", lang)
    details = "; ".join(f"{field_label(k, None, lang)}: {v}" for k, v in shown.items())
    return text("history.error_unworded", lang, details=details)


def _error_value(name: str, value: Any, lang: str) -> str:
    """An error's parameter in words; an ``option`` (a parameter's name) by its label."""
    if name == "option" and isinstance(value, str):
        return field_label(value, None, lang)
    return value_text(name, value, lang)


def _error_template(code: str, params: Mapping[str, Any], lang: str) -> str | None:
    """The most specific wording of ``error.<code>`` whose placeholders ``params`` fill."""
    base = f"error.{code}"
    fitting = []
    for key, template in catalogue(lang).items():
        if key != base and not key.startswith(base + "."):
            continue
        needed = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        if needed <= set(params):
            fitting.append((len(needed), key, template))
    return max(fitting)[2] if fitting else None


def _report_item(key: str, item: Mapping[str, Any], lang: str) -> tuple[str, str]:
    """(label, sentence) of a readiness report's check, reason, condition or note."""
    if key == "checks":
        status = text(f"report.status.{item.get('status')}", lang)
        return check_label(item, lang), text(
            "history.check_line", lang, sentence=check_sentence(item, lang), status=status
        )
    if key == "reasons":
        return check_label(item, lang), check_sentence({**item, "status": "fail"}, lang)
    if key == "conditions":
        return "", condition_sentence(item, lang)
    return "", note_sentence(item, lang)


def describe(data: Any, lang: str, kind: str | None = None) -> list[Line]:
    """The rows "what · value" of a run's parameters or results (see the module
    docstring); ``kind`` is the run's kind (a report's verdict is not an audit's)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return [Line((), text("history.col_value", lang), data)]
    if not isinstance(data, Mapping):
        return [] if data is None else [Line((), text("history.col_value", lang), str(data))]
    out: list[Line] = []
    for key, value in data.items():
        special = KIND_LABELS.get((kind, str(key)))
        label = text(special, lang) if special else field_label(key, None, lang)
        _walk(str(key), value, (key,), label, None, lang, kind, out)
    return out


def _walk(
    key: str,
    value: Any,
    path: tuple[Any, ...],
    label: str,
    parent: Any,
    lang: str,
    kind: str | None,
    out: list[Line],
    field: str | None = None,
) -> None:
    field = field or key
    if (str(parent), key) in SKIPPED:
        return
    if key == "error" and parent is None and isinstance(value, Mapping) and "code" in value:
        out.append(Line(path, label, error_sentence(value, lang) or "—"))
        return
    items = value if isinstance(value, list) and value else None
    if items and key == "notes" and all(isinstance(i, str) for i in items):
        # the library's own notes (stored as English sentences), one row each
        for index, item in enumerate(items):
            worded = sentence_text(item, lang)
            out.append(Line((*path, index), f"{label}{SEPARATOR}{index + 1}", worded))
        return
    if items and all(isinstance(i, Mapping) for i in items):
        for index, item in enumerate(items):
            where, numbered = (*path, index), f"{label}{SEPARATOR}{index + 1}"
            if key in MODEL_LISTS and "model" in item:
                out.append(Line(where, numbered, model_line(item, lang)))
            elif key in REPORT_ITEMS and kind == "report":
                name, sentence = _report_item(key, item, lang)
                out.append(Line(where, f"{label}{SEPARATOR}{name}" if name else numbered, sentence))
            else:
                out.append(Line(where, numbered, value_text(key, item, lang, kind=kind)))
        return
    if isinstance(value, Mapping):
        if not value:
            out.append(Line(path, label, "—"))
            return
        for child_key, child in value.items():
            by_column = key in BY_COLUMN or (
                key in BY_COLUMN_OR_FIELD and not _labelled(child_key, key)
            )
            if by_column:
                name = text("report.attribute.all", lang) if child_key == "all" else child_key
                _walk(
                    str(child_key),
                    child,
                    (*path, child_key),
                    text("history.by_column", lang, label=label, name=name),
                    key,
                    lang,
                    kind,
                    out,
                    field=field,
                )
            else:
                # under a column (``field`` the mapping keyed by columns): labelled as
                # fields of that mapping ("inference" → its risk), not of the column
                child_label = f"{label}{SEPARATOR}{field_label(child_key, field, lang)}"
                _walk(str(child_key), child, (*path, child_key), child_label, key, lang, kind, out)
        return
    out.append(Line(path, label, value_text(field, value, lang, parent=parent, kind=kind)))


def table(lines: Sequence[Line], lang: str) -> pd.DataFrame:
    """Rows "what · value" as a table (the columns under their labels)."""
    return pd.DataFrame(
        {
            text("history.field", lang): [line.label for line in lines],
            text("history.col_value", lang): [line.value for line in lines],
        },
        dtype="object",
    )


def compare(runs: Sequence[Mapping[str, Any]], section: str, lang: str) -> pd.DataFrame:
    """The ``section`` ("params" or "results") of several runs side by side: one row per
    field (in the order first met), one column per run (``#id``); empty where a run has
    no such field."""
    labels: dict[tuple[Any, ...], str] = {}
    columns: dict[str, dict[tuple[Any, ...], str]] = {}
    for run in runs:
        lines = describe(run.get(section) or {}, lang, run.get("kind"))
        for line in lines:
            labels.setdefault(line.path, line.label)
        columns[f"#{run.get('id')}"] = {line.path: line.value for line in lines}
    frame = {text("history.field", lang): list(labels.values())}
    for name, values in columns.items():
        frame[name] = [values.get(path, "") for path in labels]
    return pd.DataFrame(frame, dtype="object")


def run_list(runs: pd.DataFrame, lang: str) -> pd.DataFrame:
    """The run list with kind, page and status in words, "—" for a run without a data
    set, its start in UTC to the second (the same columns)."""
    shown = runs.copy()
    if "started_at" in shown:
        shown["started_at"] = [history.display_time(v) for v in runs["started_at"]]
    shown["kind"] = [kind_label(k, lang) for k in runs["kind"]]
    shown["page"] = [page_label(p, lang) for p in runs["page"]]
    shown["status"] = [status_label(s, lang) for s in runs["status"]]
    if "dataset_name" in shown:  # an audit of a mechanism reads no data set
        shown["dataset_name"] = [
            dataset_name(n, lang) if isinstance(n, str) else "—" for n in shown["dataset_name"]
        ]
    return shown


def release_names(params: Sequence[Any]) -> list[str]:
    """The name of the release each run assessed, from its parameters as the history
    holds them (JSON text); "—" for a run of no release."""
    names = []
    for value in params:
        try:
            parsed = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            parsed = None
        found = history.assessed_release({"params": parsed}) if parsed else None
        names.append((found or {}).get("name") or "—")
    return names


#: What made a release, besides its models, named where a run names the release it
#: assessed (the algorithm's own options follow).
RELEASE_SETTINGS = ("max_suppression", "seed")


def release_line(run: Mapping[str, Any], lang: str, *, made_by: int | None = None) -> str | None:
    """Which release a run assessed, in words (plain text), or None: "Release assessed:
    «k3» · made with Datafly (k ≥ 3, Suppression limit (share of rows) = 10%, Seed = 0)
    · fingerprint de71cd19011187db… · 9 rows × 4 columns · made by run #17". How it was
    made is said when the run recorded it (a readiness report on a release made on the
    Anonymize page); ``made_by``: the run that made it, when the caller knows it (the
    session's shelf holds each release's run)."""
    found = history.assessed_release(run)
    if found is None:
        return None
    parts = [text("history.release_assessed", lang, name=found["name"] or "—")]
    algorithm = found["algorithm"]
    if algorithm:
        made = found["parameters"]
        settings = [
            requirement(model, str(model.get("model") or ""), lang)
            for model in made.get("constraints") or ()
            if isinstance(model, Mapping)
        ]
        options = ALGORITHMS[algorithm].options if algorithm in ALGORITHMS else ()
        for name in (*RELEASE_SETTINGS, *options):
            if made.get(name) is not None:
                settings.append(
                    f"{field_label(name, None, lang)} = {value_text(name, made[name], lang)}"
                )
        parts.append(
            text(
                "history.release_made_with",
                lang,
                algorithm=code_word("algorithm", algorithm, lang),
                settings=text("report.list.separator", lang).join(s for s in settings if s) or "—",
            )
        )
    if found["sha256"]:
        parts.append(text("history.release_fingerprint", lang, sha=found["sha256"][:16]))
    if isinstance(found["rows"], int) and isinstance(found["columns"], int):
        parts.append(
            text(
                "history.release_size",
                lang,
                rows=f"{found['rows']:,}",
                columns=f"{found['columns']:,}",
            )
        )
    if made_by is not None:
        parts.append(text("history.release_run", lang, id=int(made_by)))
    return SEPARATOR.join(parts)


def run_json(run: Mapping[str, Any]) -> str:
    """A run's parameters and results as the JSON the history holds (for experts)."""
    keep = ("id", "kind", "page", "status", "error", "started_at", "params", "results")
    return json.dumps({k: run.get(k) for k in keep}, ensure_ascii=False, indent=2)


# --------------------------------------------------------------------------- the page


def show_details(run: Mapping[str, Any]) -> None:
    """A run's parameters and results as two tables, its error in words, and the
    download of its JSON."""
    lang = current_language()
    params = describe(run.get("params") or {}, lang, run.get("kind"))
    results = describe(run.get("results") or {}, lang, run.get("kind"))
    for title, lines in ((t("history.params"), params), (t("history.results"), results)):
        st.markdown(f"*{title}*")
        if lines:
            st.dataframe(table(lines, lang), hide_index=True, width="stretch")
        else:
            st.caption(t("history.nothing_recorded"))
    recorded = (run.get("results") or {}) if isinstance(run.get("results"), Mapping) else {}
    if run.get("kind") == "error":  # a fault of the app: its reference and the exception
        message = text("history.unexpected", lang, name=str(run.get("error") or "—"))
        st.error(escape_md(message), icon=":material/error:")
    elif run.get("error") and "error" not in recorded:
        st.error(escape_md(error_sentence(run["error"], lang)), icon=":material/error:")
    st.download_button(
        t("history.download_json"),
        data=run_json(run),
        file_name=f"run{run.get('id')}_parameters_results.json",
        mime="application/json",
        on_click="ignore",
        key=f"run_json::{run.get('id')}",
    )


def show_comparison(runs: Sequence[Mapping[str, Any]]) -> None:
    """Parameters and results of several runs side by side."""
    lang = current_language()
    for title, section in ((t("history.params"), "params"), (t("history.results"), "results")):
        st.markdown(f"*{title}*")
        st.dataframe(compare(runs, section, lang), hide_index=True, width="stretch")


def header(run: Mapping[str, Any]) -> str:
    """The heading of a run's details: "#7 · measure · done" (Markdown)."""
    lang = current_language()
    parts = [
        f"#{run['id']}",
        kind_label(run["kind"], lang),
        status_label(run["status"], lang),
        page_label(run.get("page"), lang),
    ]
    return "**" + escape_md(SEPARATOR.join(parts)) + "**"
