"""AppTest: measurement and page details (issue 15) — one GCP for one release on the
Anonymize and Privacy level pages; models nobody chose are information, not failures."""

from __future__ import annotations

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions


def go(at, page: str):
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    no_exceptions(at)
    return at


def open_app(active: str = "hospital"):
    at = new_app()
    at.session_state["workbench"].active = active
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def measure(at):
    next(b for b in at.button if b.label == "Measure").click().run()
    no_exceptions(at)
    return at


def cards(at) -> list[str]:
    return [m.value for m in at.markdown if ":material/" in m.value]


def test_a_mondrian_release_has_one_gcp_on_both_pages():
    """Mondrian releases ranges (Age, ZIP of the nine patients), no hierarchy labels: the
    Privacy level page reads the GCP from the released cells, as Mondrian computes it."""
    at = go(open_app(), "anonymize.py")
    at.slider(key="an_k").set_value(3).run()
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    on_anonymize = metrics(at)["GCP"]
    release = at.session_state["workbench"].last_release
    assert release.algorithm == "mondrian" and on_anonymize != "—"
    assert on_anonymize == f"{release.extra_loss['ncp']:.3f}"  # Mondrian's own NCP
    go(at, "privacy_level.py")
    measure(at)
    assert metrics(at)["GCP"] == on_anonymize
    assert history.list_runs(kind="measure")[0]["results"]["loss"]["gcp"] == release.loss["gcp"]


def test_models_nobody_chose_are_information_not_failures():
    """The textbook release (an uploaded table: no request of its own): k is judged at
    k ≥ 5 by default; l and t are shown as what the release achieves — t = 0.375 for
    Salary (ordered distance, SPEC §2) — and fail nothing until a threshold is ticked."""
    at = go(open_app(), "privacy_level.py")
    measure(at)
    shown = cards(at)
    assert any("k ≥ 5" in c and ":red[" in c for c in shown)
    assert not any("t ≤" in c for c in shown)
    assert any("t = 0.375" in c and ":blue[" in c for c in shown)
    assert sum(":red[" in c for c in shown) == 1  # only the k verdict fails
    assert history.list_runs(kind="measure")[0]["params"]["t"] is None
    # ticking t-closeness asks for a verdict: now t ≤ 0.2 fails on Salary
    at.checkbox(key="pl_use_t").check().run()
    measure(at)
    shown = cards(at)
    assert any("t ≤ 0.2" in c and ":red[" in c for c in shown)
    assert history.list_runs(kind="measure")[0]["params"]["t"] == 0.2
    # unticking k leaves nothing judged about k: its achieved value is information
    at.checkbox(key="pl_use_k").uncheck().run()
    measure(at)
    shown = cards(at)
    assert not any("k ≥" in c for c in shown)
    assert any("k = 3" in c and ":blue[" in c for c in shown)


def test_a_release_made_here_is_judged_by_the_models_it_was_made_with():
    at = go(open_app(), "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    at.checkbox(key="an_use_l").check().run()
    at.number_input(key="an_l").set_value(2.0).run()
    at.slider(key="an_k").set_value(3).run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    go(at, "privacy_level.py")
    assert at.number_input(key="pl_k").value == 3
    measure(at)
    shown = cards(at)
    assert any("k ≥ 3" in c and ":green[" in c for c in shown)
    assert any("l ≥ 2" in c for c in shown)
    assert not any("t ≤" in c for c in shown)
    assert any("t = " in c and ":blue[" in c for c in shown)  # t: information
