"""Privacy models declare what the algorithms may assume of them (monotone under
generalization and under suppression, minimal class size, size only, local recoding), and
the algorithms read those declarations, never a model's type: a toy model defined here,
through the protocol only, runs with the full-domain search, Mondrian, KACA and
condensation, and its declarations decide how they search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.classes import EquivalenceClasses, release_classes
from privcore.data import load_sample
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
)

# --------------------------------------------------------------------------- declarations


@pytest.mark.parametrize(
    ("model", "generalization", "suppression", "size_only", "size", "values"),
    [
        (KAnonymity(5), True, True, True, 5, 1),
        (DistinctLDiversity(3), True, True, False, 3, 3),
        (EntropyLDiversity(2.5), True, False, False, 3, 1),
        (EntropyLDiversity(3.0), True, False, False, 3, 1),
        (RecursiveCLDiversity(3.0, 4), True, False, False, 4, 4),
        (TCloseness(0.2), True, False, False, 1, 1),
        (TCloseness(0.2, "kl"), True, False, False, 1, 1),
    ],
)
def test_each_model_declares_its_capabilities(
    model, generalization, suppression, size_only, size, values
):
    assert model.monotone_under_generalization is generalization
    assert model.monotone_under_suppression is suppression
    assert model.size_only is size_only
    assert model.minimal_class_size == size
    assert model.minimal_distinct_values == values
    assert model.local_recoding is True


def test_checked_attributes_and_reported_distances():
    assert KAnonymity(2).checked_attributes(["a", "b"]) == ()
    assert DistinctLDiversity(2).checked_attributes(["a", "b"]) == ("a", "b")
    assert DistinctLDiversity(2, attributes=["b"]).checked_attributes(["a", "b"]) == ("b",)
    frame = pd.DataFrame({"q": ["x", "x"], "n": [1.0, 2.0], "c": ["u", "v"]})
    classes = release_classes(frame, ["q"], ["n", "c"])
    assert TCloseness(0.5).reported_distances(classes) == {"n": "ordered", "c": "equal"}
    assert TCloseness(0.5, "kl", ["c"]).reported_distances(classes) == {"c": "kl"}
    assert KAnonymity(2).reported_distances(classes) == {}


# --------------------------------------------------------------------------- a toy model


@dataclass(frozen=True)
class EvenAndDiverse(PrivacyModel):
    """Every class holds an even number of records and at least two distinct values of
    each sensitive attribute. A union of such classes is one too (monotone under
    generalization); a passing class merged with an odd one is odd (not monotone under
    suppression)."""

    name: ClassVar[str] = "even and diverse"
    monotone_under_generalization: ClassVar[bool] = True

    @property
    def minimal_class_size(self) -> int:
        return 2

    @property
    def minimal_distinct_values(self) -> int:
        return 2

    def checked_attributes(self, sensitive):
        return tuple(sensitive)

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        passed = classes.sizes % 2 == 0
        for sa in classes.sensitive:
            passed &= classes.value_counts(sa).per_class() >= 2
        return passed

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"odd_classes": int((classes.sizes % 2).sum())}

    def requirement(self) -> str:
        return "even classes of ≥ 2 values"

    def to_dict(self) -> dict[str, Any]:
        return {"model": "even_and_diverse"}


@dataclass(frozen=True)
class EvenAndDiverseNotMonotone(EvenAndDiverse):
    """The same check, declared without monotonicity: no node may be tagged."""

    monotone_under_generalization: ClassVar[bool] = False


@dataclass(frozen=True)
class EvenAndDiverseFullDomainOnly(EvenAndDiverse):
    local_recoding: ClassVar[bool] = False


def even_and_diverse(classes: EquivalenceClasses, sa: str) -> bool:
    return bool(
        (classes.sizes % 2 == 0).all() and (classes.value_counts(sa).per_class() >= 2).all()
    )


@pytest.fixture(scope="module")
def small_adult():
    dataset, schema = load_sample("adult")
    qi = ["age", "sex", "race", "marital-status"]
    frame = dataset.frame[[*qi, "occupation"]].iloc[:200].reset_index(drop=True)
    roles = {**dict.fromkeys(qi, "quasi_identifier"), "occupation": "sensitive"}
    return frame, Schema(roles, {c: schema.hierarchies[c] for c in qi})


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "mondrian", "kaca", "condensation"])
def test_algorithms_run_a_toy_model_through_the_protocol(small_adult, algorithm):
    frame, schema = small_adult
    release = anonymize(frame, schema, [EvenAndDiverse()], algorithm=algorithm)
    assert release.satisfied
    verdict = release.to_dict()["verdicts"][0]
    assert verdict["model"] == "even and diverse" and verdict["parameters"] == {
        "model": "even_and_diverse"
    }
    if algorithm == "condensation":  # the groups hold the model, not equal QI cells
        assert (np.bincount(release.class_ids) % 2 == 0).all()
    else:
        assert even_and_diverse(release.measurement.classes, "occupation")
        assert release.n_suppressed == 0


def test_lattice_pruning_follows_the_declared_monotonicity(small_adult):
    frame, schema = small_adult
    tagged = anonymize(frame, schema, [EvenAndDiverse()], algorithm="optimal")
    checked = anonymize(frame, schema, [EvenAndDiverseNotMonotone()], algorithm="optimal")
    size = tagged.params["lattice_size"]
    assert tagged.node == checked.node  # the declaration holds: tagging loses nothing
    assert tagged.params["evaluated_nodes"] < size
    assert checked.params["evaluated_nodes"] == size  # no node may be tagged


def test_a_budget_needs_monotonicity_under_suppression(small_adult):
    frame, schema = small_adult
    k_only = anonymize(frame, schema, [KAnonymity(2)], algorithm="optimal", max_suppression=0.02)
    toy = anonymize(frame, schema, [EvenAndDiverse()], algorithm="optimal", max_suppression=0.02)
    assert k_only.params["evaluated_nodes"] < k_only.params["lattice_size"]
    assert toy.params["evaluated_nodes"] == toy.params["lattice_size"]
    assert toy.satisfied


def test_a_full_domain_only_model_is_refused_by_local_recoding(small_adult):
    frame, schema = small_adult
    for algorithm in ("mondrian", "kaca", "condensation"):
        with pytest.raises(ParameterError) as info:
            anonymize(frame, schema, [EvenAndDiverseFullDomainOnly()], algorithm=algorithm)
        assert info.value.code == "anonymize.needs_full_domain"
        assert info.value.params["models"] == ["even and diverse"]
    assert anonymize(frame, schema, [EvenAndDiverseFullDomainOnly()]).satisfied


def test_a_declared_distinct_value_bound_refuses_the_table_early(small_adult):
    frame, schema = small_adult
    one_value = frame.assign(occupation="Sales")
    with pytest.raises(InfeasibleError) as info:
        anonymize(one_value, schema, [EvenAndDiverse()], algorithm="mondrian")
    assert info.value.code == "anonymize.l_too_large"
    assert info.value.params == {"l": 2, "column": "occupation", "distinct": 1}


# --------------------------------------------------------------------------- the '*' group


@dataclass(frozen=True)
class Watched(PrivacyModel):
    """A model that records every partition it is asked about."""

    size: int
    only_size: bool
    name: ClassVar[str] = "watched"
    calls: ClassVar[list[int]] = []

    @property
    def minimal_class_size(self) -> int:
        return self.size

    @property
    def size_only(self) -> bool:  # type: ignore[override]
        return self.only_size

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        Watched.calls.append(classes.n_classes)
        return classes.sizes >= self.size

    def achieved(self, classes):
        return {}

    def requirement(self) -> str:
        return f"watched {self.size}"

    def to_dict(self) -> dict[str, Any]:
        return {"model": "watched"}


def star_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": ["1", "1", "1", "*", "*", "2", "2", "2"],
            "b": ["x", "x", "x", "*", "*", "y", "y", "y"],
            "s": ["u", "v", "u", "v", "u", "v", "u", "v"],
        }
    )


def test_the_star_group_is_decided_by_the_declared_class_size():
    Watched.calls.clear()
    classes = release_classes(star_table(), ["a", "b"], ["s"], models=[Watched(3, False)])
    assert classes.n_suppressed == 2  # two '*' rows are fewer than 3: suppression
    assert Watched.calls == []  # decided without measuring the group
    classes = release_classes(star_table(), ["a", "b"], ["s"], models=[Watched(2, True)])
    assert classes.n_suppressed == 0 and sorted(classes.sizes.tolist()) == [2, 3, 3]
    assert Watched.calls == []  # a size-only model passes on size
    classes = release_classes(star_table(), ["a", "b"], ["s"], models=[Watched(2, False)])
    assert classes.n_suppressed == 0
    assert Watched.calls == [1]  # measured once, as one class
