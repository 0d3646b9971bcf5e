"""Page reruns against the library calls they make: what a page adds to the work.

`streamlit run serve.py` with the settings of `make run`, on a free port with its own
history database; one scripted visitor (Streamlit's WebSocket protocol, as in
`bench_sessions.py`) on the bundled Adult data set does what a user does, each action
asking for work nobody has asked for before on this server (so nothing comes from the
shared cache of bundled samples): the k slider of the Anonymize page moved one step at a
time (live update: a new optimal search each time), then Measure, the linkage attack,
the report and an LDP audit on the newest release. Each action's time is the visitor's:
from the request until the server says the page run has finished. The library call it
makes is the run the page records, timed by :func:`privcore.runs.run` in the server
(the history's ``duration_s``: the computation and its writing to the history). The
ratio of the two is what the page adds: its widgets, tables and charts, the release
put on the shelf, the progress bar. Target (issue 16): ≤ 1.3× on every page. The client
acknowledges every packet at once (TCP_QUICKACK): otherwise the server's small writes
wait for a delayed acknowledgement and every answer, a one-slider app's too, takes
about 40 ms more on this machine, which is the network stack's, not the page's.

Pages whose run makes no library call (Home, Learn, History, a page opened again) are
timed against a one-slider app's rerun on the same server, the floor of any page.
Median of ``ROUNDS`` fresh servers.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _util import ROOT, table
from bench_sessions import _button, _check, _elements, _rerun, _start_server, _stop_server

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET = 1.3
ROUNDS = 3
K_STEPS = (6, 7, 8)


def _slider(messages: list, label: str):
    for element, fragment in _elements(messages, "slider"):
        if element.label == label:
            return element, fragment
    raise AssertionError(f"no slider {label!r} in the answer")


def _runs(history_path: Path) -> list[dict]:
    from privcore import history

    return history.list_runs(limit=None, path=history_path) if history_path.exists() else []


async def _visit(base: str, history_path: Path) -> list[dict]:
    """One visitor's actions: (name, seconds, library seconds, kind) each."""
    import websockets
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    url = base.replace("http://", "ws://") + "/_stcore/stream"
    rows: list[dict] = []
    async with websockets.connect(url, subprotocols=["streamlit"], max_size=None) as ws:
        answer = await _rerun(ws, "", quickack=True)
        pages = {
            page.url_pathname: page.page_script_hash
            for message in answer
            if message.WhichOneof("type") == "navigation"
            for page in message.navigation.app_pages
        }

        async def timed(name, page, widgets=(), fragment="", marker=None, kind=None):
            before = max((r["id"] for r in _runs(history_path)), default=0)
            started = time.perf_counter()
            messages = await _rerun(ws, pages[page], list(widgets), fragment, quickack=True)
            seconds = time.perf_counter() - started
            _check(messages, marker)
            row = {"action": name, "seconds": seconds, "library": None, "kind": kind}
            if kind:
                new = [r for r in _runs(history_path) if r["id"] > before and r["kind"] == kind]
                if len(new) != 1:
                    raise AssertionError(f"{name}: {len(new)} new {kind} runs in the history")
                run = new[0]
                if (run.get("results") or {}).get("cached"):
                    raise AssertionError(f"{name}: served from the shared cache")
                row["library"] = float(run["duration_s"])
            rows.append(row)
            return messages

        await timed("Home: open again", "")
        answer = await timed("Anonymize: open", "anonymize")
        button, fragment = _button(answer, "an_run")
        answer = await timed(
            "Anonymize: press Anonymize (k = 5)",
            "anonymize",
            [WidgetState(id=button.id, trigger_value=True)],
            fragment,
            "k ≥ 5",
            "anonymize",
        )
        for k in K_STEPS:
            slider, fragment = _slider(answer, "k")
            state = WidgetState(id=slider.id)
            state.double_array_value.data.extend([float(k)])
            answer = await timed(
                f"Anonymize: k {k - 1} → {k} (live search)",
                "anonymize",
                [state],
                fragment,
                f"k ≥ {k}",
                "anonymize",
            )
        for name, page, key, marker, kind in (
            ("Privacy level", "privacy", "pl_measure", f"k ≥ {K_STEPS[-1]}", "measure"),
            ("Attack simulator", "attack", "at_build", None, None),
            ("Attack simulator", "attack", "at_run", "Example victims", "attack"),
            ("Release report", "report", "rp_go", "Saved in the history as runs", "report"),
            ("LDP auditor", "ldp", "ldp_run", None, "audit"),
        ):
            opened = await timed(f"{name}: open", page)
            button, fragment = _button(opened, key)
            await timed(
                f"{name}: press {key}",
                page,
                [WidgetState(id=button.id, trigger_value=True)],
                fragment,
                marker,
                kind,
            )
        await timed("History: open", "history")
    return rows


def _round() -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="bench_rerun_") as tmp:
        workdir = Path(tmp)
        proc, base, _log = _start_server(workdir)
        try:
            return asyncio.run(_visit(base, workdir / "history.db"))
        finally:
            _stop_server(proc)


def _floor() -> float:
    """A one-slider app's rerun on its own server, median of 20 (the Streamlit floor)."""
    import websockets
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    app = "import streamlit as st\nst.write(st.slider('x', 0, 100, 5))\n"
    with tempfile.TemporaryDirectory(prefix="bench_floor_") as tmp:
        workdir = Path(tmp)
        (workdir / "one_slider.py").write_text(app)
        proc, base, _log = _start_server(workdir, script=str(workdir / "one_slider.py"))

        async def go() -> float:
            url = base.replace("http://", "ws://") + "/_stcore/stream"
            async with websockets.connect(url, subprotocols=["streamlit"]) as ws:
                answer = await _rerun(ws, "", quickack=True)
                (slider, _), times = _elements(answer, "slider")[0], []
                for value in range(20):
                    state = WidgetState(id=slider.id)
                    state.double_array_value.data.extend([float(value)])
                    started = time.perf_counter()
                    await _rerun(ws, "", [state], quickack=True)
                    times.append(time.perf_counter() - started)
                return statistics.median(times)

        try:
            return asyncio.run(go())
        finally:
            _stop_server(proc)


def main() -> str:
    rounds = [_round() for _ in range(ROUNDS)]
    floor = _floor()
    out = []
    for i, row in enumerate(rounds[0]):
        seconds = statistics.median(r[i]["seconds"] for r in rounds)
        if row["library"] is None:
            out.append(
                [row["action"], f"{seconds:.3f}", "—", f"{seconds / floor:.1f}× the floor", ""]
            )
            continue
        library = statistics.median(r[i]["library"] for r in rounds)
        ratios = [r[i]["seconds"] / r[i]["library"] for r in rounds]
        ratio = statistics.median(ratios)
        met = "yes" if ratio <= TARGET else "**no**"
        out.append(
            [
                row["action"],
                f"{seconds:.3f}",
                f"{library:.3f} ({row['kind']})",
                f"{ratio:.2f}× ({min(ratios):.2f}–{max(ratios):.2f})",
                met,
            ]
        )
    head = ["action", "page s", "library call s (run)", "page ÷ library", f"≤ {TARGET}×"]
    return (
        table(head, out)
        + f"\n\nFloor: a one-slider app reruns in {floor * 1000:.0f} ms on the same machine"
        + f" (median of 20). Median of {ROUNDS} fresh servers."
    )


if __name__ == "__main__":
    print(main())
