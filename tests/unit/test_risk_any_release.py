"""Singling out, linkability and inference for any kind of release (SPEC §11): a
generalization, condensation's synthetic records, MDAV and noise, a DP release's
synthesized records and the training records themselves, each made from the same
training set and attacked against the same control set. Each gives figures in [0, 1]
with their intervals and baselines; publishing the records as they are is the riskiest.
Linkability needs columns that tell people apart: on these three QIs of few values it is
near 0 for every release, the records themselves included."""

from __future__ import annotations

import pytest

from privcore.anonymize import anonymize
from privcore.data import load_sample
from privcore.data.schema import Role, Schema
from privcore.dp.release import dp_release
from privcore.models import KAnonymity
from privcore.report.risk import assess_risk

QI = ["age", "education", "marital-status"]
SA = "occupation"


@pytest.fixture(scope="module")
def split():
    frame = load_sample("adult")[0].frame[[*QI, SA]].head(3000).reset_index(drop=True)
    return frame.iloc[:2400].reset_index(drop=True), frame.iloc[2400:].reset_index(drop=True)


@pytest.fixture(scope="module")
def releases(split):
    training, _ = split
    roles = {c: Role.QUASI_IDENTIFIER for c in QI} | {SA: Role.SENSITIVE}
    schema = Schema(roles, {})
    made = {"as_is": training}
    for name, options in (
        ("mondrian", {}),
        ("condensation", {}),
        ("mdav", {"max_suppression": 0.05}),  # 76 records in strata of fewer than 5
        ("noise", {"noise_level": 0.5}),
    ):
        release = anonymize(training, schema, [KAnonymity(5)], algorithm=name, **options)
        made[name] = release.frame[[*QI, SA]]
    made["dp"] = dp_release(training, QI, SA, epsilon=1.0, seed=1).records[[*QI, SA]]
    return made


@pytest.mark.parametrize("name", ["as_is", "mondrian", "condensation", "mdav", "noise", "dp"])
def test_every_release_gets_the_three_risks(name, split, releases):
    training, control = split
    found = assess_risk(training, releases[name], QI, [SA], control=control, seed=1).to_dict()
    assert found["control"]["source"] == "given"
    for result in (found["singling_out"], found["linkability"], found["inference"][SA]):
        low, high = result["ci"]
        assert 0.0 <= low <= result["risk"] <= high <= 1.0
        assert 0.0 <= result["baseline"] <= 1.0


def test_the_records_as_they_are_are_the_riskiest(split, releases):
    training, control = split
    risk = {
        name: assess_risk(training, release, QI, [SA], control=control, seed=1).to_dict()
        for name, release in releases.items()
    }
    # singling out: 0.99 for the records as they are; 0.03–0.25 for the protected ones
    assert risk["as_is"]["singling_out"]["ci"][0] > 0.9
    for name in ("mondrian", "condensation", "mdav", "noise", "dp"):
        for attack in ("singling_out",):
            assert risk[name][attack]["ci"][1] < risk["as_is"][attack]["ci"][0], (attack, name)
        ours = risk[name]["inference"][SA]["risk"]
        assert ours < risk["as_is"]["inference"][SA]["risk"], name
    # a DP release's records are drawn from noisy marginals: none singles anybody out
    assert risk["dp"]["singling_out"]["ci"][1] < 0.05


def test_held_out_risks_make_the_release_from_the_training_records_only(split):
    """``held_out_risks``: a seeded fifth held out, the maker sees only the rest, and the
    attacks run against the held-out records; publishing the training records as they
    are singles nearly everybody out."""
    from privcore.report.risk import held_out_risks

    training, _ = split
    seen: list[int] = []

    def as_is(frame):
        seen.append(len(frame))
        return frame

    found = held_out_risks(training, as_is, QI, [SA], seed=4).to_dict()
    assert seen == [1920] and found["control"] == "given"
    assert (found["training_rows"], found["control_rows"]) == (1920, 480)
    assert found["singling_out"]["ci"][0] > 0.9
    again = held_out_risks(training, as_is, QI, [SA], seed=4).to_dict()
    assert again == found  # the seed decides the split and the attacks
    from privcore.errors import ParameterError

    with pytest.raises(ParameterError) as caught:
        held_out_risks(training.head(1), as_is, QI, [SA])
    assert caught.value.code == "gdpr_risk.too_few_rows"


def test_a_dp_release_request_measures_both_methods(split, isolated_history):
    """``DpReleaseRequest(gdpr=True)``: the DP method and the k-anonymous one each made
    again from 80 % and attacked; recorded with the run, figures only."""
    from privcore import history
    from privcore.data import Dataset
    from privcore.runs import DpReleaseRequest, Inputs, run

    training, _ = split
    roles = {c: Role.QUASI_IDENTIFIER for c in QI} | {SA: Role.SENSITIVE}
    from privcore.data.hierarchy_suggestions import suggest_hierarchies

    suggested = suggest_hierarchies(training, QI)
    schema = Schema(roles, {c: s.hierarchy for c, s in suggested.items()})
    request = DpReleaseRequest(qi=tuple(QI), sa=(SA,), epsilon=1.0, k=5, gdpr=True)
    outcome = run(request, Inputs(original=Dataset(training, "adult", "csv"), schema=schema))
    risks = outcome.result.gdpr_risks
    assert set(risks) == {"dp", "k_anon"}
    for figures in risks.values():
        assert figures["control"] == "given" and figures["control_rows"] == 480
        assert 0.0 <= figures["singling_out"]["risk"] <= 1.0
    assert risks["dp"]["singling_out"]["ci"][1] < 0.1
    stored = history.get_run(outcome.run_id)
    assert stored["results"]["gdpr_risks"] == risks
    plain = run(DpReleaseRequest(qi=tuple(QI), sa=(SA,), epsilon=1.0, k=5), Inputs(
        original=Dataset(training, "adult", "csv"), schema=schema))  # fmt: skip
    assert plain.result.gdpr_risks is None and "gdpr_risks" not in plain.summary
