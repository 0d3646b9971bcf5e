"""The release dossier: the readiness report with what a reviewer who signs is asked.

A readiness report (:func:`~privcore.report.readiness`) answers "do the figures pass the
thresholds?". A dossier (:func:`build_dossier`) adds what guidance and law ask of an
anonymisation assessment:

- the **context** of the release (:class:`~privcore.report.context.ReleaseContext`:
  recipient, access, purpose, the intruder's knowledge, jurisdiction, dates) and the
  thresholds it chose, each with its source or the reason it was overridden (ICO
  anonymisation guidance, 2025: identifiability in context; CJEU C-413/23 P, 2025: judged
  from the recipient's side; ISO/IEC 27559:2022 step 1, context and threat modelling);
- the **evidence per criterion** of the Article 29 Working Party (opinion 05/2014):
  singling out, linkability and inference, each with its measured risk, interval,
  baseline, the attack that measured it, its limit and status, and the figures that
  support it (class sizes, the voter-roll linkage, homogeneity); then the population
  risk (uniqueness models, Benedetti–Franconi individual risk) and the reconstruction
  lab's result when tables are published with the release;
- the **motivated intruder test** as a record (ICO 2025; ISO/IEC 27559 step 3,
  adversarial testing): the intruder's assumed knowledge and what each attack run
  achieved — linkage with the voter roll, homogeneity, background knowledge,
  reconstruction and the combination with earlier releases (the register);
- the **sign-off** (NIST SP 800-188: a disclosure review board; HHS expert
  determination: the conditions of sharing): reviewers, decision, conditions;
- **fingerprints** of the input, the release, the spec and of the dossier itself
  (:func:`dossier_fingerprint`), so a later reader can verify that nothing changed.

Everything is codes and figures (the interface words them, in either language), never
rows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from privcore.core.jsonsafe import plain
from privcore.errors import ParameterError, PrivcoreError
from privcore.report.context import ContextThresholds, ReleaseContext

__all__ = [
    "DECISIONS",
    "DOSSIER_FORMAT",
    "SignOff",
    "build_dossier",
    "dossier_fingerprint",
    "dossier_of",
    "evidence",
    "intruder_record",
    "verify_dossier",
]

DOSSIER_FORMAT = "privcore-dossier/1"
#: A reviewer's decision on a release.
DECISIONS = ("approve", "approve_with_conditions", "reject")
#: The statuses a criterion's evidence can have; ``not_measured`` says why in ``note``.
STATUSES = ("pass", "warn", "fail", "not_measured")


@dataclass(frozen=True)
class SignOff:
    """Who reviewed the release and what they decided: ``decision`` one of
    :data:`DECISIONS` (None: not decided yet), ``conditions`` the conditions of sharing
    (required when approving with conditions), ``signed`` the date of the decision."""

    reviewers: tuple[str, ...] = ()
    decision: str | None = None
    conditions: tuple[str, ...] = ()
    signed: dt.date | None = None

    def __post_init__(self) -> None:
        if self.decision is not None and self.decision not in DECISIONS:
            raise ParameterError(
                f"The decision must be one of {', '.join(DECISIONS)}, not {self.decision!r}.",
                code="report.decision_choice",
                value=str(self.decision),
                allowed=list(DECISIONS),
            )
        if self.decision == "approve_with_conditions" and not self.conditions:
            raise ParameterError(
                "Approving with conditions needs the conditions of sharing.",
                code="report.decision_conditions",
            )
        if self.decision is not None and not self.reviewers:
            raise ParameterError(
                "A decision needs the names of the reviewers who took it.",
                code="report.decision_reviewers",
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviewers": list(self.reviewers),
            "decision": self.decision,
            "conditions": list(self.conditions),
            "signed": None if self.signed is None else self.signed.isoformat(),
        }


def _check_status(checks: Sequence[Mapping[str, Any]], name: str, attribute: Any = None) -> Any:
    for check in checks:
        if check.get("check") == name and check.get("attribute") == attribute:
            return check
    return None


def _criterion(
    figures: Mapping[str, Any] | None,
    check: Mapping[str, Any] | None,
    attack: str,
    supporting: list[dict[str, Any]],
    note: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """One criterion's evidence: the measured risk with its interval and baseline, the
    attack, the limit and status (``not_measured`` with ``note`` when it could not be
    measured; ``not_checked`` when measured but no limit applies)."""
    if not figures:
        return {
            "status": "not_measured",
            "attack": attack,
            "note": dict(note or {"note": "gdpr_left_out"}),
            "supporting": supporting,
        }
    return {
        "status": check.get("status") if check else "not_checked",
        "attack": attack,
        "risk": figures.get("risk"),
        "ci": figures.get("ci"),
        "baseline": figures.get("baseline"),
        "baseline_ci": figures.get("baseline_ci"),
        "confidence": figures.get("confidence"),
        "attacks_run": figures.get("n_attacks"),
        "successes": figures.get("n_success"),
        "threshold": check.get("threshold") if check else None,
        "warnings": list(figures.get("warnings") or []),
        "supporting": supporting,
    }


def _linkage_support(attacks: Mapping[str, Any]) -> list[dict[str, Any]]:
    strongest = attacks.get("linkage_strongest") or {}
    linkage = attacks.get("linkage") or {}
    out = []
    if strongest:
        out.append(
            {
                "figure": "linkage_share",
                "value": strongest.get("share"),
                "interval": strongest.get("interval"),
                "method": strongest.get("method"),
            }
        )
    if linkage:
        out.append({"figure": "unique_matches", "value": linkage.get("unique_matches")})
    return out


def evidence(report: Mapping[str, Any], population: Mapping[str, Any] | None) -> dict[str, Any]:
    """The evidence of each Article 29 criterion, the population risk and the
    reconstruction, from a readiness report's ``to_dict()`` and the population figures
    of :func:`privcore.report.risk.assess_risk` (``None`` when they could not be
    measured; a mapping with ``note`` says why)."""
    checks = report.get("checks") or []
    attacks = report.get("attacks") or {}
    risks = report.get("gdpr_risks") or {}
    note = next(
        (n for n in report.get("notes") or [] if n.get("note") == "gdpr_not_measured"), None
    )
    risk = attacks.get("risk") or {}
    prosecutor = [{"figure": "prosecutor_max", "value": risk.get("prosecutor_max")}]
    prosecutor.append({"figure": "k", "value": (report.get("measurement") or {}).get("k")})
    homogeneity = attacks.get("homogeneity") or {}
    disclosed = (attacks.get("linkage") or {}).get("attribute_disclosed") or {}
    out: dict[str, Any] = {
        "singling_out": _criterion(
            risks.get("singling_out"),
            _check_status(checks, "singling_out"),
            "singling_out_queries",
            prosecutor,
            note,
        ),
        "linkability": _criterion(
            risks.get("linkability"),
            _check_status(checks, "linkability"),
            "linkability_neighbours",
            _linkage_support(attacks),
            note,
        ),
        "inference": {},
    }
    sa = (report.get("roles") or {}).get("sa") or []
    for name in sa:
        supporting = [
            {"figure": "homogeneous_records", "value": homogeneity.get("records_exposed")},
            {"figure": "disclosed_by_linkage", "value": disclosed.get(name)},
        ]
        out["inference"][name] = _criterion(
            (risks.get("inference") or {}).get(name),
            _check_status(checks, "inference", name),
            "inference_neighbours",
            supporting,
            note,
        )
    out["population"] = _population(population)
    out["reconstruction"] = _reconstruction(report, checks)
    return plain(out)


def _population(population: Mapping[str, Any] | None) -> dict[str, Any]:
    """Population uniqueness (the model chosen and the spread of the three models: they
    are estimates without a sampling interval, which the dossier says) and the
    individual risk."""
    if not population or "note" in population:
        return {"status": "not_measured", "note": dict(population or {"note": "not_in_memory"})}
    unique = population.get("population_uniqueness") or {}
    models = [v for v in (unique.get("models") or {}).values() if v is not None]
    individual = population.get("individual_risk") or {}
    return {
        "status": "measured",
        "uniqueness_share": unique.get("share"),
        "uniqueness_model": unique.get("model"),
        "models_range": [min(models), max(models)] if models else None,
        "sample_uniques": unique.get("sample_uniques"),
        "expected_reidentifications": individual.get("expected_reidentifications"),
        "individual_max": individual.get("max"),
        "sampling_fraction": population.get("sampling_fraction"),
        "sampling_fraction_source": population.get("sampling_fraction_source"),
    }


def _reconstruction(report: Mapping[str, Any], checks: Sequence[Mapping[str, Any]]) -> dict:
    found = (report.get("findings") or {}).get("reconstruction")
    if not found:
        return {"status": "not_measured", "note": {"note": "no_tables_published"}}
    if not found.get("measured"):
        return {"status": "not_measured", "note": found.get("note") or {}}
    check = _check_status(checks, "reconstructed_share")
    return {
        "status": check.get("status") if check else "not_checked",
        "exact_share": found.get("exact_share"),
        "within_tolerance_share": found.get("within_tolerance_share"),
        "reidentified_share": found.get("reidentified_share"),
        "tables": found.get("tables"),
        "timed_out": found.get("timed_out"),
        "threshold": check.get("threshold") if check else None,
    }


def intruder_record(
    report: Mapping[str, Any],
    context: ReleaseContext,
    *,
    background: Mapping[str, Any] | None = None,
    register: Mapping[str, Any] | None = None,
    intruder_register: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The motivated intruder test as a record: the intruder's assumed knowledge (the
    context's ``attacker_knowledge``; the columns named there that are in the release but
    not tagged quasi-identifiers are listed in ``knowledge_not_qi``: the attacks did not
    use them, so the record says so), and what each attack achieved — with the linkage
    of a register the intruder holds (``intruder_register``: the run of
    :func:`privcore.report.intruder.register_linkage`) when one was given."""
    roles = report.get("roles") or {}
    qi = [str(c) for c in roles.get("qi") or []]
    columns = (
        set(qi)
        | set(roles.get("sa") or [])
        | set((report.get("findings") or {}).get("other_columns") or [])
    )
    knowledge = list(context.attacker_knowledge)
    attacks = report.get("attacks") or {}
    linkage = attacks.get("linkage") or {}
    strongest = attacks.get("linkage_strongest") or {}
    homogeneity = attacks.get("homogeneity") or {}
    roll = attacks.get("roll") or {}
    runs: list[dict[str, Any]] = [
        {
            "attack": "linkage_roll",
            "knowledge": list(roll.get("qi") or qi),
            "targets": linkage.get("targets"),
            "achieved": strongest.get("reidentified", linkage.get("reidentified")),
            "share": strongest.get("share"),
            "interval": strongest.get("interval"),
            "roll_size": roll.get("size"),
            "seed": roll.get("seed"),
        },
        *([dict(intruder_register)] if intruder_register is not None else []),
        {
            "attack": "homogeneity",
            "knowledge": qi,
            "achieved": homogeneity.get("records_exposed"),
            "share": homogeneity.get("records_exposed_share"),
            "classes": homogeneity.get("classes_exposed"),
        },
    ]
    if background is not None:
        runs.append({"attack": "background_knowledge", "knowledge": qi, **dict(background)})
    reconstruction = (report.get("findings") or {}).get("reconstruction") or {}
    if reconstruction.get("measured"):
        runs.append(
            {
                "attack": "reconstruction",
                "knowledge": list(reconstruction.get("tables") or []),
                "share": reconstruction.get("exact_share"),
                "achieved": reconstruction.get("reidentified"),
            }
        )
    if register is not None:
        runs.append({"attack": "earlier_releases", "knowledge": qi, **dict(register)})
    return plain(
        {
            "knowledge": knowledge,
            "knowledge_not_qi": [k for k in knowledge if k in columns and k not in qi],
            "registers": [k for k in knowledge if k not in columns],
            "qi": qi,
            "attacks": runs,
        }
    )


def background_figures(release: Any, qi: Sequence[str], sa: Sequence[str]) -> dict[str, Any]:
    """The background-knowledge attack (one wrong value ruled out per record, the
    worst case) on each sensitive attribute: the records whose true value the intruder
    is at least 80 % sure of, their share, and the largest posterior."""
    from privcore.attacks.background import background_attack

    out: dict[str, Any] = {"attributes": {}}
    for name in sa:
        try:
            summary = background_attack(release, qi, name, m=1).summary
        except PrivcoreError as exc:
            out["attributes"][name] = {"error": exc.code}
            continue
        out["attributes"][name] = {
            "achieved": summary.get("records_at_risk"),
            "share": summary.get("records_at_risk_share"),
            "max_posterior": summary.get("max_posterior"),
            "tau": summary.get("tau"),
        }
    achieved = [a.get("achieved") or 0 for a in out["attributes"].values()]
    out["achieved"] = max(achieved) if achieved else 0
    return plain(out)


def population_figures(original: Any, release: Any, qi: Sequence[str], sa: Sequence[str]) -> dict:
    """Population uniqueness and individual risk of the release (``assess_risk`` without
    the Article 29 attacks, which the report measured already), or ``{"note": code}``
    when they cannot be measured."""
    from privcore.report.risk import assess_risk, not_measured

    try:
        return assess_risk(original, release, qi, sa, gdpr=False).to_dict()
    except PrivcoreError as exc:
        return {"note": "population_not_measured", "params": not_measured(exc)}


def dossier_of(
    report: Any,
    context: ReleaseContext,
    chosen: ContextThresholds,
    *,
    original: Any = None,
    release: Any = None,
    **given: Any,
) -> dict[str, Any]:
    """:func:`build_dossier` with the figures only the tables give: the population risk
    and the background-knowledge attack of ``release`` (a DataFrame, its rows matched with
    ``original``'s as the report matched them); when the tables stayed in their engine
    (None), both are said to be not measured. ``given``: the other arguments of
    :func:`build_dossier`."""
    data = report.to_dict() if hasattr(report, "to_dict") else dict(report)
    roles = data.get("roles") or {}
    qi, sa = list(roles.get("qi") or []), list(roles.get("sa") or [])
    if original is None or release is None:
        population: Mapping[str, Any] = {"note": "not_in_memory"}
        background: Mapping[str, Any] = {"note": "not_in_memory"}
    else:
        population = population_figures(original, release, qi, sa)
        background = background_figures(release, qi, sa)
    return build_dossier(
        data, context, chosen, population=population, background=background, **given
    )


def dossier_fingerprint(dossier: Mapping[str, Any]) -> str:
    """SHA-256 of the dossier's canonical JSON (keys sorted, UTF-8, no spaces), the
    ``dossier_sha256`` field left out: recomputing it on a dossier's JSON shows whether
    anything in it changed since it was written."""
    body = {k: v for k, v in dossier.items() if k != "dossier_sha256"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify_dossier(dossier: Mapping[str, Any]) -> bool:
    """Whether a dossier's JSON still has the fingerprint it was written with."""
    return dossier.get("dossier_sha256") == dossier_fingerprint(dossier)


def build_dossier(
    report: Any,
    context: ReleaseContext,
    chosen: ContextThresholds,
    *,
    sign_off: SignOff | None = None,
    population: Mapping[str, Any] | None = None,
    background: Mapping[str, Any] | None = None,
    register: Mapping[str, Any] | None = None,
    intruder_register: Mapping[str, Any] | None = None,
    files: Mapping[str, Any] | None = None,
    reproduction: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The dossier of a release as a JSON-safe mapping (see the module): the readiness
    ``report`` (a :class:`~privcore.report.ReadinessReport` or its ``to_dict()``), the
    ``context`` and the thresholds it ``chose`` (the report must have been checked
    against them), the evidence, the intruder record (with the linkage of the
    ``intruder_register`` when given), the register's findings, the
    ``sign_off``, the fingerprints of the input, the release and the ``files`` given
    (spec, hierarchies: name → SHA-256), the ``reproduction`` files written with it
    (``script``, ``notebook``: their names) and the dossier's own fingerprint."""
    data = report.to_dict() if hasattr(report, "to_dict") else dict(report)
    checked = data.get("thresholds") or {}
    for choice in chosen.choices:
        if checked.get(choice.name) != choice.value:
            raise ParameterError(
                f"The report was checked against {choice.name} = {checked.get(choice.name)}, "
                f"not the {choice.value:g} its context chose: assess the release again.",
                code="report.context_thresholds_differ",
                threshold=choice.name,
            )
    sign_off = sign_off or SignOff(reviewers=context.reviewers)
    prints = {
        "input": (data.get("fingerprint") or {}).get("sha256"),
        "release": (data.get("release_fingerprint") or {}).get("sha256"),
        **{str(k): v for k, v in (files or {}).items()},
    }
    dossier = {
        "format": DOSSIER_FORMAT,
        "context": context.to_dict(),
        "thresholds_chosen": [
            {"name": c.name, "value": c.value, "source": c.source, "reason": c.reason}
            for c in chosen.choices
        ],
        "evidence": evidence(data, population),
        "intruder": intruder_record(
            data,
            context,
            background=background,
            register=register,
            intruder_register=intruder_register,
        ),
        "register": dict(register) if register is not None else {"status": "not_asked"},
        "sign_off": sign_off.to_dict(),
        "decision_against_verdict": _against(sign_off.decision, data.get("verdict")),
        "fingerprints": prints,
        "reproduction": dict(reproduction or {}),
        "report": data,
    }
    dossier = plain(dossier)
    dossier["dossier_sha256"] = dossier_fingerprint(dossier)
    return dossier


def _against(decision: str | None, verdict: Any) -> bool:
    """True when the reviewers approve a release the figures find not ready, or reject
    one they find ready: the dossier then says so beside the decision."""
    if decision is None:
        return False
    approved = decision != "reject"
    return approved != (verdict != "not_ready")
