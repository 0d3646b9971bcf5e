"""Every algorithm × every consumer: each figure shown of a release is computed for the
kinds it fits, its declared stand-in for the others, and never a false figure in place
of one that does not apply (:data:`privcore.core.kinds.CONSUMERS`)."""

from functools import cache

import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.attacks import simulate
from privcore.core.kinds import CONSUMERS, ReleaseKind, plan
from privcore.data.samples import load_sample
from privcore.models import KAnonymity
from privcore.report.readiness import article29_risks

#: how each consumer's figure is read from a release's summary (``to_dict``), its attack
#: (``Simulation.to_dict``) and its singling out / linkability / inference
READERS = {
    "gcp": lambda d, a, g: d["loss"].get("gcp"),
    "precision": lambda d, a, g: d["loss"].get("precision"),
    "whd": lambda d, a, g: d["loss"].get("whd_total"),
    "distortion": lambda d, a, g: d["loss"].get("distortion"),
    "marginal_distance": lambda d, a, g: d["loss"].get("marginal_distance"),
    "k_anonymity": lambda d, a, g: d["k"],
    "l_diversity": lambda d, a, g: d["l_distinct"] or None,
    "t_closeness": lambda d, a, g: d["t_closeness"] or None,
    "privacy_level": lambda d, a, g: d["pl"],
    "utility_loss": lambda d, a, g: d["ul"],
    "real_records": lambda d, a, g: d["real_records"],
    "suppressed_rows": lambda d, a, g: d["suppressed_rows"],
    "linkage_exact": lambda d, a, g: a["linkage"]["reidentified"],
    "linkage_distance": lambda d, a, g: (a["linkage_distance"] or {}).get("share"),
    "homogeneity": lambda d, a, g: a["homogeneity"]["records_exposed"],
    "gdpr_risks": lambda d, a, g: g,
}
#: consumers no algorithm of the Anonymize page serves (a DP release's own guarantee)
NOT_ANONYMIZATION = {"dp_guarantee"}


@cache
def _made(algorithm: str):
    dataset, schema = load_sample("adult")
    schema = schema.restricted(qi=["age", "sex", "race", "education"])
    frame = dataset.frame.head(400).reset_index(drop=True)
    release = anonymize(
        frame, schema, [KAnonymity(3)], algorithm=algorithm, max_suppression=0.9, seed=1
    )
    summary = release.to_dict()
    attack = simulate(
        frame,
        release.frame,
        list(release.qi),
        list(release.sa),
        roll_size=800,
        hierarchies=schema.hierarchies,
        blanked=release.suppressed,
    ).to_dict()
    risks, note = article29_risks(
        frame,
        release.frame,
        list(release.qi),
        list(release.sa),
        seed=1,
        hierarchies=schema.hierarchies,
    )
    return release, summary, attack, risks or note


def test_every_consumer_has_a_reader():
    assert set(READERS) | NOT_ANONYMIZATION == set(CONSUMERS)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_consumer_is_computed_for_every_algorithm(algorithm):
    release, summary, attack, risks = _made(algorithm)
    assert release.kind is ALGORITHMS[algorithm].kind
    assert summary["kind"] == release.kind.value
    for name, used in plan(release.kind).items():
        if name in NOT_ANONYMIZATION and used in NOT_ANONYMIZATION:
            continue
        assert used is not None, (algorithm, name)
        assert READERS[used](summary, attack, risks) is not None, (algorithm, name, used)
        if used != name and name in ("gcp", "precision", "whd"):
            # a loss that does not fit the release is absent, never a false 0 or 1
            assert READERS[name](summary, attack, risks) is None, (algorithm, name)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_the_headline_loss_covers_every_quasi_identifier(algorithm):
    release, summary, _, _ = _made(algorithm)
    headline = summary["loss_headline"]
    assert headline["columns"] == list(release.qi)
    assert headline["value"] is not None
    expected = {
        ReleaseKind.GENERALIZED: "gcp",
        ReleaseKind.PERTURBED: "distortion",
        ReleaseKind.SYNTHETIC: "marginal_distance",
    }[release.kind]
    assert headline["name"] == expected


def test_a_perturbed_release_is_not_reported_as_lossless():
    release, summary, _, _ = _made("mdav")
    assert release.kind is ReleaseKind.PERTURBED
    assert summary["loss"].get("gcp") is None and summary["loss"].get("precision") is None
    assert summary["loss_headline"]["value"] > 0.05


def test_noise_is_re_identified_by_distance_where_the_exact_join_finds_nobody():
    _, _, attack, _ = _made("noise")
    assert attack["linkage"]["reidentified"] == 0
    assert attack["linkage_distance"]["reidentified"] > 0
    strongest = attack["linkage_strongest"]
    assert strongest["method"] == "distance"
    low, high = strongest["interval"]
    assert low <= strongest["share"] <= high


def test_mdav_people_are_linked_to_their_own_group_but_never_singled_out():
    _, _, attack, _ = _made("mdav")
    distance = attack["linkage_distance"]
    assert distance["linked_to_own"] > 0  # the nearest group mean is their own group's
    assert distance["reidentified"] == 0  # k identical means: no certain link
    assert 0 < distance["expected_share"] <= 1 / 3 + 1e-9  # a guess among at least k = 3
