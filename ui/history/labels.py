"""Where the History page's words for a recorded run come from: the catalogue keys that
label its parameters' and results' keys, the fields whose values are codes or shares or
intervals, and what is left out (:mod:`ui.history.words` reads these tables)."""

from __future__ import annotations

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
    "noise_law": ("dp.noise_{v}",),  # a reconstruction's noisy tables
    "publish": ("history.value.publish.{v}",),  # a reconstruction's tables: or suggested
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
