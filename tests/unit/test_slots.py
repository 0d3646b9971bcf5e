"""Heavy-work slots: with PRIVCORE_MAX_HEAVY_JOBS=1 a second job waits for the first,
says so through its progress, can be cancelled while it waits, and a job that calls
another (a sweep) holds one slot."""

from __future__ import annotations

import threading
import time

import pytest

from privcore.core import slots
from privcore.errors import CancelledError


def test_without_a_limit_jobs_run_at_once(monkeypatch):
    monkeypatch.delenv("PRIVCORE_MAX_HEAVY_JOBS", raising=False)
    with slots.heavy_slot(), slots.heavy_slot():
        pass


def test_a_second_job_waits_reports_and_can_be_cancelled(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_HEAVY_JOBS", "1")
    monkeypatch.setattr(slots, "WAIT_STEP_S", 0.02)
    first_holds = threading.Event()
    release = threading.Event()

    def first() -> None:
        with slots.heavy_slot():
            first_holds.set()
            release.wait(10)

    worker = threading.Thread(target=first)
    worker.start()
    first_holds.wait(10)
    messages: list[str] = []

    def cancel_after_three(fraction: float, message: str) -> None:
        messages.append(message)
        if len(messages) == 3:
            raise CancelledError("cancelled")

    with pytest.raises(CancelledError), slots.heavy_slot(cancel_after_three, "audit"):
        pytest.fail("the second job must not start while the first holds the slot")
    assert len(messages) == 3 and "other audit is running" in messages[0]

    order: list[str] = []

    def second() -> None:
        with slots.heavy_slot():
            order.append("second")

    waiting = threading.Thread(target=second)
    waiting.start()
    time.sleep(0.1)
    assert order == []  # still waiting
    order.append("first done")
    release.set()
    worker.join(10)
    waiting.join(10)
    assert order == ["first done", "second"]


def test_a_job_inside_a_job_holds_one_slot(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_HEAVY_JOBS", "1")
    with slots.heavy_slot(), slots.heavy_slot(), slots.heavy_slot():
        pass
    with slots.heavy_slot():  # and the slot was given back
        pass


def test_audits_take_a_slot(monkeypatch):
    pytest.importorskip("torch")
    from privcore.ldp.audit import audit_ab
    from privcore.ldp.mechanisms import make

    monkeypatch.setenv("PRIVCORE_MAX_HEAVY_JOBS", "1")
    monkeypatch.setattr(slots, "WAIT_STEP_S", 0.02)
    seen: list[str] = []

    def progress(fraction: float, message: str) -> None:
        seen.append(message)
        if "free slot" in message:
            raise CancelledError("cancelled")

    with slots.heavy_slot(), pytest.raises(CancelledError):
        # another thread holds the only slot: the audit waits instead of running
        result: list = []
        thread = threading.Thread(
            target=lambda: result.append(
                _capture(lambda: audit_ab(make("grr", 1.0, d=4), n=1000, progress=progress))
            )
        )
        thread.start()
        thread.join(10)
        raise result[0]
    assert any("free slot" in m for m in seen)


def _capture(call):
    try:
        call()
    except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
        return exc
    return AssertionError("the audit ran although the slot was taken")
