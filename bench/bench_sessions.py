"""Thirty sessions at once: the running app under load, every page of it.

`streamlit run serve.py` (the app as `make run` and the image serve it, with the demo's
worker processes: ``PRIVCORE_WORKERS=1``, two at a time) on a free port with its own
history database, on the bundled Adult data set (the sidebar's default). Two loads, each
on a fresh server; in each, one visitor alone goes first (the reference, and it warms
the caches), then 30 at once.
Memory is the server's resident set (VmRSS) before, during and after the load.

The scripted load (the default run): 30 clients that speak Streamlit's own WebSocket
protocol (``/_stcore/stream``: the protobuf messages a browser sends to run a page, or a
fragment, with new widget values, and receives back until the script run has finished).
Each visitor opens every page in turn and presses what a visitor presses to get a
result: Home, Learn, Data & roles, Anonymize (and its "Anonymize" button), Privacy level
("Measure"), Attack simulator ("Build the voter roll", then "Run the linkage attack"),
LDP auditor (opened only), Release report ("Generate the report") and History. A button
press is the widget state a browser sends: the button's element id with
``trigger_value`` true. Each action is timed from the request to the end of the run
(script finished) and checked: the run ended normally, no exception element and no error
box in the answer, and the page's result marker is there (the verdict "k ≥ 5" after
Anonymize and Measure, the victims after the linkage attack, the run numbers after the
report, each page's title on opening). History intact: the runs each visitor's actions
record (learnt from the lone visitor, action by action) are all in the history database,
each visitor's under its own owner token. Visitors still waiting at the time limit
(5 minutes) are abandoned and counted.

The browser load (``--browser``): one headless Chromium opens 30 browser contexts
together. Every session loads Home, opens Anonymize, presses its "Anonymize" button (the
optimal search at k = 5) and moves the k slider one step with the keyboard (k = 6, a new
search: live update is on and the search is quick). Each action is timed from the click
or key press until its result is on screen and the script run has finished (Streamlit's
script state back to "notRunning"). The browser runs on the same cores as the server, so
these times include that competition.

The CPU seconds of the server and of the clients, and the machine's busy share, show
whose cost the times are.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _util import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    free_port,
    streamlit_run,
    table,
    wait_healthy,
)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SESSIONS = 30
TARGET_P95_S = 3.0  # issue 16: p95 per page at 30 visitors
K_STEPS = 1  # browser load: slider moves after the first search (k = 5 → 6)
LOAD_BUDGET_S = 300.0  # the whole 30-session load, after which sessions are abandoned
STEP_TIMEOUT_S = 180.0  # one action
START_TIMEOUT_S = 90.0
VIEWPORT = {"width": 1400, "height": 1000}

HOME = "home page"
OPEN = "open Anonymize"
PRESS = "press Anonymize (optimal search, Adult, k = 5)"


def _k_action(k: int) -> str:
    return f"k {k - 1} → {k} (slider, new search)"


BROWSER_ACTIONS = [HOME, OPEN, PRESS, *(_k_action(5 + s) for s in range(1, K_STEPS + 1))]


@dataclass(frozen=True)
class Step:
    """One action of a scripted visitor: open ``page`` (its URL path), or press the
    button with widget key ``key`` on it; ``marker`` is text the answer must contain."""

    name: str
    page: str
    key: str | None = None
    marker: str | None = None


VISIT = [
    Step("Home: open", "", marker="Privacy Workbench"),
    Step("Learn: open", "learn"),
    Step("Data & roles: open", "data", marker="Data & roles"),
    Step("Anonymize: open", "anonymize"),
    Step("Anonymize: press Anonymize", "anonymize", "an_run", "k ≥ 5"),
    Step("Privacy level: open", "privacy"),
    Step("Privacy level: press Measure", "privacy", "pl_measure", "k ≥ 5"),
    Step("Attack simulator: open", "attack"),
    Step("Attack simulator: press Build the voter roll", "attack", "at_build"),
    Step("Attack simulator: press Run the linkage attack", "attack", "at_run", "Example victims"),
    Step("LDP auditor: open", "ldp", marker="LDP auditor"),
    Step("Release report: open", "report"),
    Step("Release report: press Generate", "report", "rp_go", "Saved in the history as runs"),
    Step("History: open", "history", marker="History"),
]
VISIT_TOTAL = "whole visit (all actions, one after another)"


# --------------------------------------------------------------------------- server


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        kb = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS"))
    return kb / 1024


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _tree_cpu_s(root: int, exclude: int) -> float:
    """CPU seconds of the live processes under ``root`` (itself included), minus ``exclude``."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        cpu[pid] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid == exclude:
            continue
        total += cpu.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return total


def _machine_busy_s() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores."""
    with open("/proc/stat") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values) - idle) / tick, sum(values) / tick


def _start_server(workdir: Path, script: str = "serve.py") -> tuple[subprocess.Popen, str, Path]:
    port = free_port()
    log_path = workdir / "streamlit.log"
    # the demo's settings for heavy work (Dockerfile): worker processes, two at a time
    env = {
        **os.environ,
        "PRIVCORE_HISTORY": str(workdir / "history.db"),
        "PRIVCORE_WORKERS": "1",
        "PRIVCORE_MAX_WORKERS": "2",
    }
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            streamlit_run(script, port, "--browser.gatherUsageStats", "false"),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    if wait_healthy(base, within_s=START_TIMEOUT_S, proc=proc):
        return proc, base, log_path
    _stop_server(proc)
    raise RuntimeError(f"the app did not start; see {log_path}:\n{log_path.read_text()[-2000:]}")


def _stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


# --------------------------------------------------------------------------- one session


async def _settled(page, text, timeout_s: float) -> None:
    """Wait until ``text`` (or a locator) is visible and the script run that produced it
    has ended."""
    from playwright.async_api import expect

    timeout = max(timeout_s, 0.1) * 1000
    target = page.get_by_text(text).first if isinstance(text, str) else text
    await expect(target).to_be_visible(timeout=timeout)
    await expect(page.get_by_test_id("stApp")).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=timeout
    )


async def _session(browser, base: str, index: int, deadline: float, out: dict) -> None:
    """One user: Home, then Anonymize, its button, then k one step up. Fills ``out`` as
    it goes."""
    from playwright.async_api import Error as PlaywrightError

    out.update(index=index, times={}, error=None, context=None)

    def budget() -> float:
        return min(STEP_TIMEOUT_S, deadline - time.monotonic())

    action = HOME
    try:
        context = await browser.new_context(viewport=VIEWPORT)
        out["context"] = context
        page = await context.new_page()

        started = time.perf_counter()
        await page.goto(base, timeout=budget() * 1000)
        await _settled(page, "Privacy Workbench", budget())
        out["times"][HOME] = time.perf_counter() - started

        action = OPEN
        link = page.get_by_test_id("stSidebarNav").get_by_role("link", name="Anonymize")
        started = time.perf_counter()
        await link.click(timeout=budget() * 1000)
        button = page.get_by_role("button", name="Anonymize", exact=True)
        await _settled(page, button, budget())
        out["times"][OPEN] = time.perf_counter() - started

        action = PRESS
        started = time.perf_counter()
        await button.click(timeout=budget() * 1000)
        await _settled(page, "k ≥ 5", budget())
        out["times"][PRESS] = time.perf_counter() - started

        # react-aria names the thumb "k k" (its own label and the group's): match the input
        slider = page.locator('[data-testid=stSlider] input[type=range][aria-label="k"]')
        for k in range(6, 6 + K_STEPS):
            action = _k_action(k)
            await slider.focus(timeout=budget() * 1000)
            started = time.perf_counter()
            await slider.press("ArrowRight", timeout=budget() * 1000)
            await _settled(page, f"k ≥ {k}", budget())
            out["times"][action] = time.perf_counter() - started

        action = "result page"
        exceptions = await page.get_by_test_id("stException").count()
        if exceptions:
            out["error"] = f"{exceptions} exception element(s) on the page"
        elif await page.get_by_text("not recorded in the history").count():
            out["error"] = "history unavailable warning"
    except (PlaywrightError, AssertionError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        out["error"] = f"{action}: {first[:160]}"


# --------------------------------------------------------------------------- the load


async def _sample_rss(pid: int, peak: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(OSError, StopIteration):
            peak[0] = max(peak[0], _rss_mb(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=0.25)


@contextlib.asynccontextmanager
async def _measured(pid: int, facts: dict):
    """Measure the load run inside: its wall seconds, the server's (``pid``) and the
    clients' CPU seconds, the machine's busy share, and the server's memory at the end
    (every session still connected) and at its peak, from ``facts["rss_before"]`` on;
    into ``facts``. Yields the load's deadline (``LOAD_BUDGET_S`` from now)."""
    peak = [facts["rss_before"]]
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample_rss(pid, peak, stop))
    cpu0, wall0 = _cpu_s(pid), time.monotonic()
    client0, machine0 = _tree_cpu_s(os.getpid(), pid), _machine_busy_s()
    yield wall0 + LOAD_BUDGET_S
    facts["wall_s"] = time.monotonic() - wall0
    facts["cpu_s"] = _cpu_s(pid) - cpu0
    # before the sessions close: a browser's renderers are still alive and counted
    facts["client_cpu_s"] = _tree_cpu_s(os.getpid(), pid) - client0
    machine1 = _machine_busy_s()
    facts["machine_busy"] = (machine1[0] - machine0[0]) / (machine1[1] - machine0[1])
    # every finished session still connected, its results in session state
    facts["rss_open"] = _rss_mb(pid)
    stop.set()
    await sampler
    facts["rss_peak"] = max(peak[0], facts["rss_open"])


async def _close_all(outs: list[dict]) -> None:
    from playwright.async_api import Error as PlaywrightError

    for out in outs:
        context = out.get("context")
        if context is not None:
            with contextlib.suppress(PlaywrightError):
                await context.close()


async def _load(base: str, pid: int, _history_path: Path) -> dict:
    from playwright.async_api import async_playwright

    facts: dict = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            facts["rss_idle"] = _rss_mb(pid)
            alone: dict = {}
            await _session(browser, base, -1, time.monotonic() + LOAD_BUDGET_S, alone)
            await _close_all([alone])
            facts["alone"] = alone
            if alone.get("error"):
                raise RuntimeError(f"a single session already fails: {alone['error']}")
            await asyncio.sleep(2)
            facts["rss_before"] = _rss_mb(pid)

            outs: list[dict] = [{} for _ in range(SESSIONS)]
            async with _measured(pid, facts) as deadline:
                tasks = [
                    asyncio.create_task(_session(browser, base, i, deadline, outs[i]))
                    for i in range(SESSIONS)
                ]
                _done, pending = await asyncio.wait(tasks, timeout=LOAD_BUDGET_S + 10)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                for out, task in zip(outs, tasks, strict=True):
                    if task in pending:
                        out["error"] = out.get("error") or "cancelled at the time limit"
                    elif task.exception() is not None:
                        out["error"] = f"{type(task.exception()).__name__}: {task.exception()}"
            facts["outs"] = outs
            await _close_all(outs)
        finally:
            await browser.close()
    return facts


# --------------------------------------------------------------------------- protocol clients


async def _rerun(
    ws, page_hash: str, widgets=(), fragment_id: str = "", quickack: bool = False
) -> list:
    """Ask for a run of a page (or of one fragment) and collect the server's messages
    until the run has finished. ``quickack``: acknowledge every packet at once (Linux's
    TCP_QUICKACK), so that the server's small writes, which wait for the acknowledgement
    of the previous one, do not wait for a delayed one (about 40 ms)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    request = BackMsg()
    state = request.rerun_script
    state.page_script_hash = page_hash
    state.fragment_id = fragment_id
    state.widget_states.widgets.extend(widgets)
    await ws.send(request.SerializeToString())
    messages = []
    sock = ws.transport.get_extra_info("socket") if quickack else None
    while True:
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        message = ForwardMsg()
        message.ParseFromString(await ws.recv())
        messages.append(message)
        if message.WhichOneof("type") == "script_finished":
            return messages


def _elements(messages: list, kind: str) -> list:
    """(element, fragment id) of every new element of ``kind`` in the answer."""
    found = []
    for message in messages:
        if message.WhichOneof("type") != "delta":
            continue
        delta = message.delta
        if delta.WhichOneof("type") == "new_element":
            element = delta.new_element
            if element.WhichOneof("type") == kind:
                found.append((getattr(element, kind), delta.fragment_id))
    return found


def _texts(messages: list) -> list[str]:
    """The text a visitor reads in the answer: markdown, headings, alerts."""
    return [
        element.body
        for kind in ("markdown", "heading", "alert")
        for element, _ in _elements(messages, kind)
    ]


def _check(messages: list, expected: str | None) -> None:
    """The run ended normally (page or fragment), shows no exception and no error box,
    and contains ``expected``."""
    from streamlit.proto.Alert_pb2 import Alert

    finished = messages[-1].script_finished
    if finished not in (0, 3):  # finished successfully (page / fragment)
        raise AssertionError(f"script ended with status {finished}")
    if _elements(messages, "exception"):
        raise AssertionError("exception element in the answer")
    errors = [a.body for a, _ in _elements(messages, "alert") if a.format == Alert.ERROR]
    if errors:
        raise AssertionError(f"error box: {errors[0][:120]}")
    if expected and not any(expected in text for text in _texts(messages)):
        raise AssertionError(f"{expected!r} not in the answer")


def _button(messages: list, key: str):
    """(element, fragment id) of the button with widget key ``key``: its element id ends
    with the key (Streamlit's widget ids of keyed widgets do)."""
    for element, fragment in _elements(messages, "button"):
        if element.id.endswith(f"-{key}"):
            return element, fragment
    raise AssertionError(f"no button {key!r} in the answer")


async def _protocol_session(
    url: str, index: int, deadline: float, out: dict, release, after_step=None
) -> None:
    """One scripted visitor: every page of ``VISIT`` in turn, pressing its buttons.
    ``after_step(step)`` (the lone visitor's) is called after each action. Keeps the
    connection open until ``release`` is set."""
    import websockets
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    out.update(index=index, times={}, error=None)
    step = VISIT[0]

    def budget() -> float:
        return max(0.1, min(STEP_TIMEOUT_S, deadline - time.monotonic()))

    try:
        async with websockets.connect(
            url, subprotocols=["streamlit"], max_size=None, open_timeout=budget()
        ) as ws:
            pages: dict[str, str] = {}
            answer: list = []  # the last answer of the page open
            for step in VISIT:
                widgets, fragment = [], ""
                if step.key is not None:
                    button, fragment = _button(answer, step.key)
                    widgets = [WidgetState(id=button.id, trigger_value=True)]
                page_hash = pages[step.page] if pages else ""
                started = time.perf_counter()
                messages = await asyncio.wait_for(
                    _rerun(ws, page_hash, widgets, fragment), budget()
                )
                _check(messages, step.marker)
                out["times"][step.name] = time.perf_counter() - started
                if not pages:
                    pages = {
                        page.url_pathname: page.page_script_hash
                        for message in messages
                        if message.WhichOneof("type") == "navigation"
                        for page in message.navigation.app_pages
                    }
                answer = messages
                if after_step is not None:
                    after_step(step)
            out["finished"] = True
            await release.wait()
    except (OSError, AssertionError, TimeoutError, KeyError) as exc:
        out["error"] = f"{step.name}: {type(exc).__name__}: {str(exc)[:160]}"
        out["failed_at"] = step.name
    except websockets.exceptions.WebSocketException as exc:
        out["error"] = f"{step.name}: {type(exc).__name__}: {str(exc)[:160]}"
        out["failed_at"] = step.name


def _run_count(path: Path) -> int:
    from privcore import history

    return len(history.list_runs(limit=None, path=path))


async def _load_protocol(base: str, pid: int, history_path: Path) -> dict:
    url = base.replace("http://", "ws://") + "/_stcore/stream"
    facts: dict = {"rss_idle": _rss_mb(pid)}
    release = asyncio.Event()
    alone: dict = {}
    release.set()  # the lone session closes as soon as it is done
    # the runs each action records, learnt from the lone visitor
    recorded: dict[str, int] = {}
    counted = [_run_count(history_path)]

    def after_step(step: Step) -> None:
        now = _run_count(history_path)
        recorded[step.name] = now - counted[0]
        counted[0] = now

    await _protocol_session(url, -1, time.monotonic() + LOAD_BUDGET_S, alone, release, after_step)
    facts["alone"] = alone
    facts["runs_per_action"] = recorded
    if alone.get("error"):
        raise RuntimeError(f"a single scripted session already fails: {alone['error']}")
    await asyncio.sleep(2)
    facts["rss_before"] = _rss_mb(pid)
    facts["runs_before"] = _run_count(history_path)

    release = asyncio.Event()
    outs: list[dict] = [{} for _ in range(SESSIONS)]
    async with _measured(pid, facts) as deadline:
        tasks = [
            asyncio.create_task(_protocol_session(url, i, deadline, outs[i], release))
            for i in range(SESSIONS)
        ]
        while time.monotonic() < deadline + 10 and not all(
            out.get("finished") or out.get("error") or task.done()
            for out, task in zip(outs, tasks, strict=True)
        ):
            await asyncio.sleep(0.1)
    release.set()
    _done, pending = await asyncio.wait(tasks, timeout=30)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for out, task in zip(outs, tasks, strict=True):
        if task in pending and not out.get("finished"):
            out["error"] = out.get("error") or "cancelled at the time limit"
    facts["outs"] = outs
    return facts


# --------------------------------------------------------------------------- report


def _p95(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def _history_runs(path: Path) -> tuple[list[dict], str]:
    """Every run the app recorded, oldest first (the lone session's come first)."""
    from privcore import history
    from privcore.errors import HistoryError

    note = ""
    try:
        # runs deferred while the file was locked wait in <history>.pending/ for a
        # background retry that may not have come yet: add them before counting
        waiting = history.pending_runs(path)
        if waiting:
            added = history.flush_pending(path)
            note = f"{waiting} run(s) were still set aside when the load ended; {added} added"
        runs = history.list_runs(limit=None, path=path)
    except HistoryError as exc:
        return [], exc.message
    return sorted(runs, key=lambda run: run["id"]), note


def _log_problems(log_path: Path) -> list[str]:
    lines = log_path.read_text(errors="replace").splitlines()
    keys = ("Traceback", " ERROR ", "Exception", "Run not recorded")
    return [line.strip()[:200] for line in lines if any(k in line for k in keys)]


def _times_table(facts: dict, actions: list[str]) -> str:
    outs = facts["outs"]
    alone = facts["alone"]["times"]
    rows = []
    for action in actions:
        times = [o["times"][action] for o in outs if action in o.get("times", {})]
        failed = sum(1 for o in outs if o.get("error") and o.get("failed_at") == action)
        slow = " (over 3 s)" if times and _p95(times) > TARGET_P95_S else ""
        rows.append(
            [
                action,
                f"{alone[action]:.2f}" if action in alone else "—",
                f"{len(times)}/{SESSIONS}",
                f"{statistics.median(times):.2f}" if times else "—",
                f"{_p95(times):.2f}{slow}" if times else "—",
                f"{max(times):.2f}" if times else "—",
                str(failed),
            ]
        )
    whole = [sum(o["times"].values()) for o in outs if len(o.get("times", {})) == len(actions)]
    rows.append(
        [
            VISIT_TOTAL if actions is not BROWSER_ACTIONS else "whole session",
            f"{sum(alone.values()):.2f}",
            f"{len(whole)}/{SESSIONS}",
            f"{statistics.median(whole):.2f}" if whole else "—",
            f"{_p95(whole):.2f}" if whole else "—",
            f"{max(whole):.2f}" if whole else "—",
            "",
        ]
    )
    return table(
        [
            "action",
            "1 alone, s",
            f"{SESSIONS} at once: done",
            "median s",
            "p95 s",
            "max s",
            "errors",
        ],
        rows,
    )


def _load_summary(facts: dict, actions: list[str], client: str) -> tuple[list[list], list[str]]:
    outs = facts["outs"]
    completed = sum(1 for o in outs if o.get("error") is None and len(o["times"]) == len(actions))
    errors = [f"session {o['index']}: {o['error']}" for o in outs if o.get("error")]
    held = (facts["rss_open"] - facts["rss_before"]) / SESSIONS
    peak = (facts["rss_peak"] - facts["rss_before"]) / SESSIONS
    summary = [
        ["sessions completed (all actions, no error)", f"{completed}/{SESSIONS}"],
        ["sessions with an error", str(len(errors))],
        ["wall time of the load, s", f"{facts['wall_s']:.1f}"],
        [
            "server CPU during the load, s (cores busy)",
            f"{facts['cpu_s']:.1f} ({facts['cpu_s'] / facts['wall_s']:.2f})",
        ],
        [
            f"{client} CPU during the load, s (cores busy)",
            f"{facts['client_cpu_s']:.1f} ({facts['client_cpu_s'] / facts['wall_s']:.2f})",
        ],
        [
            "machine CPU busy during the load (all cores, other work included)",
            f"{facts['machine_busy']:.0%} of {os.cpu_count()} cores",
        ],
        ["server RSS idle after start, MB", f"{facts['rss_idle']:.0f}"],
        ["server RSS after 1 session (before the load), MB", f"{facts['rss_before']:.0f}"],
        ["server RSS peak during the load, MB", f"{facts['rss_peak']:.0f}"],
        [
            f"server RSS with {SESSIONS} sessions open after the load, MB",
            f"{facts['rss_open']:.0f}",
        ],
        ["memory per session, held (open − before) / sessions, MB", f"{held:.1f}"],
        ["memory per session, peak (peak − before) / sessions, MB", f"{peak:.1f}"],
    ]
    return summary, errors


def _durations(runs: list[dict]) -> str:
    """Server time per recorded run (duration_s), by kind: median / p95."""
    by_kind: dict[str, list[float]] = {}
    for run in runs:
        if run.get("duration_s") is not None:
            by_kind.setdefault(run["kind"], []).append(run["duration_s"])
    return "; ".join(
        f"{kind} {statistics.median(v):.2f} / {_p95(v):.2f}" for kind, v in sorted(by_kind.items())
    )


def _report_protocol(
    facts: dict, runs: list[dict], history_note: str, problems: list[str], client: str
) -> str:
    outs = facts["outs"]
    actions = [step.name for step in VISIT]
    out = _times_table(facts, actions)
    summary, errors = _load_summary(facts, actions, client)
    per_action = facts["runs_per_action"]
    load_runs = runs[facts["runs_before"] :]
    expected = sum(per_action.get(a, 0) for o in outs for a in o["times"])
    # each visitor's runs under its own owner token
    per_owner: dict[str, int] = {}
    for run in load_runs:
        per_owner[run.get("owner") or "?"] = per_owner.get(run.get("owner") or "?", 0) + 1
    full = sum(per_action.values())
    visitors_done = sum(1 for o in outs if o.get("finished"))
    intact = sum(1 for n in per_owner.values() if n == full)
    recorded = ", ".join(f"{a.split(':')[0]} {n}" for a, n in per_action.items() if n)
    summary += [
        ["runs one visitor records (learnt alone, by page)", f"{full} ({recorded})"],
        [
            "runs recorded during the load (expected: those of the actions done)",
            f"{len(load_runs)} of {expected}" + (f" ({history_note})" if history_note else ""),
        ],
        [
            f"visitors with all {full} of their runs in the history (of those that finished)",
            f"{intact} of {visitors_done}",
        ],
        [
            "runs by kind during the load: recorded / expected (lone visitor's × finished)",
            ", ".join(
                f"{kind} {_kinds(load_runs).get(kind, 0)} / {n * visitors_done}"
                for kind, n in sorted(_kinds(runs[: facts["runs_before"]]).items())
            ),
        ],
        [
            "server time per recorded run, by kind (duration_s): median / p95, s",
            _durations(load_runs),
        ],
        ["server log lines with errors/tracebacks", str(len(problems))],
    ]
    out += "\n\n" + table(["load", "value"], summary)
    short = [
        f"owner …{owner[-6:]}: " + ", ".join(f"{k} {n}" for k, n in sorted(_kinds(owned).items()))
        for owner in per_owner
        if per_owner[owner] != full
        for owned in [[r for r in load_runs if (r.get("owner") or "?") == owner]]
    ]
    if short:
        out += "\n\nVisitors whose runs are not all in the history (runs by kind):\n"
        out += "\n".join(f"- {line}" for line in short)
    return out + _errors_and_log(errors, problems)


def _kinds(runs: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for run in runs:
        counts[run["kind"]] = counts.get(run["kind"], 0) + 1
    return counts


def _errors_and_log(errors: list[str], problems: list[str]) -> str:
    out = ""
    if errors:
        out += "\n\nErrors:\n" + "\n".join(f"- {e}" for e in errors[:10])
        if len(errors) > 10:
            out += f"\n- … and {len(errors) - 10} more"
    if problems:
        out += "\n\nServer log:\n" + "\n".join(f"- `{p}`" for p in problems[:5])
    return out


def _report_browser(
    facts: dict, runs: list[dict], history_note: str, problems: list[str], client: str
) -> str:
    outs = facts["outs"]
    out = _times_table(facts, BROWSER_ACTIONS)
    summary, errors = _load_summary(facts, BROWSER_ACTIONS, client)
    searches = [PRESS, *(_k_action(k) for k in range(6, 6 + K_STEPS))]
    anonymize = [run for run in runs if run["kind"] == "anonymize"]
    expected = 1 + K_STEPS + sum(a in o["times"] for o in outs for a in searches)
    summary += [
        [
            "anonymize runs in the history (expected: one per search shown)",
            f"{len(anonymize)} of {expected}" + (f" ({history_note})" if history_note else ""),
        ],
        [
            "server time per search (history duration_s): median / p95, s",
            _durations(anonymize[1 + K_STEPS :]),
        ],
        ["server log lines with errors/tracebacks", str(len(problems))],
    ]
    out += "\n\n" + table(["load", "value"], summary)
    return out + _errors_and_log(errors, problems)


def _phase(load, report, client: str) -> str:
    """One load on a fresh server (its own history database), reported."""
    with tempfile.TemporaryDirectory(prefix="bench_sessions_") as tmp:
        workdir = Path(tmp)
        proc, base, log_path = _start_server(workdir)
        history_path = workdir / "history.db"
        try:
            facts = asyncio.run(load(base, proc.pid, history_path))
        finally:
            _stop_server(proc)
        runs, note = _history_runs(history_path)  # before the folder goes
        return report(facts, runs, note, _log_problems(log_path), client)


def main(browser: bool = False) -> str:
    """The scripted load; with ``browser``, then the Chromium load on a fresh server."""
    scripted = _phase(_load_protocol, _report_protocol, "scripted clients")
    out = f"### {SESSIONS} scripted WebSocket visitors, every page (no browser)\n\n{scripted}"
    if browser:
        browsers = _phase(_load, _report_browser, "browser + driver")
        out += f"\n\n### {SESSIONS} Chromium contexts (Home, Anonymize and its button, k + 1)"
        out += f"\n\n{browsers}"
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--browser", action="store_true", help="also run the Chromium load (after the scripted)"
    )
    print(main(browser=parser.parse_args().browser))
