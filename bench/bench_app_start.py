"""App cold start: `streamlit run` launched → first page rendered in Chromium.

Measured for this app and, in the same run, for a one-line Streamlit app as the floor
(what Streamlit itself costs). Median of 3 cold starts each.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
import urllib.request

from _util import OUT, ROOT, table
from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cold_start(script: str, heading: str, browser) -> float:
    port = _port()
    env_history = OUT / "bench_history.db"
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"PRIVCORE_HISTORY": str(env_history), "PATH": "/usr/bin:/bin"},
    )
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_role("heading", name=heading).wait_for(timeout=60_000)
        elapsed = time.perf_counter() - start
        page.close()
        return elapsed
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> str:
    OUT.mkdir(parents=True, exist_ok=True)
    hello = OUT / "hello_app.py"
    hello.write_text('import streamlit as st\n\nst.title("Hello")\n')
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
        )
        results = {"hello": [], "app": []}
        for _ in range(3):
            results["hello"].append(cold_start(str(hello), "Hello", browser))
            results["app"].append(cold_start("app.py", "Privacy Workbench", browser))
        browser.close()
    hello_s = statistics.median(results["hello"])
    app_s = statistics.median(results["app"])
    rows.append(["one-line Streamlit app", f"{hello_s:.2f}", "1.00×"])
    rows.append(
        ["Privacy Workbench (Home page, Adult selected)", f"{app_s:.2f}", f"{app_s / hello_s:.2f}×"]
    )
    return table(["app", "launch → first page rendered, s (median of 3)", "ratio"], rows)


if __name__ == "__main__":
    print(main())
