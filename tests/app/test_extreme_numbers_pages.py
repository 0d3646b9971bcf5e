"""AppTest: a table whose numeric quasi-identifier holds ±1e308, the largest float,
subnormal numbers, ±inf and a missing value, uploaded and taken through the pages —
the Hierarchies tab (suggestion, the interval, cut and rounding builders), Anonymize,
"Assess the risk" and "Generate the report". No page raises: each figure is shown, or
an error in words."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.app.conftest import ROOT, new_app, no_exceptions

NAME = "extreme.csv"


def extreme_csv(n: int = 40) -> bytes:
    rng = np.random.default_rng(3)
    age = rng.integers(18, 90, n).astype(float)
    age[:8] = [1e308, -1e308, 5e-324, -5e-324, 1.7976931348623157e308, np.nan, np.inf, -np.inf]
    income = rng.normal(50_000, 10_000, n)
    income[[8, 9]] = [1e308, -1e308]
    frame = pd.DataFrame(
        {
            "age": age,
            "city": rng.choice(["A", "B", "C"], n),
            "disease": rng.choice(["flu", "cold", "hiv"], n),
            "income": income,
        }
    )
    return frame.to_csv(index=False).encode()


def no_unexpected_error(at) -> None:
    """No exception, and no error but one in words (an unexpected one apologises)."""
    no_exceptions(at)
    assert not any("went wrong" in e.value for e in at.error), [e.value for e in at.error]


def test_hierarchies_risk_and_report_of_a_table_of_extreme_numbers():
    at = new_app("data_roles.py")
    at.file_uploader[0].upload(NAME, extreme_csv(), "text/csv")
    at.run()
    no_unexpected_error(at)
    wb = at.session_state["workbench"]
    assert wb.active == NAME and np.isinf(wb.dataset(NAME).frame["age"]).sum() == 2
    roles = {0: "quasi_identifier", 1: "quasi_identifier", 2: "sensitive", 3: "insensitive"}
    at.session_state[f"roles::{NAME}"] = {
        "edited_rows": {i: {"role": role} for i, role in roles.items()},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    no_unexpected_error(at)

    # the Hierarchies tab: the suggestion for age, then each numeric builder on it
    at.selectbox(key=f"hcol::{NAME}").set_value("age").run()
    no_unexpected_error(at)
    assert at.radio(key=f"hm::{NAME}::age").value == "intervals"
    for method in ("intervals", "cuts", "rounding"):
        at.radio(key=f"hm::{NAME}::age").set_value(method).run()
        no_unexpected_error(at)
        if method == "cuts":
            at.text_area(key="c::age").set_value("0, 1e308").run()
        at.button(key="b::age").click().run()
        no_unexpected_error(at)
    at.button(key=f"use_suggested::{NAME}").click().run()
    no_unexpected_error(at)
    hierarchies = wb.drafts[NAME].hierarchies
    assert {"age", "city"} <= set(hierarchies)
    assert hierarchies["age"].height >= 2
    at.button(key=f"confirm::{NAME}").click().run()
    no_unexpected_error(at)
    assert wb.confirmed[NAME].quasi_identifiers == ["age", "city"]

    # a release of it, then the risk section and the report on that release
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    at.selectbox(key="an_algorithm").set_value("datafly").run()
    at.button(key="an_run").click().run()
    no_unexpected_error(at)
    assert wb.last_release is not None and wb.last_release.algorithm == "datafly"

    at.switch_page(str(ROOT / "pages" / "privacy_level.py"))
    at.run()
    no_unexpected_error(at)
    at.button(key="pl_risk_assess").click().run()
    no_unexpected_error(at)
    assert not at.error, [e.value for e in at.error]
    assert any(m.label == "SUDA2 special uniques" for m in at.metric)

    at.switch_page(str(ROOT / "pages" / "report.py"))
    at.run()
    no_unexpected_error(at)
    at.button(key="rp_go").click().run()
    no_unexpected_error(at)
    assert any("ready" in m.value.lower() for m in at.markdown)
