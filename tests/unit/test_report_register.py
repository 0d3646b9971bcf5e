"""The register of releases (privcore.history.register) and the combination check
(privcore.report.register): a second release that, with an earlier one, breaks k."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from privcore import history
from privcore.data import fingerprint
from privcore.errors import ParameterError
from privcore.report.register import combined_with_earlier, earlier_to_check, summary

# One small table of 8 people, quasi-identifiers age and zip.
#
#   row  rid  age  zip
#    0   r0   25  10001
#    1   r1   25  10002
#    2   r2   27  10001
#    3   r3   27  10002
#    4   r4   35  10003
#    5   r5   35  10003
#    6   r6   35  10004
#    7   r7   35  10004
ORIGINAL = pd.DataFrame(
    {
        "rid": [f"r{i}" for i in range(8)],
        "age": [25, 25, 27, 27, 35, 35, 35, 35],
        "zip": [10001, 10002, 10001, 10002, 10003, 10003, 10004, 10004],
        "disease": ["flu", "cold", "flu", "cold", "hiv", "flu", "cold", "flu"],
    }
)
INPUT_SHA = fingerprint(ORIGINAL).to_dict()["sha256"]

# Release A: age generalized to decades, zip kept. Classes over (age, zip):
#   (20-29, 10001) = {0, 2}, (20-29, 10002) = {1, 3}, (30-39, 10003) = {4, 5},
#   (30-39, 10004) = {6, 7}: every class has 2 records, A is 2-anonymous.
RELEASE_A = ORIGINAL.assign(age=["20-29"] * 4 + ["30-39"] * 4)
# Release B: age kept, zip generalized to 1000*. Classes over (age, zip):
#   (25, 1000*) = {0, 1}, (27, 1000*) = {2, 3}, (35, 1000*) = {4, 5, 6, 7}:
#   smallest class 2, B is 2-anonymous.
RELEASE_B = ORIGINAL.assign(zip=["1000*"] * 8)
# Together (effective k = |class in A ∩ class in B|):
#   row 0: {0, 2} ∩ {0, 1} = {0} → 1;  row 1: {1, 3} ∩ {0, 1} = {1} → 1;
#   row 2: {0, 2} ∩ {2, 3} = {2} → 1;  row 3: {1, 3} ∩ {2, 3} = {3} → 1;
#   row 4: {4, 5} ∩ {4, 5, 6, 7} = {4, 5} → 2; rows 5, 6, 7 likewise → 2.
#   min effective k = 1; with min_k = 2, records below k = 4 (rows 0-3), of which
#   re-identified (effective k = 1) = 4.
QI = ["age", "zip"]


def _read(path: str) -> pd.DataFrame:
    return pd.read_csv(path)


def _write(frame: pd.DataFrame, path: Path) -> dict[str, Any]:
    """Write a release file; its register fields (fingerprint as read back)."""
    frame.to_csv(path, index=False)
    return {
        "release_path": str(path),
        "release_sha256": fingerprint(_read(str(path))).to_dict()["sha256"],
        "release_name": path.name,
    }


def _entry(
    tmp_path: Path,
    frame: pd.DataFrame,
    name: str,
    *,
    recipient: str = "Lab X",
    access: str = "licensed",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "recipient": recipient,
        "access": access,
        "qi": QI,
        "sa": ["disease"],
        "key": None,
        "input_sha256": INPUT_SHA,
        **_write(frame, tmp_path / name),
        "verdict": "ready",
        "decision": "approve",
        **extra,
    }


def _check(
    release: pd.DataFrame,
    earlier: list[dict[str, Any]],
    *,
    recipient: str = "Lab X",
    access: str = "licensed",
    key: str | None = None,
    min_k: int = 2,
) -> list[dict[str, Any]]:
    return combined_with_earlier(
        release,
        qi=QI,
        key=key,
        input_sha256=INPUT_SHA,
        recipient=recipient,
        access=access,
        min_k=min_k,
        earlier=earlier,
        read=_read,
    )


def _registered(tmp_path: Path, *entries: dict[str, Any]) -> list[dict[str, Any]]:
    db = tmp_path / "history.db"
    for entry in entries:
        history.register_release(entry, path=db)
    return history.registered_releases(path=db)


# --------------------------------------------------------------------------- register


def test_register_round_trip_keeps_no_data(tmp_path: Path) -> None:
    db = tmp_path / "hist" / "history.db"
    first = _entry(tmp_path, RELEASE_A, "a.csv", report_run=7)
    second = _entry(tmp_path, RELEASE_B, "b.csv", recipient="the public", access="public")
    second["decision"] = None
    id_a = history.register_release(first, path=db)
    id_b = history.register_release(second, path=db)
    assert id_b > id_a

    rows = history.registered_releases(path=db)
    assert [r["id"] for r in rows] == [id_a, id_b]
    assert rows[0]["qi"] == QI and rows[0]["sa"] == ["disease"]
    assert rows[0]["release_path"] == str((tmp_path / "a.csv").resolve())
    assert rows[0]["report_run"] == 7 and rows[0]["decision"] == "approve"
    assert rows[1]["access"] == "public" and rows[1]["decision"] is None
    assert rows[0]["created"].endswith("+00:00")

    with sqlite3.connect(db) as conn:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(releases)")]
        stored = conn.execute("SELECT * FROM releases").fetchall()
    assert (
        tuple(columns)
        == history.RELEASE_COLUMNS
        == (
            "id",
            "created",
            "recipient",
            "access",
            "qi",
            "sa",
            "key",
            "input_sha256",
            "release_sha256",
            "release_path",
            "release_name",
            "verdict",
            "decision",
            "report_run",
            "owner",
        )
    )
    text = repr(stored)
    assert "flu" not in text and "cold" not in text  # no value of the data


def test_register_uses_the_history_path(isolated_history: Path, tmp_path: Path) -> None:
    entry = _entry(tmp_path, RELEASE_A, "a.csv")
    assert history.registered_releases() == []  # no file yet: an empty register
    assert not isolated_history.exists()
    history.register_release(entry)  # $PRIVCORE_HISTORY (set per test in conftest)
    assert [r["release_name"] for r in history.registered_releases()] == ["a.csv"]
    history.record_run("report")  # runs and releases share the file
    assert len(history.list_runs()) == 1


def test_register_refuses_data_and_bad_values(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    good = _entry(tmp_path, RELEASE_A, "a.csv")
    with pytest.raises(ParameterError) as info:
        history.register_release({**good, "rows": RELEASE_A.to_dict("records")}, path=db)
    assert info.value.code == "register.unknown_keys"
    with pytest.raises(ParameterError) as info:
        history.register_release({**good, "access": "friends"}, path=db)
    assert info.value.code == "register.choice"
    with pytest.raises(ParameterError) as info:
        history.register_release({**good, "release_sha256": None}, path=db)
    assert info.value.code == "register.missing"
    with pytest.raises(ParameterError) as info:
        history.register_release({**good, "report_run": "seven"}, path=db)
    assert info.value.code == "register.report_run"
    assert history.registered_releases(path=db) == []


# --------------------------------------------------------------------------- combination


def test_two_releases_each_2_anonymous_break_k_together(tmp_path: Path) -> None:
    """The required case: A and B are each 2-anonymous; together 4 people are alone."""
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv"))
    findings = _check(RELEASE_B, earlier)
    assert len(findings) == 1
    finding = findings[0]
    assert finding["status"] == "breaks_k"
    assert finding["entry"] == earlier[0]["id"]
    assert finding["recipient"] == "Lab X" and finding["access"] == "licensed"
    assert finding["created"] == earlier[0]["created"]
    # The figures computed by hand above.
    assert finding["min_effective_k"] == 1
    assert finding["records_below_k"] == 4
    assert finding["records_reidentified"] == 4
    assert finding["records"] == 8
    assert finding["k_earlier"] == 2 and finding["k_new"] == 2
    assert summary(findings)["status"] == "breaks_k"
    assert summary(findings)["breaks_k"] == [earlier[0]["id"]]
    # Codes and figures only: no sentence, no row.
    assert all(isinstance(v, (int, str, type(None))) for v in finding.values())


def test_same_release_again_holds(tmp_path: Path) -> None:
    # A with itself: each record's intersection is its own class of 2 → effective k = 2.
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv"))
    [finding] = _check(_read(str(tmp_path / "a.csv")), earlier)
    assert finding["status"] == "holds"
    assert finding["min_effective_k"] == 2
    assert finding["records_below_k"] == 0 and finding["records_reidentified"] == 0
    assert summary([finding])["status"] == "holds"


def test_rows_aligned_by_key(tmp_path: Path) -> None:
    # B published shuffled: by position rows would be paired wrongly; by the key "rid"
    # they are the same records as above, so the same figures.
    shuffled = RELEASE_B.iloc[[5, 2, 7, 0, 3, 6, 1, 4]].reset_index(drop=True)
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv", key="rid"))
    [finding] = _check(shuffled, earlier, key="rid")
    assert finding["status"] == "breaks_k"
    assert (finding["min_effective_k"], finding["records_below_k"]) == (1, 4)
    # A key whose values differ from the earlier release's is not aligned.
    renamed = shuffled.assign(rid=[f"x{i}" for i in range(8)])
    [finding] = _check(renamed, earlier, key="rid")
    assert (finding["status"], finding["reason"]) == ("not_checked", "key_mismatch")


def test_another_licensed_recipient_is_not_checked(tmp_path: Path) -> None:
    earlier = _registered(
        tmp_path, _entry(tmp_path, RELEASE_A, "a.csv", recipient="Lab Y", access="licensed")
    )
    assert _check(RELEASE_B, earlier, recipient="Lab X", access="licensed") == []
    assert summary([])["status"] == "none"
    # The same recipient written otherwise is the same recipient.
    assert len(_check(RELEASE_B, earlier, recipient="  lab y ", access="enclave")) == 1


def test_earlier_public_release_is_checked_for_a_licensed_recipient(tmp_path: Path) -> None:
    earlier = _registered(
        tmp_path, _entry(tmp_path, RELEASE_A, "a.csv", recipient="the public", access="public")
    )
    [finding] = _check(RELEASE_B, earlier, recipient="Lab X", access="licensed")
    assert finding["status"] == "breaks_k" and finding["access"] == "public"


def test_new_public_release_is_checked_against_every_earlier_one(tmp_path: Path) -> None:
    earlier = _registered(
        tmp_path,
        _entry(tmp_path, RELEASE_A, "a.csv", recipient="Lab Y"),
        _entry(tmp_path, RELEASE_A, "a2.csv", recipient="Lab Z", access="enclave"),
        _entry(tmp_path, RELEASE_A, "a3.csv", recipient="Lab Z", decision="reject"),
    )
    findings = _check(RELEASE_B, earlier, recipient="the public", access="public")
    # The rejected release never went out: two checked.
    assert [f["entry"] for f in findings] == [earlier[0]["id"], earlier[1]["id"]]
    assert {f["status"] for f in findings} == {"breaks_k"}
    assert earlier_to_check(earlier, recipient="Lab Z", access="licensed") == [earlier[1]]


def test_moved_file_is_not_checked(tmp_path: Path) -> None:
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv"))
    (tmp_path / "a.csv").rename(tmp_path / "moved.csv")
    [finding] = _check(RELEASE_B, earlier)
    assert (finding["status"], finding["reason"]) == ("not_checked", "missing_file")
    assert "min_effective_k" not in finding
    assert summary([finding])["status"] == "not_checked"


def test_edited_file_is_not_checked(tmp_path: Path) -> None:
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv"))
    RELEASE_A.assign(disease="flu").to_csv(tmp_path / "a.csv", index=False)
    [finding] = _check(RELEASE_B, earlier)
    assert (finding["status"], finding["reason"]) == ("not_checked", "changed_file")


def test_release_of_another_input_is_not_comparable(tmp_path: Path) -> None:
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv", input_sha256="0" * 64))
    [finding] = _check(RELEASE_B, earlier)
    assert (finding["status"], finding["reason"]) == ("not_comparable", "other_input")
    assert summary([finding])["status"] == "not_comparable"


def test_different_row_counts_by_position_are_not_checked(tmp_path: Path) -> None:
    # Without a key, rows are paired by position: 8 rows against 6 cannot be paired.
    earlier = _registered(tmp_path, _entry(tmp_path, RELEASE_A, "a.csv"))
    [finding] = _check(RELEASE_B.iloc[:6], earlier)
    assert (finding["status"], finding["reason"]) == ("not_checked", "row_count")
    # The worst status wins in the summary.
    both = [finding, *_check(RELEASE_B, earlier)]
    assert summary(both)["status"] == "breaks_k"
    assert summary(both)["not_checked"] == [earlier[0]["id"]]


def test_parameters_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(ParameterError) as info:
        _check(RELEASE_B, [], access="friends")
    assert info.value.code == "register.access"
    with pytest.raises(ParameterError) as info:
        _check(RELEASE_B, [], min_k=0)
    assert info.value.code == "register.min_k"
    with pytest.raises(ParameterError) as info:
        _check(RELEASE_B[["disease"]], [])
    assert info.value.code == "register.no_qi"


def test_register_keeps_each_owner_apart_and_reads_held_tables(tmp_path: Path) -> None:
    """On a hosted demo each session sees its own register; a release a session holds
    in memory (no file) is checked from the table it holds."""
    db = tmp_path / "history.db"
    mine = {**_entry(tmp_path, RELEASE_A, "a.csv"), "owner": "session-1"}
    mine["release_path"] = None
    history.register_release(mine, path=db)
    history.register_release({**_entry(tmp_path, RELEASE_A, "a2.csv"), "owner": "s2"}, path=db)
    assert [r["owner"] for r in history.registered_releases(path=db)] == ["session-1", "s2"]
    earlier = history.registered_releases(path=db, owner="session-1")
    assert [r["owner"] for r in earlier] == ["session-1"]
    common = dict(
        qi=QI,
        key=None,
        input_sha256=INPUT_SHA,
        recipient="Lab X",
        access="licensed",
        min_k=2,
        earlier=earlier,
        read=_read,
    )
    (unread,) = combined_with_earlier(RELEASE_B, **common)
    assert (unread["status"], unread["reason"]) == ("not_checked", "no_path")
    held = {earlier[0]["release_sha256"]: pd.read_csv(tmp_path / "a.csv")}
    (found,) = combined_with_earlier(RELEASE_B, **common, held=held)
    assert (found["status"], found["min_effective_k"], found["records_below_k"]) == (
        "breaks_k",
        1,
        4,
    )
