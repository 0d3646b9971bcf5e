"""The context of a release (privcore.report.context): read from a JSON object, every
key checked, and the thresholds its access model chooses, worked out by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from privcore.errors import ParameterError
from privcore.report.context import (
    ACCESS_RISK,
    RISK_SOURCE,
    ReleaseContext,
    context_thresholds,
)

FULL = {
    "recipient": "University hospital research group",
    "access": "licensed",
    "purpose": "readmission study",
    "attacker_knowledge": ["ZIP", "Age", "voter roll"],
    "jurisdiction": "gdpr",
    "review_date": "2027-01-31",
    "expiry_date": "2027-12-31",
    "reviewers": ["A. Reviewer", "B. Officer"],
}


def _code(data) -> str:
    with pytest.raises(ParameterError) as caught:
        ReleaseContext.from_mapping(data)
    return caught.value.code


def test_a_full_context_is_read_and_written_back_as_given():
    context = ReleaseContext.from_mapping(FULL)
    assert context.access == "licensed" and context.jurisdiction == "gdpr"
    assert context.attacker_knowledge == ("ZIP", "Age", "voter roll")
    assert context.review_date == dt.date(2027, 1, 31)
    assert context.to_dict() == FULL
    assert ReleaseContext.from_mapping(context.to_dict()) == context


def test_only_recipient_and_access_are_required():
    context = ReleaseContext.from_mapping({"recipient": " the public ", "access": "public"})
    assert context.recipient == "the public" and context.reviewers == ()
    assert context.to_dict() == {"recipient": "the public", "access": "public"}
    assert _code({"recipient": "the public"}) == "report.context_missing"
    assert _code({"access": "public", "recipient": "  "}) == "report.context_missing"


def test_bad_contexts_are_refused_in_words():
    with pytest.raises(ParameterError, match=r"Unknown key.*colour"):
        ReleaseContext.from_mapping({**FULL, "colour": "red"})
    assert _code([FULL]) == "report.context_not_object"
    assert _code({**FULL, "access": "open"}) == "report.context_choice"
    assert _code({**FULL, "jurisdiction": "mars"}) == "report.context_choice"
    assert _code({**FULL, "review_date": "31/01/2027"}) == "report.context_date"
    assert _code({**FULL, "reviewers": [1, 2]}) == "report.context_kind"
    assert _code({**FULL, "recipient": 7}) == "report.context_kind"
    # reviewed after the permission ends: the review must come first
    with pytest.raises(ParameterError, match="2028-01-01 comes after") as caught:
        ReleaseContext.from_mapping({**FULL, "review_date": "2028-01-01"})
    assert caught.value.code == "report.context_dates"


def test_one_name_may_be_given_as_a_text():
    context = ReleaseContext.from_mapping({**FULL, "reviewers": "A. Reviewer"})
    assert context.reviewers == ("A. Reviewer",)


def test_the_access_model_sets_the_highest_risk_and_the_class_size_follows():
    public = ReleaseContext.from_mapping({"recipient": "anyone", "access": "public"})
    chosen = context_thresholds(public)
    # 0.09 for a public release: k = ⌈1 / 0.09⌉ = ⌈11.1⌉ = 12
    assert chosen.thresholds.max_prosecutor == 0.09 and chosen.thresholds.min_k == 12
    [choice] = chosen.choices
    assert choice.name == "max_prosecutor" and choice.source == RISK_SOURCE
    # a recipient bound by an agreement, or in an enclave: 0.2, k = 5
    for access in ("licensed", "enclave"):
        context = ReleaseContext.from_mapping({"recipient": "a group", "access": access})
        assert context_thresholds(context).thresholds.min_k == 5
        assert ACCESS_RISK[access] == 0.2
    # the other limits keep their defaults, following the prosecutor limit
    assert chosen.thresholds.max_singling_out == 0.09


def test_overriding_the_context_needs_a_reason_that_is_kept():
    public = ReleaseContext.from_mapping({"recipient": "anyone", "access": "public"})
    with pytest.raises(ParameterError) as caught:
        context_thresholds(public, {"min_k": 3})
    assert caught.value.code == "report.context_override_reason"
    chosen = context_thresholds(public, {"min_k": 20}, {"min_k": "highly sensitive data"})
    # k = 20 given: the prosecutor limit follows, 1/20 = 0.05
    assert chosen.thresholds.min_k == 20 and chosen.thresholds.max_prosecutor == 0.05
    [choice] = chosen.choices
    assert choice.reason == "highly sensitive data" and choice.source == ""
    # a limit the context does not set needs no reason
    other = context_thresholds(public, {"min_l": 3})
    assert other.thresholds.min_l == 3 and other.thresholds.min_k == 12


def test_published_tables_are_lists_of_columns():
    from privcore.report.context import ReleaseContext, published_tables

    given = {"recipient": "r", "access": "public", "published_tables": [["Age", " Disease"]]}
    context = ReleaseContext.from_mapping(given)
    assert context.published_tables == (("Age", "Disease"),)
    assert context.to_dict()["published_tables"] == [["Age", "Disease"]]
    assert published_tables(None) == () and published_tables([["A"], ["A"]]) == (("A",),)
    for bad in ("Age,Disease", [["Age", "Age"]], [[]], [["Age", 3]], [[" "]]):
        with pytest.raises(ParameterError) as caught:
            published_tables(bad)
        assert caught.value.code == "report.context_kind"
