"""AppTest: the workspace — the shelf of named releases, one release picker on the
assessing pages, results that name their release and say when they are out of date,
controls kept across pages, runs only when asked, verdicts that say what to do, and
releases whose rows are not paired with the original's."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions, open_tab

HHMM = r"\d\d:\d\d"


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


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def wb(at):
    return at.session_state["workbench"]


def anonymize_runs() -> list[dict]:
    return history.list_runs(kind="anonymize")


# --------------------------------------------------------------------------- estimates


def test_the_expected_duration_of_a_run():
    from ui.anonymize.duration import expected_nodes, expected_seconds, lattice_shape

    # 1,000 rows, 2 QIs, a lattice of 6 × 4 = 24 nodes of height 5 + 3 = 8
    assert expected_nodes("datafly", 24, 8, 2) == 9
    assert expected_nodes("samarati", 24, 8, 2) == 3  # ⌈0.11 · 24⌉
    assert expected_nodes("optimal", 24, 8, 2) == 24  # 3 · 9 · 2 = 54, at most the lattice
    # 1,000 · 2 · (4e-7 + 1.1e-9 · 24) = 8.528e-4 s
    assert expected_seconds("optimal", 1000, 2, 24, 8) == pytest.approx(8.528e-4)
    # with a suppression limit the optimal search prunes less: × 5; Datafly climbs one path
    assert expected_seconds("optimal", 1000, 2, 24, 8, 0.05) == pytest.approx(4.264e-3)
    assert expected_seconds("datafly", 1000, 2, 24, 8, 0.05) == expected_seconds(
        "datafly", 1000, 2, 24, 8
    )
    # Mondrian: 1,000 · log2(1,001) · 2 · 7.8e-8 = 1,000 · 9.96722 · 1.56e-7 = 1.55489e-3 s
    assert expected_seconds("mondrian", 1000, 2, 24, 8) == pytest.approx(1.55489e-3, rel=1e-5)
    # KACA: 1,000 · 2 · 2e-6 = 4e-3 s
    assert expected_seconds("kaca", 1000, 2, 24, 8) == pytest.approx(4e-3)
    from privcore.data import load_sample

    adult, schema = load_sample("adult")
    size, height = lattice_shape(schema, schema.quasi_identifiers)
    assert (size, height) == (4320, 16)  # (2·5·2·3·4·3·3·2) nodes, heights 1+4+1+2+3+2+2+1
    quick = {
        a: expected_seconds(a, adult.n_rows, 8, size, height) <= 1.0
        for a in ("datafly", "samarati", "incognito", "optimal", "mondrian", "kaca")
    }
    assert quick == {
        "datafly": True,
        "samarati": True,  # about a tenth of the lattice: about 0.2 s
        "incognito": True,
        "optimal": True,
        "mondrian": True,
        "kaca": True,  # about 0.5 s
    }
    # at the default suppression limit (5 %) the optimal search takes about a second
    # (1.3 s measured): 30,162 · 8 · (4e-7 + 1.1e-9 · 432) · 5 = 1.02 s, not live
    assert expected_seconds("optimal", adult.n_rows, 8, size, height, 0.05) == pytest.approx(
        1.0240602, rel=1e-6
    )


# --------------------------------------------------------------------------- the shelf


def _entry(wb_, name: str, data: str = "hospital", made: bool = True):
    from ui.common.state import ShelfRelease

    frame = pd.DataFrame({"a": [1]})
    return wb_.add_release(
        lambda new_id: ShelfRelease(
            id=new_id,
            name=name,
            data=data,
            source="made" if made else "file",
            frame=frame,
            qi=("a",),
            sa=(),
            fingerprint=new_id,
            made_at="14:32",
            release=object() if made else None,
            aligned=made,
        )
    )


def test_the_shelf_names_releases_uniquely_and_never_drops_one_a_page_shows():
    from ui.common.state import MAX_RELEASES, Workbench

    shelf = Workbench(active="hospital")
    first, _ = _entry(shelf, "Mondrian k=5 · 14:32")
    second, _ = _entry(shelf, "Mondrian k=5 · 14:32")
    assert second.name == "Mondrian k=5 · 14:32 (2)"
    upload, _ = _entry(shelf, "release.csv", made=False)
    # under review: the one picked, else the newest made here (not an upload)
    assert shelf.reviewed() is second
    shelf.under_review["hospital"] = first.id
    shelf.made["hospital"] = upload.id
    dropped_all = []
    for n in range(MAX_RELEASES):
        _, dropped = _entry(shelf, f"r{n}")
        dropped_all += dropped
    assert len(shelf.shelf) == MAX_RELEASES
    assert dropped_all[0] == "Mondrian k=5 · 14:32 (2)"  # the oldest no page shows
    assert shelf.find_release(first.id) and shelf.find_release(upload.id)
    shelf.rename_release(upload.id, "r5")
    assert upload.name == "r5 (2)"
    shelf.remove_release(first.id)
    assert "hospital" not in shelf.under_review
    assert shelf.reviewed().name == f"r{MAX_RELEASES - 1}"


# --------------------------------------------------------------------------- navigation


def test_controls_and_release_are_kept_across_pages_and_nothing_runs_again():
    at = go(open_app(), "anonymize.py")
    assert not anonymize_runs()  # opening the page runs nothing
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    at.checkbox(key="an_use_l").check().run()
    at.number_input(key="an_l").set_value(2.0).run()
    at.slider(key="an_k").set_value(3).run()
    assert not anonymize_runs()  # nor does any change before the first run
    at.button(key="an_run").click().run()
    made = wb(at).last_release
    runs = len(anonymize_runs())
    assert made is not None and made.algorithm == "mondrian"
    name = wb(at).find_release(wb(at).made["hospital"]).name
    # the page's default suppression limit (5 %) is left out of the name
    assert re.fullmatch(rf"Mondrian k=3 l=2 · {HHMM}", name)
    for page in ("privacy_level.py", "attack.py", "report.py", "history.py"):
        go(at, page)
    go(at, "anonymize.py")
    assert at.selectbox(key="an_algorithm").value == "mondrian"
    assert at.slider(key="an_k").value == 3
    assert at.checkbox(key="an_use_l").value and at.number_input(key="an_l").value == 2.0
    assert wb(at).last_release is made
    assert len(anonymize_runs()) == runs  # nothing ran again
    assert at.text_input(key="an_name").value == name


def test_the_assessing_pages_keep_their_controls_too():
    at = go(open_app(), "privacy_level.py")
    at.number_input(key="pl_k").set_value(3).run()
    go(at, "report.py")
    at.number_input(key="rp_min_k").set_value(4).run()
    go(at, "privacy_level.py")
    assert at.number_input(key="pl_k").value == 3
    go(at, "report.py")
    assert at.number_input(key="rp_min_k").value == 4


def test_a_slow_algorithm_runs_only_on_the_button(monkeypatch):
    from ui.anonymize import duration as anonymize_view

    # every algorithm runs on Adult within a second now: a tighter limit makes Samarati
    # (about 0.2 s expected) one that runs on the button only
    monkeypatch.setattr(anonymize_view, "LIVE_LIMIT_S", 0.05)
    at = go(open_app("adult"), "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("samarati").run()
    assert any("press Anonymize to run it" in c.value for c in at.caption)
    at.slider(key="an_k").set_value(6).run()
    assert not anonymize_runs()


# --------------------------------------------------------------------------- two releases


def test_each_page_assesses_the_release_its_picker_names():
    at = go(open_app(), "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("mondrian")
    at.button(key="an_run").click().run()  # a run: a release
    first = wb(at).find_release(wb(at).made["hospital"])
    go(at, "privacy_level.py")
    assert at.selectbox(key="pl_release").value == first.id
    button(at, "Measure").click().run()
    assert any(f"Computed for «{first.name}»" in c.value for c in at.caption)
    # a second release: the page still assesses the first, and says so on Anonymize
    go(at, "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("datafly").run()
    second = wb(at).find_release(wb(at).made["hospital"])
    assert second is not first and wb(at).reviewed() is first
    assert any(f"assess «{first.name}»" in c.value for c in at.caption)
    go(at, "privacy_level.py")
    assert at.selectbox(key="pl_release").value == first.id
    assert any(f"Computed for «{first.name}»" in c.value for c in at.caption)
    # picking the second: the first's result is not shown for it
    at.selectbox(key="pl_release").set_value(second.id).run()
    assert not any("Computed for" in c.value for c in at.caption)
    assert not metrics(at)
    button(at, "Measure").click().run()
    assert any(f"Computed for «{second.name}»" in c.value for c in at.caption)
    # the Attack and Report pages name the same release
    for page, key in (("attack.py", "at_release"), ("report.py", "rp_release")):
        go(at, page)
        assert at.selectbox(key=key).value == second.id
    at.button(key="rp_go").click().run()
    report = at.session_state["_results"][("report", second.id)]["value"]["report"]
    assert report.release_fingerprint["name"] == second.name
    # back to the first: its own result again
    go(at, "privacy_level.py")
    at.selectbox(key="pl_release").set_value(first.id).run()
    assert any(f"Computed for «{first.name}»" in c.value for c in at.caption)


def test_a_result_is_out_of_date_when_its_parameters_or_its_release_name_change():
    at = go(open_app(), "privacy_level.py")
    button(at, "Measure").click().run()
    assert not any("Out of date" in w.value for w in at.warning)
    at.number_input(key="pl_k").set_value(3).run()
    assert any("Out of date: k: 5 → 3" in w.value for w in at.warning)
    button(at, "Measure").click().run()
    assert not any("Out of date" in w.value for w in at.warning)
    picked = wb(at).reviewed()
    # renamed on the shelf (the Anonymize page): the result named the old name
    go(at, "anonymize.py")
    at.selectbox(key="an_shelf_chosen").set_value(picked.id).run()
    at.text_input(key=f"an_shelf_name_{picked.id}").input("approved by DPO").run()
    at.button(key="an_shelf_rename").click().run()
    assert picked.name == "approved by DPO"
    go(at, "privacy_level.py")
    assert any("→ approved by DPO" in w.value for w in at.warning)


# --------------------------------------------------------------------------- actions


def test_a_failed_verdict_tries_its_fix_on_the_anonymize_page():
    at = go(open_app(), "privacy_level.py")
    button(at, "Measure").click().run()  # the textbook's release: k = 3 < 5
    assert any("k ≥ 5" in m.value and "is not met" in m.value for m in at.markdown)
    fix = next(b for b in at.button if b.label == "Try k = 5 on the Anonymize page")
    fix.click().run()
    no_exceptions(at)
    # the Anonymize page opened with k = 5 and ran it
    assert at.slider(key="an_k").value == 5
    [run] = anonymize_runs()
    assert run["params"]["k"] == 5 and run["status"] == "ok"
    assert wb(at).last_release.measurement.to_dict()["k"] >= 5


def test_a_tried_fix_becomes_the_release_the_other_pages_assess():
    at = go(open_app(), "privacy_level.py")
    button(at, "Measure").click().run()  # the textbook's release: k = 3 < 5
    textbook = wb(at).reviewed()
    button(at, "Try k = 5 on the Anonymize page").click().run()
    no_exceptions(at)
    made = wb(at).find_release(wb(at).made["hospital"])
    assert made is not None and made is not textbook and made.request["k"] == 5
    # the same state change as "Review this release"
    assert wb(at).under_review["hospital"] == made.id and wb(at).reviewed() is made
    assert any(c.value == "The Privacy level, Attack and Report pages assess this release."
               for c in at.caption)  # fmt: skip
    assert not [b for b in at.button if b.label == "Review this release"]
    for page, key in (
        ("privacy_level.py", "pl_release"),
        ("attack.py", "at_release"),
        ("report.py", "rp_release"),
    ):
        go(at, page)
        assert at.selectbox(key=key).value == made.id, page


def test_a_report_condition_is_fixed_by_its_button():
    at = go(open_app(), "anonymize.py")
    at.slider(key="an_k").set_value(3)
    at.button(key="an_run").click().run()  # a release made here
    made = wb(at).find_release(wb(at).made["hospital"])
    open_tab(at, "an_view", "Download")
    at.checkbox(key=f"an_keep_order_{made.id}").check().run()
    assert made.shuffled is False  # its download keeps the original order
    go(at, "report.py")
    at.number_input(key="rp_min_k").set_value(3)
    at.number_input(key="rp_max_pl").set_value(1.0)
    at.number_input(key="rp_max_jour").set_value(1.0)
    at.number_input(key="rp_min_l").set_value(1.0)
    at.number_input(key="rp_max_disc").set_value(1.0)
    at.button(key="rp_go").click().run()
    report = at.session_state["_results"][("report", made.id)]["value"]["report"]
    codes = [c["condition"] for c in report.conditions]
    index = codes.index("row_order_download")
    at.button(key=f"rp_condition_{index}").click().run()
    assert made.shuffled is True
    assert any("Out of date: rows shuffled: no → yes" in w.value for w in at.warning)
    at.button(key="rp_go").click().run()
    report = at.session_state["_results"][("report", made.id)]["value"]["report"]
    assert not any(c["condition"].startswith("row_order") for c in report.conditions)


# --------------------------------------------------------------------------- pairing


def test_a_shuffled_upload_shows_every_figure_that_needs_no_pairing():
    textbook = pd.read_csv(ROOT / "assets" / "hospital" / "hospital_release.csv", dtype=str)
    shuffled = textbook.iloc[[4, 0, 8, 2, 6, 1, 7, 3, 5]].to_csv(index=False).encode()
    at = go(open_app(), "privacy_level.py")
    at.file_uploader(key="pl_release_upload").upload("colleague.csv", shuffled, "text/csv")
    at.run()
    assert wb(at).find_release(at.selectbox(key="pl_release").value).name == "colleague.csv"
    button(at, "Measure").click().run()
    no_exceptions(at)
    assert not at.error
    shown = metrics(at)
    assert shown["k achieved"] == "3" and shown["DR"] == "0.500"
    assert shown["Highest record risk"] == "0.333"
    assert shown["PL"] == "—" and shown["UL"] == "—"
    assert any("not paired with the original's" in i.value for i in at.info)
    [run] = history.list_runs(kind="measure")
    assert run["status"] == "ok" and run["params"]["release"] == "colleague.csv"


def test_a_small_shuffled_release_is_paired_by_exact_matching():
    at = go(open_app(), "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("mondrian")
    at.button(key="an_run").click().run()
    made = wb(at).last_release
    shuffled = made.export(shuffle=True).to_csv(index=False).encode()
    go(at, "privacy_level.py")
    at.file_uploader(key="pl_release_upload").upload("mondrian.csv", shuffled, "text/csv")
    at.run()
    at.radio(key="pl_pairing").set_value("matching").run()
    button(at, "Measure").click().run()
    no_exceptions(at)
    expected = made.measurement.to_dict()
    assert metrics(at)["PL"] == f"{expected['pl']['all']:.3f}"
    [run] = history.list_runs(kind="measure")
    assert run["params"]["pairing"] == "matching"
