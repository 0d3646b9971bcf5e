"""Two resource attacks on the hosted demo, replayed against a running server.

The server is started exactly as the container starts it: the Dockerfile's ``ENV`` and
``CMD`` (``streamlit run serve.py`` with the demo's flags), on a free port, with its own
history. A visitor (the "bystander") opens four pages — Home, Anonymize (the optimal
search on Adult, until its verdict is on screen), Privacy level, LDP auditor — once
while the server is idle, as the reference. Then an attacker in another browser context:

1. **LDP audit**: SUE with a domain of 10,000 and 10⁶ samples per input for every
   measure (AB, OB, lower bound) — the largest the demo's caps allow — started in two
   tabs, cancelled after 20 s, tabs closed;
2. **zip bomb**: an ``.xlsx`` of 8 MB whose sheet expands to 2.8 GB of XML (53 M rows
   of two numbers), and one of 156 kB with 10⁶ rows, uploaded on Data & roles, tabs
   closed after 15 s.

Once the attack's heavy part is under way (both audits started, both files sent) the
bystander opens the same four pages again. Reported per
attack: the server's peak resident memory (VmHWM of the process, against the demo's
memory budget), the bystander's page times against the idle reference, and the resident
memory once the attacker's sessions are gone (the demo drops a departed session after
``server.disconnectedSessionTTL`` seconds, and the housekeeping of ``ui/hosting.py``
returns freed heap to the system) against the memory before the attack.

Targets (issue: hardening, round two): peak below the demo budget; every page within
2× its idle time; memory back within 10 % of where it started.
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

from _util import OUT, ROOT, table
from playwright.sync_api import expect, sync_playwright

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
VIEWPORT = {"width": 1400, "height": 1000}
#: The memory one demo server process may use (the container's limit for it).
DEMO_BUDGET_MB = 2048
BOMB_ROWS = 53_000_000
SMALL_BOMB_ROWS = 1_000_000


# --------------------------------------------------------------------------- the server


def _dockerfile() -> tuple[dict[str, str], list[str]]:
    """The demo's environment and command, read from the Dockerfile."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    env: dict[str, str] = {}
    command: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("ENV "):
            for pair in line[4:].split():
                name, _, value = pair.partition("=")
                env[name] = value
        elif line.startswith("CMD "):
            command = json.loads(line[4:])
    return env, command


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """The demo server and a sampler of its resident memory."""

    def __init__(self, workdir: Path) -> None:
        env, command = _dockerfile()
        self.port = _free_port()
        args = [a for a in command if not a.startswith(("--server.port", "--server.address"))]
        args = [sys.executable if a == "python" else a for a in args]
        args += [f"--server.port={self.port}", "--server.address=127.0.0.1"]
        self.env = {
            **os.environ,
            **{k: v for k, v in env.items() if k != "PRIVCORE_HISTORY"},
            "PRIVCORE_HISTORY": str(workdir / "history.db"),
        }
        self.ttl = next(
            float(a.split("=", 1)[1])
            for a in args
            if a.startswith("--server.disconnectedSessionTTL")
        )
        self.log = (workdir / "server.log").open("w")
        self.proc = subprocess.Popen(
            args, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.3)
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _status(self, field: str) -> float:
        with open(f"/proc/{self.proc.pid}/status") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def rss(self) -> float:
        return self._status("VmRSS")

    def _sample(self) -> None:
        while not self._stop.is_set() and self.proc.poll() is None:
            self.samples.append((time.monotonic(), self.rss()))
            time.sleep(0.2)

    def peak_since(self, start: float) -> float:
        return max((mb for at, mb in self.samples if at >= start), default=float("nan"))

    def settle(self, extra: float = 20.0) -> float:
        """Wait until departed sessions are dropped and housekeeping has run; the RSS."""
        time.sleep(self.ttl + extra)
        return self.rss()

    def stop(self) -> None:
        self._stop.set()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


# --------------------------------------------------------------------------- pages


def _idle(page) -> None:
    page.wait_for_timeout(300)
    expect(page.locator("[data-testid=stStatusWidget]")).to_have_count(0, timeout=300_000)


def _open(page, base: str, link: str | None, ready) -> float:
    started = time.perf_counter()
    if link is None:
        page.goto(base)
    else:
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
    ready(page)
    _idle(page)
    return time.perf_counter() - started


PAGES = [
    (
        "Home",
        None,
        lambda p: expect(p.get_by_role("heading", name="Privacy Workbench")).to_be_visible(
            timeout=300_000
        ),
    ),
    (
        "Anonymize",
        "Anonymize",
        lambda p: expect(p.get_by_text("k ≥ 5").first).to_be_visible(timeout=300_000),
    ),
    (
        "Privacy level",
        "Privacy level",
        lambda p: expect(p.get_by_role("heading", name="Privacy level").first).to_be_visible(
            timeout=300_000
        ),
    ),
    (
        "LDP auditor",
        "LDP auditor",
        lambda p: expect(p.get_by_role("heading", name="LDP auditor").first).to_be_visible(
            timeout=300_000
        ),
    ),
]


def bystander_round(browser, base: str) -> dict[str, float]:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        return {name: _open(page, base, link, ready) for name, link, ready in PAGES}
    finally:
        context.close()


# --------------------------------------------------------------------------- attacks


def _number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    _idle(page)


def audit_attack(
    browser, base: str, started: threading.Event, tabs: int = 2, run_for: float = 20.0
) -> list[str]:
    """SUE, d = 10,000, 10⁶ samples for every measure, in ``tabs`` tabs; Cancel; close.
    Returns what each tab showed (an error message, or "running")."""
    context = browser.new_context(viewport=VIEWPORT)
    seen = []
    pages = []
    for _ in range(tabs):
        page = context.new_page()
        page.goto(f"{base}/ldp")
        expect(page.get_by_role("heading", name="LDP auditor").first).to_be_visible(timeout=120_000)
        _idle(page)
        page.get_by_test_id("stSelectbox").filter(has_text="Mechanism").first.click()
        page.get_by_role("option", name=re.compile("Symmetric unary")).first.click()
        _idle(page)
        _number(page, "Domain size d", 10_000)
        for label in (
            "Samples per input (AB)",
            "Samples per input (OB)",
            "Samples per input (lower bound)",
        ):
            _number(page, label, 1_000_000)
        pages.append(page)
    for page in pages:  # both tabs set up: start the audits together
        page.get_by_role("button", name="Run the audit").click()
    started.set()
    time.sleep(run_for)
    for page in pages:
        errors = page.get_by_test_id("stAlertContentError").all_inner_texts()
        seen.append(errors[0][:160] if errors else "running")
        page.get_by_role("button", name="Cancel").first.click()
    time.sleep(2)
    context.close()
    return seen


def _bomb(path: Path, rows: int) -> Path:
    """An .xlsx whose one sheet has ``rows`` rows of two small numbers (made once)."""
    if path.exists():
        return path
    ooxml = "http://schemas.openxmlformats.org"
    rels = f"{ooxml}/package/2006/relationships"
    officedoc = f"{ooxml}/officeDocument/2006/relationships"
    main = f"{ooxml}/spreadsheetml/2006/main"
    mime = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    head = '<?xml version="1.0" encoding="UTF-8"?>'
    parts = {
        "[Content_Types].xml": (
            f'{head}<Types xmlns="{ooxml}/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{mime}.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" '
            f'ContentType="{mime}.worksheet+xml"/></Types>'
        ),
        "_rels/.rels": (
            f'{head}<Relationships xmlns="{rels}"><Relationship Id="rId1" '
            f'Type="{officedoc}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
        ),
        "xl/workbook.xml": (
            f'{head}<workbook xmlns="{main}" xmlns:r="{officedoc}"><sheets>'
            '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": (
            f'{head}<Relationships xmlns="{rels}"><Relationship Id="rId1" '
            f'Type="{officedoc}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
        ),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(f'{head}<worksheet xmlns="{main}"><sheetData>'.encode())
            block = 100_000
            for start in range(1, rows + 1, block):
                count = min(block, rows + 1 - start)
                sheet.write(b'<row><c t="n"><v>1</v></c><c t="n"><v>2</v></c></row>' * count)
            sheet.write(b"</sheetData></worksheet>")
    partial.rename(path)
    return path


def upload_attack(
    browser, base: str, started: threading.Event, files: list[Path], hold: float = 15.0
) -> list[str]:
    """Upload each file on Data & roles in its own tab; close the tabs after ``hold`` s."""
    context = browser.new_context(viewport=VIEWPORT)
    pages, seen = [], []
    for file in files:
        page = context.new_page()
        page.goto(f"{base}/data")
        expect(page.get_by_role("heading", name="Data & roles").first).to_be_visible(
            timeout=120_000
        )
        _idle(page)
        page.locator("input[type=file]").first.set_input_files(str(file))
        pages.append(page)
    time.sleep(hold)
    for page in pages:
        errors = page.get_by_test_id("stAlertContentError").all_inner_texts()
        seen.append(errors[0][:160] if errors else "no message yet")
    context.close()
    return seen


# --------------------------------------------------------------------------- run


def _during(browser, base: str, attack) -> tuple[dict[str, float], list[str]]:
    """Run ``attack`` (in its own browser, in a thread); once its heavy part has begun
    (its tabs are set up and the audits or uploads started), the bystander's round."""
    result: dict = {}
    started = threading.Event()

    def run_attack() -> None:
        with sync_playwright() as pw:
            other = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                result["seen"] = attack(other, started)
            finally:
                started.set()
                other.close()

    def guarded() -> None:
        try:
            run_attack()
        except Exception as exc:  # noqa: BLE001 - re-raised below, in the main thread
            result["error"] = exc

    thread = threading.Thread(target=guarded)
    thread.start()
    started.wait(300)
    time.sleep(1)  # the heavy part is under way
    times = bystander_round(browser, base)
    thread.join()
    if "error" in result:  # a driver that failed measured nothing: say so
        raise RuntimeError("the attack could not be replayed") from result["error"]
    return times, result.get("seen", [])


def main() -> str:
    OUT.mkdir(parents=True, exist_ok=True)
    big = _bomb(OUT / "bomb_53M_rows.xlsx", BOMB_ROWS)
    small = _bomb(OUT / "bomb_1M_rows.xlsx", SMALL_BOMB_ROWS)
    rows = []
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                bystander_round(browser, server.base)  # warm the caches
                idle = [bystander_round(browser, server.base) for _ in range(2)]
                idle_times = {n: statistics.median(r[n] for r in idle) for n, _, _ in PAGES}
                attacks = {
                    "LDP audit (SUE, d = 10,000, 10⁶ samples, 2 tabs)": lambda b, go: audit_attack(
                        b, server.base, go
                    ),
                    f"xlsx bombs ({big.stat().st_size / 2**20:.1f} MB → 53 M rows; "
                    f"{small.stat().st_size / 2**10:.0f} kB → 10⁶ rows)": lambda b, go: (
                        upload_attack(b, server.base, go, [big, small])
                    ),
                }
                for name, attack in attacks.items():
                    before = server.settle(extra=5)
                    started = time.monotonic()
                    times, seen = _during(browser, server.base, attack)
                    peak = server.peak_since(started)
                    after = server.settle()
                    worst = max(times[n] / idle_times[n] for n in times)
                    rows.append(
                        [
                            name,
                            f"{before:,.0f}",
                            f"{peak:,.0f}",
                            f"{after:,.0f} ({(after - before) / before:+.0%})",
                            " · ".join(f"{n} {times[n]:.1f} s" for n in times),
                            f"{worst:.2f}×",
                        ]
                    )
                    notes.append(f"- {name}: the attacker's tabs showed: {seen}")
                browser.close()
        finally:
            server.stop()
    idle_text = " · ".join(f"{n} {idle_times[n]:.1f} s" for n in idle_times)
    return (
        f"Demo memory budget: {DEMO_BUDGET_MB:,} MB per server process. Bystander's pages when "
        f"idle: {idle_text}.\n\n"
        + table(
            [
                "attack",
                "RSS before (MB)",
                "peak RSS (MB)",
                "RSS after close (MB)",
                "bystander's pages during the attack",
                "worst page vs idle",
            ],
            rows,
        )
        + "\n\n"
        + "\n".join(notes)
    )


if __name__ == "__main__":
    print(main())
