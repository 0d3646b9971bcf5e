"""App cold start: `streamlit run` launched → first page rendered in Chromium.

Measured for this app and, in the same run, for a one-line Streamlit app as the floor
(what Streamlit itself costs). Median of 3 cold starts each, the two apps taking turns
(``--runs N`` for more). The first page counts as rendered when its heading shows; for
the app the table also gives when the whole Home page shows (its last element, after the
sample's figures), and every start's figures follow the table.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from _util import (
    CHROMIUM,
    CHROMIUM_ARGS,
    OUT,
    ROOT,
    free_port,
    streamlit_run,
    table,
    wait_healthy,
)
from playwright.sync_api import sync_playwright


def cold_start(script: str, heading: str, browser, last: str | None = None) -> list[float]:
    """Seconds from launch to the page's ``heading`` shown, then to the element with
    test id ``last`` shown (when given)."""
    port = free_port()
    env_history = OUT / "bench_history.db"
    start = time.perf_counter()
    proc = subprocess.Popen(
        streamlit_run(script, port),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"PRIVCORE_HISTORY": str(env_history), "PATH": "/usr/bin:/bin"},
    )
    try:
        if not wait_healthy(f"http://127.0.0.1:{port}", poll_s=0.05, timeout_s=1, proc=proc):
            raise RuntimeError(f"{script} did not start")
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_role("heading", name=heading).wait_for(timeout=60_000)
        elapsed = [time.perf_counter() - start]
        if last is not None:
            page.get_by_test_id(last).first.wait_for(timeout=60_000)
            elapsed.append(time.perf_counter() - start)
        page.close()
        return elapsed
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main(runs: int = 3) -> str:
    OUT.mkdir(parents=True, exist_ok=True)
    hello = OUT / "hello_app.py"
    hello.write_text('import streamlit as st\n\nst.title("Hello")\n')
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        hello_runs, app_runs = [], []
        for _ in range(runs):
            hello_runs.append(cold_start(str(hello), "Hello", browser))
            app_runs.append(cold_start("app.py", "Privacy Workbench", browser, "stExpander"))
        browser.close()
    hello_s = statistics.median(r[0] for r in hello_runs)
    app_s = statistics.median(r[0] for r in app_runs)
    whole_s = statistics.median(r[1] for r in app_runs)
    rows.append(["one-line Streamlit app", f"{hello_s:.2f}", "1.00×", f"{hello_s:.2f}"])
    rows.append(
        [
            "Privacy Workbench (Home page, Adult selected)",
            f"{app_s:.2f}",
            f"{app_s / hello_s:.2f}×",
            f"{whole_s:.2f} ({whole_s / hello_s:.2f}×)",
        ]
    )
    each = "\n".join(
        f"start {n + 1}: one-line {h[0]:.2f} s, app {a[0]:.2f} s (whole Home {a[1]:.2f} s)"
        for n, (h, a) in enumerate(zip(hello_runs, app_runs, strict=True))
    )
    headers = [
        "app",
        f"launch → first page rendered, s (median of {runs})",
        "ratio",
        "→ whole page shown, s",
    ]
    return table(headers, rows) + "\n\n" + each


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts of each app")
    print(main(parser.parse_args().runs))
