"""Browser tests: start the app with `streamlit run` on a free port, drive it in Chromium."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

with contextlib.suppress(ImportError):  # the browser tests are skipped without it
    from playwright.sync_api import expect

    # On a loaded machine the rerun that answers a click (a tab, a button) can take
    # longer than Playwright's default 5 s: an expectation that names no timeout waits
    # up to 30 s.
    expect.set_options(timeout=30_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(workdir: Path, env_extra: dict[str, str] | None = None):
    """Start ``streamlit run serve.py`` (as ``make run`` does) with its own empty history;
    yield (base_url, history).

    On exit the server stops and its log is checked: any unexpected error the pages
    caught was logged with its traceback, and that is a bug.
    """
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make test`, which installs Debian's chromium.")
    port = _free_port()
    history = workdir / "history.db"
    env = {**os.environ, "PRIVCORE_HISTORY": str(history), **(env_extra or {})}
    log_path = workdir / "streamlit.log"
    log = log_path.open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "serve.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.terminate()
        pytest.fail(f"The app did not start within 60 s; see {log_path}.")
    try:
        yield base, history
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    logged = log_path.read_text(errors="replace")
    assert "unexpected error" not in logged, logged[logged.index("unexpected error") - 200 :][:3000]


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """The app shared by most browser tests; yields (base_url, history_path)."""
    with running_app(tmp_path_factory.mktemp("e2e")) as server:
        yield server


@pytest.fixture
def fresh_app_server(tmp_path):
    """A just-started app whose first request is the test's own (for deep links)."""
    with running_app(tmp_path) as server:
        yield server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failed browser test, keep a screenshot of the page for the log reader."""
    outcome = yield
    report = outcome.get_result()
    page = item.funcargs.get("page") if hasattr(item, "funcargs") else None
    if report.when == "call" and report.failed and page is not None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"FAILED-{item.name}.png"
        try:
            page.screenshot(path=str(path), full_page=True)
            report.sections.append(("failure screenshot", str(path)))
        except Exception:  # noqa: BLE001 - best effort only
            pass
