"""Thirty sessions at once: the running app under load, driven by Chromium.

`streamlit run app.py` on a free port with its own history database; one headless
Chromium opens 30 browser contexts together (one session each). Every session loads
the Home page, opens Anonymize (which runs the optimal search live on Adult at k = 5)
and then moves the k slider one step with the keyboard (k = 6, a new search). Each
action is timed from the click/key press until its result is on screen and the script
run has finished (the verdict card "k ≥ N" visible, Streamlit's script state back to
"notRunning"). One session alone runs first, as the reference and to warm the caches.
Memory is the server's resident set (VmRSS) before and during the load.

The browser runs on the same 2 cores as the server, so the page times include that
competition; the CPU seconds of server and browser, and the server's own time per
search (the ``duration_s`` the page records in the history), show whose cost they are.
Sessions still waiting at the time limit (5 minutes) are abandoned and counted.

A second load, on a fresh server, replaces the browser by 30 scripted clients that
speak Streamlit's own WebSocket protocol (``/_stcore/stream``: the protobuf messages a
browser sends to rerun a page or a fragment with new widget values, and receives back
until the script run has finished). The same three actions, timed from the request to
the end of the run, with the same checks (the verdict card's text in the answer, no
exception element): the server's response time without the browser's rendering.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _util import ROOT, table
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright, expect

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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
SESSIONS = 30
K_STEPS = 1  # slider moves per session after the page is open (k = 5 → 6)
LOAD_BUDGET_S = 300.0  # the whole 30-session load, after which sessions are abandoned
STEP_TIMEOUT_S = 180.0  # one action
START_TIMEOUT_S = 90.0
VIEWPORT = {"width": 1400, "height": 1000}

HOME = "home page"
OPEN = "open Anonymize (optimal search, Adult, k = 5)"


def _k_action(k: int) -> str:
    return f"k {k - 1} → {k} (slider, new search)"


ACTIONS = [HOME, OPEN, *(_k_action(5 + s) for s in range(1, K_STEPS + 1))]


# --------------------------------------------------------------------------- server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


def _start_server(workdir: Path) -> tuple[subprocess.Popen, str, Path]:
    port = _free_port()
    log_path = workdir / "streamlit.log"
    env = {**os.environ, "PRIVCORE_HISTORY": str(workdir / "history.db")}
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return proc, base, log_path
        except OSError:
            time.sleep(0.2)
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


async def _settled(page, text: str, timeout_s: float) -> None:
    """Wait until ``text`` is visible and the script run that produced it has ended."""
    timeout = max(timeout_s, 0.1) * 1000
    await expect(page.get_by_text(text).first).to_be_visible(timeout=timeout)
    await expect(page.get_by_test_id("stApp")).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=timeout
    )


async def _session(browser, base: str, index: int, deadline: float, out: dict) -> None:
    """One user: Home, then Anonymize, then k one step up. Fills ``out`` as it goes."""
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
        await _settled(page, "k ≥ 5", budget())
        out["times"][OPEN] = time.perf_counter() - started

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


async def _close_all(outs: list[dict]) -> None:
    for out in outs:
        context = out.get("context")
        if context is not None:
            with contextlib.suppress(PlaywrightError):
                await context.close()


async def _load(base: str, pid: int) -> dict:
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
            peak = [facts["rss_before"]]
            stop = asyncio.Event()
            sampler = asyncio.create_task(_sample_rss(pid, peak, stop))
            cpu0, wall0 = _cpu_s(pid), time.monotonic()
            client0, machine0 = _tree_cpu_s(os.getpid(), pid), _machine_busy_s()
            deadline = wall0 + LOAD_BUDGET_S
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
            facts["wall_s"] = time.monotonic() - wall0
            facts["cpu_s"] = _cpu_s(pid) - cpu0
            # before the contexts close: the renderers are still alive and counted
            facts["client_cpu_s"] = _tree_cpu_s(os.getpid(), pid) - client0
            machine1 = _machine_busy_s()
            facts["machine_busy"] = (machine1[0] - machine0[0]) / (machine1[1] - machine0[1])
            # all 30 sessions still connected, their results in session state
            facts["rss_open"] = _rss_mb(pid)
            stop.set()
            await sampler
            facts["rss_peak"] = max(peak[0], facts["rss_open"])
            facts["outs"] = outs
            await _close_all(outs)
        finally:
            await browser.close()
    return facts


# --------------------------------------------------------------------------- protocol clients


async def _rerun(ws, page_hash: str, widgets=(), fragment_id: str = "") -> list:
    """Ask for a run of a page (or of one fragment) and collect the server's messages
    until the run has finished."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    request = BackMsg()
    state = request.rerun_script
    state.page_script_hash = page_hash
    state.fragment_id = fragment_id
    state.widget_states.widgets.extend(widgets)
    await ws.send(request.SerializeToString())
    messages = []
    while True:
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


def _check(messages: list, expected: str | None) -> None:
    finished = messages[-1].script_finished
    if finished not in (0, 3):  # finished successfully (page / fragment)
        raise AssertionError(f"script ended with status {finished}")
    if _elements(messages, "exception"):
        raise AssertionError("exception element in the answer")
    if expected and not any(expected in md.body for md, _ in _elements(messages, "markdown")):
        raise AssertionError(f"{expected!r} not in the answer")


async def _protocol_session(url: str, index: int, deadline: float, out: dict, release) -> None:
    """One scripted user: Home, Anonymize, then k one step up (a fragment run, as the
    browser sends it). Keeps the connection open until ``release`` is set."""
    import websockets
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    out.update(index=index, times={}, error=None)
    action = HOME

    def budget() -> float:
        return max(0.1, min(STEP_TIMEOUT_S, deadline - time.monotonic()))

    try:
        async with websockets.connect(
            url, subprotocols=["streamlit"], max_size=None, open_timeout=budget()
        ) as ws:
            started = time.perf_counter()
            messages = await asyncio.wait_for(_rerun(ws, ""), budget())
            _check(messages, None)
            out["times"][HOME] = time.perf_counter() - started
            pages = {
                page.url_pathname: page.page_script_hash
                for message in messages
                if message.WhichOneof("type") == "navigation"
                for page in message.navigation.app_pages
            }

            action = OPEN
            started = time.perf_counter()
            messages = await asyncio.wait_for(_rerun(ws, pages["anonymize"]), budget())
            _check(messages, "k ≥ 5")
            out["times"][OPEN] = time.perf_counter() - started
            slider, fragment = next(
                (e, f) for e, f in _elements(messages, "slider") if e.label == "k"
            )

            for k in range(6, 6 + K_STEPS):
                action = _k_action(k)
                state = WidgetState(id=slider.id)
                state.double_array_value.data.append(float(k))
                started = time.perf_counter()
                messages = await asyncio.wait_for(
                    _rerun(ws, pages["anonymize"], [state], fragment), budget()
                )
                _check(messages, f"k ≥ {k}")
                out["times"][action] = time.perf_counter() - started
            out["finished"] = True
            await release.wait()
    except (OSError, AssertionError, TimeoutError, StopIteration, KeyError) as exc:
        out["error"] = f"{action}: {type(exc).__name__}: {str(exc)[:160]}"
    except websockets.exceptions.WebSocketException as exc:
        out["error"] = f"{action}: {type(exc).__name__}: {str(exc)[:160]}"


async def _load_protocol(base: str, pid: int) -> dict:
    url = base.replace("http://", "ws://") + "/_stcore/stream"
    facts: dict = {"rss_idle": _rss_mb(pid)}
    release = asyncio.Event()
    alone: dict = {}
    release.set()  # the lone session closes as soon as it is done
    await _protocol_session(url, -1, time.monotonic() + LOAD_BUDGET_S, alone, release)
    facts["alone"] = alone
    if alone.get("error"):
        raise RuntimeError(f"a single scripted session already fails: {alone['error']}")
    await asyncio.sleep(2)
    facts["rss_before"] = _rss_mb(pid)

    release = asyncio.Event()
    outs: list[dict] = [{} for _ in range(SESSIONS)]
    peak = [facts["rss_before"]]
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample_rss(pid, peak, stop))
    cpu0, wall0 = _cpu_s(pid), time.monotonic()
    client0, machine0 = _tree_cpu_s(os.getpid(), pid), _machine_busy_s()
    deadline = wall0 + LOAD_BUDGET_S
    tasks = [
        asyncio.create_task(_protocol_session(url, i, deadline, outs[i], release))
        for i in range(SESSIONS)
    ]
    while time.monotonic() < deadline + 10 and not all(
        out.get("finished") or out.get("error") or task.done()
        for out, task in zip(outs, tasks, strict=True)
    ):
        await asyncio.sleep(0.1)
    facts["wall_s"] = time.monotonic() - wall0
    facts["cpu_s"] = _cpu_s(pid) - cpu0
    facts["client_cpu_s"] = _tree_cpu_s(os.getpid(), pid) - client0
    machine1 = _machine_busy_s()
    facts["machine_busy"] = (machine1[0] - machine0[0]) / (machine1[1] - machine0[1])
    facts["rss_open"] = _rss_mb(pid)  # every finished session still connected
    stop.set()
    await sampler
    facts["rss_peak"] = max(peak[0], facts["rss_open"])
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
    """The anonymize runs the app recorded, oldest first (the lone session's come first)."""
    from privcore import history
    from privcore.errors import HistoryError

    try:
        runs = history.list_runs(kind="anonymize", limit=None, path=path)
    except HistoryError as exc:
        return [], exc.message
    return sorted(runs, key=lambda run: run["id"]), ""


def _log_problems(log_path: Path) -> list[str]:
    lines = log_path.read_text(errors="replace").splitlines()
    keys = ("Traceback", " ERROR ", "Exception", "Run not recorded")
    return [line.strip()[:200] for line in lines if any(k in line for k in keys)]


def _report(
    facts: dict, runs: list[dict], history_note: str, problems: list[str], client: str
) -> str:
    outs = facts["outs"]
    alone = facts["alone"]["times"]
    rows = []
    for action in ACTIONS:
        times = [o["times"][action] for o in outs if action in o.get("times", {})]
        rows.append(
            [
                action,
                f"{alone[action]:.2f}" if action in alone else "—",
                f"{len(times)}/{SESSIONS}",
                f"{statistics.median(times):.2f}" if times else "—",
                f"{_p95(times):.2f}" if times else "—",
                f"{max(times):.2f}" if times else "—",
            ]
        )
    out = table(
        ["action", "1 session alone, s", f"{SESSIONS} at once: done", "median s", "p95 s", "max s"],
        rows,
    )

    completed = sum(1 for o in outs if o.get("error") is None and len(o["times"]) == len(ACTIONS))
    errors = [f"session {o['index']}: {o['error']}" for o in outs if o.get("error")]
    held = (facts["rss_open"] - facts["rss_before"]) / SESSIONS
    peak = (facts["rss_peak"] - facts["rss_before"]) / SESSIONS
    expected_runs = (
        1
        + K_STEPS
        + sum(
            (OPEN in o["times"]) + sum(_k_action(k) in o["times"] for k in range(6, 6 + K_STEPS))
            for o in outs
        )
    )
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
            "machine CPU busy during the load (all cores)",
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
        [
            "anonymize runs in the history (expected: one per search shown)",
            f"{len(runs)} of {expected_runs}" + (f" ({history_note})" if history_note else ""),
        ],
    ]
    # What the server spent on each search (anonymize end to end, as recorded by the page)
    searches = [run["duration_s"] for run in runs[1 + K_STEPS :] if run["duration_s"] is not None]
    alone_searches = [run["duration_s"] for run in runs[: 1 + K_STEPS]]
    if searches and alone_searches:
        summary.append(
            [
                "server time per search (history duration_s): alone / median / p95, s",
                f"{statistics.median(alone_searches):.2f} / {statistics.median(searches):.2f}"
                f" / {_p95(searches):.2f}",
            ]
        )
    summary.append(["server log lines with errors/tracebacks", str(len(problems))])
    out += "\n\n" + table(["load", "value"], summary)
    if errors:
        out += "\n\nErrors:\n" + "\n".join(f"- {e}" for e in errors[:10])
        if len(errors) > 10:
            out += f"\n- … and {len(errors) - 10} more"
    if problems:
        out += "\n\nServer log:\n" + "\n".join(f"- `{p}`" for p in problems[:5])
    return out


def _phase(load, client: str) -> str:
    """One load on a fresh server (its own history database), reported."""
    with tempfile.TemporaryDirectory(prefix="bench_sessions_") as tmp:
        workdir = Path(tmp)
        proc, base, log_path = _start_server(workdir)
        try:
            facts = asyncio.run(load(base, proc.pid))
        finally:
            _stop_server(proc)
        runs, note = _history_runs(workdir / "history.db")  # before the folder goes
        return _report(facts, runs, note, _log_problems(log_path), client)


def main() -> str:
    browsers = _phase(_load, "browser + driver")
    scripted = _phase(_load_protocol, "scripted clients")
    return (
        f"### {SESSIONS} Chromium contexts\n\n{browsers}\n\n"
        f"### {SESSIONS} scripted WebSocket clients (no browser)\n\n{scripted}"
    )


if __name__ == "__main__":
    print(main())
