"""Resource attacks on the hosted demo, replayed against a running server.

The server is started exactly as the container starts it: the Dockerfile's ``ENV`` and
``CMD`` (``streamlit run serve.py`` with the demo's flags), on a free port, with its own
history. Its memory is the resident set of the server process **and of every process
under it** (the workers of :mod:`privcore.core.workers` that heavy runs go to), sampled
every 0.2 s. A visitor (the "bystander") opens four pages — Home, Anonymize (the optimal
search on Adult, until its verdict is on screen), Privacy level, LDP auditor — on the
idle server, as the reference. Then an attacker in another browser:

1. **LDP audit**: SUE with a domain of 10,000 and 10⁶ samples per input for every
   measure (AB, OB, lower bound) — the largest the demo's caps allow — started in two
   tabs, cancelled after 20 s, tabs closed;
2. **zip bomb**: an ``.xlsx`` of 8 MB whose sheet expands to 2.8 GB of XML (53 M rows
   of two numbers), and one of 156 kB with 10⁶ rows, uploaded on Data & roles, tabs
   closed after 15 s;
3. **every heavy action of every page** (hardening, round three): the keys of
   :func:`ui.common.heavy.computing_keys` — the computing buttons the code of ``ui/`` and
   ``pages/`` draws, not a hand-kept list — each brought on screen by its entry in
   :data:`REPLAYS` (a key without one fails the bench) with the costliest parameters the
   demo's widgets allow where that is simple, on a table of ``PRIVCORE_MAX_ROWS``
   (200,000) rows uploaded by the attacker; each pressed, left to run up to
   ``RUN_FOR`` seconds, then cancelled (or its tab closed where it has no Cancel).
   Meanwhile the bystander opens its four pages in a loop in its own browser.

Reported per attack (1, 2): the peak memory, the bystander's page times against the idle
reference, and the memory once the attacker's sessions are gone (the demo drops a
departed session after ``server.disconnectedSessionTTL`` seconds, and the housekeeping of
``ui/common/hosting.py`` returns freed heap to the system) against the memory before. Per heavy
action (3): what the page showed (a refusal's words, "ran", "cancelled"), the peak memory
while it ran, the memory 5 s after Cancel or close, and the bystander's pages meanwhile;
overall: the bystander's p95 page time during the replay against its idle p95, the peak
against the demo's budget, and the memory once every attacker tab is closed.

Targets (issue: hardening, rounds two and three): peak below the demo budget; the
bystander within 2× its idle times; memory back to at most 10 % above where it started.

``python bench/bench_resource_attacks.py [--only KEY,KEY] [--no-attacks] [--run-for S]``
(a partial replay while developing; the whole bench takes about a quarter of an hour on
2 cores).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
from _util import CHROMIUM, CHROMIUM_ARGS, OUT, ROOT, free_port, table, tree_rss_kb, wait_healthy
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(ROOT))

from privcore.dp.audit import MAX_SAMPLES as DP_AUDIT_MAX_SAMPLES
from privcore.words.catalog import text
from ui.common.heavy import computing_keys, declared_buttons

VIEWPORT = {"width": 1400, "height": 1000}
#: The memory one demo server may use, its workers included (the container's limit).
DEMO_BUDGET_MB = 2048
BOMB_ROWS = 53_000_000
SMALL_BOMB_ROWS = 1_000_000
#: How long a heavy action is left to run before its Cancel (or the tab's close).
RUN_FOR = 9.0
#: When the memory "after" an action is read: seconds after its Cancel or close.
AFTER_S = 5.0


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


class Server:
    """The demo server and a sampler of its resident memory (workers included)."""

    def __init__(self, workdir: Path) -> None:
        env, command = _dockerfile()
        self.port = free_port()
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
        wait_healthy(self.base, poll_s=0.3)
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def rss(self) -> float:
        """MB resident: the server and every process under it (its workers)."""
        return tree_rss_kb(self.proc.pid) / 1024

    def _children(self) -> list[int]:
        """The processes under the server (its workers), all generations."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                parents[int(entry.name)] = int(stat[1])
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            children = [c for c, parent in parents.items() if parent == pid]
            found += children
            todo.extend(children)
        return found

    def workers(self) -> int:
        """How many processes run under the server (its workers)."""
        return len(self._children())

    def breakdown(self) -> str:
        """The memory in words: the server process's, then each worker's."""

        def mb(pid: int) -> float:
            try:
                with open(f"/proc/{pid}/status") as fh:
                    line = next(x for x in fh if x.startswith("VmRSS"))
                return int(line.split()[1]) / 1024
            except (OSError, StopIteration):
                return 0.0

        workers = [mb(pid) for pid in self._children()]
        return f"server {mb(self.proc.pid):,.0f} MB + workers " + (
            " + ".join(f"{w:,.0f}" for w in workers) if workers else "none"
        )

    def _sample(self) -> None:
        while not self._stop.is_set() and self.proc.poll() is None:
            self.samples.append((time.monotonic(), self.rss()))
            time.sleep(0.2)

    def peak_since(self, start: float, end: float = float("inf")) -> float:
        return max((mb for at, mb in self.samples if start <= at <= end), default=float("nan"))

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


def _anonymized(page) -> None:
    """The Anonymize page makes a release when asked: press Anonymize, see its verdict."""
    page.locator(".st-key-an_run button").first.click(timeout=300_000)
    expect(page.get_by_text("k ≥ 5").first).to_be_visible(timeout=300_000)


PAGES = [
    (
        "Home",
        None,
        lambda p: expect(p.get_by_role("heading", name="Privacy Workbench")).to_be_visible(
            timeout=300_000
        ),
    ),
    ("Anonymize", "Anonymize", _anonymized),
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


def bystander_round(browser, base: str, log: list | None = None) -> dict[str, float]:
    """The bystander's four pages in a new session; each page's time, also appended to
    ``log`` as (monotonic time at its end, page, seconds)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    times = {}
    try:
        for name, link, ready in PAGES:
            times[name] = _open(page, base, link, ready)
            if log is not None:
                log.append((time.monotonic(), name, times[name]))
        return times
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
        seen.append(_one_line(errors[0])[:200] if errors else "running")
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
        seen.append(_one_line(errors[0])[:200] if errors else "no message yet")
    context.close()
    return seen


# --------------------------------------------------------------------------- every heavy action


class NotOffered(Exception):
    """The demo does not draw this action (the message says why)."""


def _one_line(words: str) -> str:
    """A message in one line, without the name of its icon (a Material ligature that
    comes first in its text)."""
    return re.sub(r"^(error|block|warning)\s+", "", " ".join(words.split()))


def _en(key: str, **params) -> str:
    """A string of the app's catalogue, in English (the attacker's language)."""
    return text(key, "en", **params)


def _css(key: str) -> str:
    """The selector of the element Streamlit drew with ``key`` (its class, as the
    frontend writes it: ``st-key-`` and the key with other characters than letters,
    digits, ``_`` and ``-`` replaced by ``-``)."""
    return ".st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


def _busy(page) -> bool:
    return page.locator("[data-testid=stStatusWidget]").count() > 0


def _wait_done(page, timeout: float) -> bool:
    """Wait until the page's script has stopped running, at most ``timeout`` s; whether
    it has. (Streamlit shows its status widget a moment after a run starts: a run not
    seen within 1.5 s was a short one.)"""
    deadline = time.monotonic() + timeout
    seen = time.monotonic() + 1.5
    while time.monotonic() < seen and not _busy(page):
        page.wait_for_timeout(100)
    while time.monotonic() < deadline:
        if not _busy(page):
            page.wait_for_timeout(300)  # a rerun that follows at once (st.rerun)
            if not _busy(page):
                return True
        page.wait_for_timeout(100)
    return not _busy(page)


def cancel_keys(root: Path | None = None) -> dict[str, str | None]:
    """The Cancel key of each computing button, read from the ``heavy_button`` calls of
    ``ui/`` and ``pages/`` (``cancel_key=``, else ``<key>_cancel``; None where it is
    drawn with ``cancel=False``)."""
    root = root or ROOT
    found: dict[str, str | None] = {}
    for rel, kind, _ in declared_buttons(root):
        if kind != "heavy_button":
            continue
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name != "heavy_button":
                continue
            words = {k.arg: k.value for k in node.keywords}
            key = words.get("key")
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                continue
            cancel = words.get("cancel")
            if isinstance(cancel, ast.Constant) and cancel.value is False:
                found.setdefault(key.value, None)
                continue
            given = words.get("cancel_key")
            if isinstance(given, ast.Constant) and isinstance(given.value, str):
                found[key.value] = given.value
            else:
                found.setdefault(key.value, f"{key.value}_cancel")
    return found


@dataclass
class Files:
    """What the attacker uploads (written once under ``bench/out``)."""

    table: Path  # PRIVCORE_MAX_ROWS rows: the demo's largest table
    outputs: Path  # a DP mechanism's outputs on two neighbouring data sets
    samples: Path  # logged (input, output) pairs of an LDP mechanism
    widest: list[str]  # the table's columns, those with most distinct values first


def make_files(rows: int) -> Files:
    """A synthetic census-like table of ``rows`` rows: age 17–90, a 5-digit ZIP code
    of 3,000 values, sex, education, occupation, income, disease (the roles the page
    suggests: age, zip, sex, education quasi-identifiers; the rest sensitive)."""
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    path = OUT / f"attacker_{rows}_rows.csv"
    education = [
        "Preschool",
        "1st-4th",
        "5th-6th",
        "7th-8th",
        "9th",
        "10th",
        "11th",
        "12th",
        "HS-grad",
        "Some-college",
        "Assoc-voc",
        "Assoc-acdm",
        "Bachelors",
        "Masters",
        "Prof-school",
        "Doctorate",
    ]
    occupation = [
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
    ]
    disease = [
        "flu",
        "diabetes",
        "asthma",
        "cancer",
        "hypertension",
        "hiv",
        "depression",
        "arthritis",
        "migraine",
        "none",
    ]
    frame = pd.DataFrame(
        {
            "age": rng.integers(17, 91, rows),
            "zip": rng.choice(rng.integers(10_000, 100_000, 3_000), rows).astype(str),
            "sex": rng.choice(["Male", "Female"], rows),
            "education": rng.choice(education, rows),
            "occupation": rng.choice(occupation, rows),
            "income": rng.lognormal(10.5, 0.6, rows).round(-2).astype(int),
            "disease": rng.choice(disease, rows),
        }
    )
    if not path.exists():
        frame.to_csv(path, index=False)
    widest = frame.nunique().sort_values(ascending=False, kind="stable").index.tolist()
    outputs = OUT / "attacker_dp_outputs.csv"
    if not outputs.exists():
        pd.DataFrame(
            {"d": rng.laplace(0.0, 1.0, 200_000), "d_prime": rng.laplace(1.0, 1.0, 200_000)}
        ).to_csv(outputs, index=False)
    samples = OUT / "attacker_ldp_samples.csv"
    if not samples.exists():
        x = rng.integers(0, 4, 200_000)
        pd.DataFrame({"x": x, "y": (x + (rng.random(200_000) < 0.3)) % 4}).to_csv(
            samples, index=False
        )
    return Files(path, outputs, samples, [str(c) for c in widest])


class Attacker:
    """One browser tab (one Streamlit session) that the replays drive, and what its
    session holds so far (``held``: "data", "release", "spec", "roll", "second")."""

    NAV: ClassVar[dict[str, str]] = {
        "": "nav.home",
        "learn": "nav.learn",
        "data": "nav.data",
        "anonymize": "nav.anonymize",
        "privacy": "nav.privacy",
        "attack": "nav.attack",
        "ldp": "nav.ldp",
        "dp": "nav.dp",
        "report": "nav.report",
        "history": "nav.history",
    }

    def __init__(self, browser, base: str, files: Files) -> None:
        self.base, self.files = base, files
        self.context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
        self.context.set_default_timeout(60_000)
        self.page = None
        self.held: set[str] = set()
        self.spec: Path | None = None
        self.new_tab()

    def new_tab(self) -> None:
        """A new tab: a new session, holding nothing."""
        self.page = self.context.new_page()
        self.page.goto(self.base)
        expect(self.page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(
            timeout=120_000
        )
        _idle(self.page)
        self.held = set()

    def close_tab(self) -> None:
        self.page.close()
        self.new_tab()

    def close(self) -> None:
        self.context.close()

    def goto(self, path: str) -> None:
        """Open a page through the sidebar (a new URL would be a new session)."""
        nav = self.page.get_by_test_id("stSidebarNav")
        nav.get_by_role("link", name=_en(self.NAV[path]), exact=True).click()
        self.page.wait_for_url(re.compile(rf"{re.escape(self.base)}/{path}(\?.*)?$"))
        _idle(self.page)

    # ----------------------------------------------------------------- widgets

    def tab(self, label_key: str) -> None:
        self.page.get_by_role("tab", name=_en(label_key), exact=True).first.click()
        _idle(self.page)

    def expand(self, label_key: str) -> None:
        summary = self.page.locator("summary").filter(has_text=_en(label_key)).first
        if summary.locator("xpath=..").get_attribute("open") is None:
            summary.click()
        _idle(self.page)

    def number(self, key: str, value: float) -> None:
        """``value``, or the widget's top where it allows less."""
        box = self.page.locator(f"{_css(key)} input").first
        top = box.get_attribute("max")
        if top is not None and float(top) < value:
            value = type(value)(float(top))
        box.fill(str(value))
        box.press("Enter")
        _idle(self.page)

    def text_input(self, key: str, value: str) -> None:
        box = self.page.locator(f"{_css(key)} input").first
        box.fill(value)
        box.press("Enter")
        _idle(self.page)

    def choose(self, key: str, option: str | re.Pattern) -> None:
        box = self.page.locator(_css(key)).get_by_role("combobox").first
        box.click()
        box.fill("")  # the box filters the options by what it holds
        self.page.get_by_role("option", name=option).first.click()
        _idle(self.page)

    def radio(self, key: str, option: str | int) -> None:
        labels = self.page.locator(f"{_css(key)} label:has(input[type=radio])")
        (
            labels.nth(option) if isinstance(option, int) else labels.filter(has_text=option)
        ).first.click()
        _idle(self.page)

    def multiselect(self, key: str, options: list[str]) -> list[str]:
        """Exactly ``options`` (in this order where the widget keeps it); the choice."""
        root = self.page.locator(_css(key))
        clear = root.get_by_role("button", name="Clear all")
        if clear.count():
            clear.first.click()
            _idle(self.page)
        box = root.get_by_role("combobox").first
        for _ in range(3):  # a value the page puts back (its default) is taken out again
            chosen = root.locator("[data-tag] [title]").all_inner_texts()
            for extra in [c for c in chosen if c not in options]:
                root.get_by_role("button", name=f"Remove {extra}", exact=True).first.click()
                _idle(self.page)
            for option in options:
                if option in root.locator("[data-tag] [title]").all_inner_texts():
                    continue
                box.click()
                box.fill(option)
                self.page.get_by_role("option", name=option, exact=True).first.click()
                box.press("Escape")
                _idle(self.page)
            chosen = root.locator("[data-tag] [title]").all_inner_texts()
            if sorted(chosen) == sorted(options):
                return chosen
        raise RuntimeError(f"{key}: chose {chosen}, not {options}")

    def upload(self, key: str | None, path: Path) -> None:
        where = self.page.locator(_css(key)) if key else self.page
        where.locator("input[type=file]").first.set_input_files(str(path))
        _idle(self.page)

    def button(self, key: str):
        return self.page.locator(f"{_css(key)} button").first

    def press_and_wait(self, key: str, timeout: float = 600) -> None:
        """Press ``key``'s button and wait until the run ends (a setup step)."""
        self.button(key).click()
        if not _wait_done(self.page, timeout):
            raise TimeoutError(f"{key} still running after {timeout:.0f} s")
        errors = self.errors()
        if errors:
            raise RuntimeError(f"{key}: {errors[0]}")

    def errors(self) -> list[str]:
        """The error messages on the page, in one line each (a traceback first)."""
        shown = self.page.get_by_test_id("stAlertContentError").all_inner_texts()
        raw = self.page.get_by_test_id("stException").all_inner_texts()
        return [_one_line(w) for w in [f"RAW EXCEPTION: {r}" for r in raw] + shown]

    # ----------------------------------------------------------------- prerequisites

    def ensure(self, need: str) -> None:
        if need in self.held:
            return
        {
            "data": self._data,
            "release": self._release,
            "spec": self._spec,
            "roll": self._roll,
            "second": self._second,
        }[need]()
        self.held.add(need)

    def _data(self) -> None:
        """The attacker's table uploaded, suggested hierarchies and roles confirmed."""
        self.goto("data")
        self.upload(None, self.files.table)
        expect(self.page.get_by_text(self.files.table.name).first).to_be_visible(timeout=300_000)
        _wait_done(self.page, 300)
        if self.errors():
            raise RuntimeError(f"upload refused: {self.errors()[0]}")
        self.tab("data.tab_hierarchies")
        self.page.locator("[class*='st-key-use_suggested--'] button").first.click()
        _wait_done(self.page, 120)
        self.tab("data.tab_roles")
        self.page.locator("[class*='st-key-confirm--'] button").first.click()
        _wait_done(self.page, 300)
        expect(self.page.get_by_text(_en("roles.confirmed_state"))).to_be_visible()

    def _release(self) -> None:
        """A release of the table on the shelf (the Anonymize page's defaults)."""
        self.ensure("data")
        self.goto("anonymize")
        if self.page.locator(_css("an_name")).count() == 0:
            self.press_and_wait("an_run")
        expect(self.page.locator(_css("an_name"))).to_be_visible()

    def _spec(self) -> None:
        """The release's generalization spec, downloaded from the Anonymize page."""
        self.ensure("release")
        self.goto("anonymize")
        self.page.locator(_css("an_view")).get_by_role("tab", name=_en("tab.download")).click()
        _idle(self.page)
        with self.page.expect_download(timeout=120_000) as download:
            self.page.get_by_role("button", name=_en("an.download_spec")).click()
        self.spec = OUT / "attacker_release_spec.json"
        download.value.save_as(self.spec)

    def _roll(self) -> None:
        """The synthetic voter roll built on the Attack page."""
        self.ensure("release")
        self.goto("attack")
        if self.page.get_by_text(_en("at.build_first")).count():
            self.press_and_wait("at_build")
        expect(self.page.get_by_role("tab", name=_en("at.tab_two"))).to_be_visible()

    def _second(self) -> None:
        """A second release with other rows (Mondrian on the same controls)."""
        self.ensure("release")
        self.goto("anonymize")
        self.choose("an_algorithm", _en("alg.mondrian"))
        _wait_done(self.page, 600)
        self.press_and_wait("an_run")
        self.choose("an_algorithm", re.compile(_en("alg.optimal")))
        _wait_done(self.page, 600)


# Each setup runs with the page open (``Replay.path``) and what ``needs`` names held;
# it leaves the action's button on screen, with the costliest parameters that the
# demo's widgets allow where that is simple.


def _ldp_run(a: Attacker) -> None:
    a.tab("ldp.tab_mechanism")
    a.choose("ldp_mechanism", re.compile("Symmetric unary"))
    a.number("ldp_d", 10**9)  # the widget's top: 10,000
    for key in ("ldp_n_ab", "ldp_n_ob", "ldp_n_lb"):
        a.number(key, 10**9)  # the widget's top: the demo's PRIVCORE_MAX_AUDIT_SAMPLES


def _ldp_samples(a: Attacker) -> None:
    a.tab("ldp.tab_samples")
    a.upload("ldp_samples", a.files.samples)


def _ldp_sweep(a: Attacker) -> None:
    a.tab("ldp.tab_sweep")
    a.choose("ldp_sweep_mechanism", re.compile("Symmetric unary"))
    a.text_input("ldp_sweep_list", "0.1, 0.25, 0.5, 1, 2, 4, 8, 10")


def _ldp_reconstruction(a: Attacker) -> None:
    a.tab("ldp.tab_reconstruction")
    a.number("ldp_rc_n", 10**9)  # the widget's top
    a.radio("ldp_rc_method", _en("ldp.rc_em"))


def _learn(a: Attacker) -> None:
    a.radio("learn_lesson", 4)


def _dp_audit(a: Attacker) -> None:
    a.tab("dp.tab_audit")
    a.number("dp_audit_samples", 10**9)  # the widget's top


def _dp_outputs(a: Attacker) -> None:
    a.tab("dp.tab_audit")
    a.upload("dp_outputs", a.files.outputs)


def _dp_histogram(a: Attacker, columns: int) -> None:
    a.tab("dp.tab_queries")
    a.radio("dp_query", _en("dp.query_histogram"))
    a.multiselect("dp_histogram_columns", a.files.widest[:columns])


def _dp_release(a: Attacker) -> None:
    """The quasi-identifiers but zip: with zip (3,000 values) the page refuses the
    release before any work (its marginals would have more cells than it allows)."""
    a.tab("dp.tab_release")
    a.multiselect("dp_release_qi", ["age", "sex", "education"])


def _dp_accuracy(a: Attacker) -> None:
    _dp_histogram(a, 4)  # the widget's most columns, those with most values
    a.tab("dp.tab_accuracy")
    a.radio("dp_acc_source", _en("dp.acc_source_builder"))


def _compare(a: Attacker) -> None:
    a.expand("an.compare_title")
    heavy_first = ["mdav", "kaca", "condensation", "incognito", "optimal", "samarati"]
    light = ["datafly", "mondrian", "local_suppression", "noise", "pram", "rank_swap"]
    a.multiselect("an_compare", [_en(f"alg.{x}") for x in heavy_first + light + ["top_bottom"]])


def _replay_spec(a: Attacker) -> None:
    a.expand("an.replay_title")
    a.upload("an_replay_file", a.spec)


def _background(a: Attacker) -> None:
    a.tab("at.tab_background")
    a.page.locator(_css("at_m")).get_by_role("slider").first.press("End")
    _idle(a.page)


def _two_releases(a: Attacker) -> None:
    """A second release whose rows differ from the first's (the page refuses two
    releases with the same rows: the spec's replay is the optimal release again)."""
    a.tab("at.tab_two")
    box = a.page.locator(_css("at_second")).get_by_role("combobox").first
    box.click()
    box.fill("")
    names = a.page.get_by_role("option").all_inner_texts()
    box.press("Escape")
    for name in names:
        if not a.button("at_two").is_disabled():
            return
        a.choose("at_second", re.compile(f"^{re.escape(name.strip())}$"))


def _local_tables(a: Attacker) -> None:
    a.expand("lt.open_title")
    if a.page.get_by_text(_en("lt.disabled")).count():
        raise NotOffered(_en("lt.disabled"))
    a.text_input("lt_path", str(a.files.table))


def _nothing(a: Attacker) -> None:
    return None


@dataclass(frozen=True)
class Replay:
    path: str  # the page's URL path ("" for Home)
    setup: Callable[[Attacker], None]
    needs: tuple[str, ...] = ()
    words: str = ""  # the parameters, in words


#: Every computing action of every page → how to bring it on screen, in the order
#: they are replayed (those that need only the demo first, those without Cancel last).
REPLAYS: dict[str, Replay] = {
    "learn_l5_audit": Replay("learn", _learn, words="lesson 5's audit of GRR and broken GRR"),
    "ldp_run": Replay(
        "ldp", _ldp_run, words="SUE, d = 10,000, every measure at the demo's most samples"
    ),
    "ldp_run_samples": Replay(
        "ldp", _ldp_samples, words="200,000 logged pairs (x, y) of a 4-value mechanism, OB"
    ),
    "ldp_run_sweep": Replay("ldp", _ldp_sweep, words="SUE at 8 values of ε"),
    "ldp_rc_run": Replay("ldp", _ldp_reconstruction, words="10⁶ values, EM"),
    "dp_audit_run": Replay(
        "dp", _dp_audit, words=f"default mechanism, {DP_AUDIT_MAX_SAMPLES:,} draws per data set"
    ),
    "dp_audit_outputs": Replay("dp", _dp_outputs, words="200,000 uploaded outputs on d and on d′"),
    "dp_play": Replay("dp", lambda a: a.tab("dp.tab_dinner"), words="the dinner story"),
    "an_run": Replay(
        "anonymize", _nothing, ("data",), "optimal search, 4 QIs (suggested hierarchies), 3 SAs"
    ),
    "an_compare_run": Replay(
        "anonymize", _compare, ("data", "release"), "all 13 algorithms, the costliest first"
    ),
    "an_replay_run": Replay(
        "anonymize", _replay_spec, ("data", "spec"), "the optimal release's spec"
    ),
    "pl_measure": Replay("privacy", _nothing, ("data", "release"), "the optimal release"),
    "pl_risk_assess": Replay("privacy", _nothing, ("data", "release"), "the optimal release"),
    "rp_go": Replay("report", _nothing, ("data", "release"), "the optimal release"),
    "at_build": Replay(
        "attack", _nothing, ("data", "release"), "a synthetic roll of 200,000 people"
    ),
    "at_run": Replay("attack", _nothing, ("data", "roll"), "linkage against the roll"),
    "at_run_background": Replay(
        "attack", _background, ("data", "roll"), "m = 10 (the slider's top)"
    ),
    "at_rec_run": Replay(
        "attack",
        lambda a: a.tab("at.tab_reconstruction"),
        ("data",),
        "the tables suggested from the roles, whole table as one block",
    ),
    "at_run_ordering": Replay(
        "attack", lambda a: a.tab("at.tab_ordering"), ("data", "roll"), "the optimal release"
    ),
    "at_two": Replay(
        "attack", _two_releases, ("data", "roll", "second"), "two releases whose rows differ"
    ),
    "dp_release_run": Replay(
        "dp",
        _dp_release,
        ("data",),
        "QIs age, sex, education (all but zip), optimal, GDPR risks",
    ),
    "dp_acc_run": Replay(
        "dp", _dp_accuracy, ("data",), "histogram over the 4 columns with most values"
    ),
    "dp_answer": Replay("dp", lambda a: _dp_histogram(a, 3), ("data",), "histogram over 3 columns"),
    "dp_attack_person": Replay(
        "dp", lambda a: a.tab("dp.tab_dinner"), ("data",), "row 0 of 200,000"
    ),
    "lt_open": Replay("data", _local_tables, (), "the attacker's CSV as a server path"),
}


def replay_order(keys: set[str]) -> list[str]:
    """The keys to replay, in :data:`REPLAYS`' order; a computing key without an entry
    (a new button) or an entry without its key (a button gone) fails the bench."""
    missing, stale = keys - set(REPLAYS), set(REPLAYS) - keys
    if missing or stale:
        raise SystemExit(
            "bench_resource_attacks: REPLAYS does not match ui.common.heavy.computing_keys(): "
            f"no replay for {sorted(missing)}; no such button any more: {sorted(stale)}"
        )
    return [key for key in REPLAYS if key in keys]


@dataclass
class Replayed:
    key: str
    shown: str
    start: float
    end: float  # when the run ended, or was cancelled / its tab closed
    before_mb: float = float("nan")  # at the press
    after_mb: float = float("nan")  # AFTER_S after the end
    workers: tuple[int, int] = (0, 0)  # processes under the server: at the press, after
    stopped: bool = False  # cancelled, or its tab closed


def replay_one(
    a: Attacker, key: str, cancel: str | None, run_for: float, server: Server
) -> Replayed:
    """Bring ``key`` on screen, press it, let it run ``run_for`` s at most, then Cancel
    (or close the tab); what the page showed, and ``server``'s memory at the press."""
    spec = REPLAYS[key]
    for need in spec.needs:
        a.ensure(need)
    a.goto(spec.path)
    now = time.monotonic()
    try:
        spec.setup(a)
    except NotOffered as why:
        return Replayed(key, f"not offered by the demo: {why}", now, now)
    button = a.button(key)
    expect(button).to_be_visible(timeout=60_000)
    if button.is_disabled():
        return Replayed(key, "button disabled: nothing to replay", now, now)
    before, workers = server.rss(), server.workers()
    start = time.monotonic()
    button.click()
    done = _wait_done(a.page, run_for)
    ran = time.monotonic() - start
    if done:
        errors = a.errors()
        shown = f"ended in {ran:.1f} s showing: “{errors[0]}”" if errors else f"ran ({ran:.1f} s)"
        return Replayed(key, shown, start, time.monotonic(), before, workers=(workers, 0))
    end = time.monotonic()
    if cancel and a.page.locator(f"{_css(cancel)} button").count():
        a.page.locator(f"{_css(cancel)} button").first.click()
        stopped = _wait_done(a.page, 120)
        took = time.monotonic() - end
        errors = a.errors()
        shown = f"cancelled after {ran:.0f} s, page idle {took:.1f} s later" + (
            "" if stopped else " — STILL RUNNING 120 s after Cancel"
        )
        if errors:
            shown += f"; showing: “{errors[0]}”"
        return Replayed(key, shown, start, end, before, workers=(workers, 0), stopped=True)
    a.close_tab()
    shown = f"still running after {ran:.0f} s: tab closed"
    return Replayed(key, shown, start, end, before, workers=(workers, 0), stopped=True)


class Bystander(threading.Thread):
    """The bystander's four pages, in a loop, in its own browser, until stopped."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.log: list[tuple[float, str, float]] = []
        self.error: Exception | None = None
        self.halt = threading.Event()

    def run(self) -> None:
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                while not self.halt.is_set():
                    bystander_round(browser, self.base, self.log)
                browser.close()
        except Exception as exc:  # noqa: BLE001 - reported by the caller
            self.error = exc

    def stop(self) -> None:
        self.halt.set()
        self.join(600)

    def between(self, start: float, end: float) -> list[float]:
        """The page times of the pages that ended between ``start`` and ``end``."""
        return [seconds for at, _, seconds in self.log if start <= at <= end]


def p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def replay_all(browser, server: Server, files: Files, keys: list[str], run_for: float) -> dict:
    """Every heavy action of ``keys``, one after the other, while the bystander loops."""
    cancels = cancel_keys()
    rows: list[Replayed] = []
    bystander = Bystander(server.base)
    attacker = Attacker(browser, server.base, files)
    started = time.monotonic()
    bystander.start()
    try:
        for key in keys:
            try:
                done = replay_one(attacker, key, cancels.get(key), run_for, server)
            except (PlaywrightError, RuntimeError, TimeoutError, AssertionError) as exc:
                shot = OUT / f"replay_{key}.png"
                with contextlib.suppress(PlaywrightError):
                    attacker.page.screenshot(path=str(shot), full_page=True)
                line = str(exc).strip().splitlines()[0][:200]
                now = time.monotonic()
                done = Replayed(key, f"REPLAY FAILED ({line}); screenshot {shot.name}", now, now)
                attacker.close_tab()
            if done.end > done.start:
                time.sleep(max(0.0, done.end + AFTER_S - time.monotonic()))
                done.after_mb = server.rss()
                done.workers = (done.workers[0], server.workers())
            rows.append(done)
            print(f"[replay] {key}: {done.shown}", file=sys.stderr, flush=True)
    finally:
        attacker.close()
        bystander.stop()
    finished = time.monotonic()
    if bystander.error is not None:
        raise RuntimeError("the bystander could not open its pages") from bystander.error
    return {
        "rows": rows,
        "at_end": server.breakdown(),
        "bystander": bystander,
        "started": started,
        "finished": finished,
        "cancels": cancels,
    }


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


def _attacks(browser, server: Server, idle_times: dict[str, float]) -> tuple[list, list, float]:
    """The two attacks of round two; their rows, notes, and the memory after the last."""
    big = _bomb(OUT / "bomb_53M_rows.xlsx", BOMB_ROWS)
    small = _bomb(OUT / "bomb_1M_rows.xlsx", SMALL_BOMB_ROWS)
    attacks = {
        "LDP audit (SUE, d = 10,000, 10⁶ samples, 2 tabs)": lambda b, go: audit_attack(
            b, server.base, go
        ),
        f"xlsx bombs ({big.stat().st_size / 2**20:.1f} MB → 53 M rows; "
        f"{small.stat().st_size / 2**10:.0f} kB → 10⁶ rows)": lambda b, go: upload_attack(
            b, server.base, go, [big, small]
        ),
    }
    rows, notes = [], []
    before = server.settle(extra=5)
    for name, attack in attacks.items():
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
        before = after
    return rows, notes, before


def _replay_report(
    server: Server, replayed: dict, idle: list[float], before: tuple[float, str]
) -> str:
    bystander: Bystander = replayed["bystander"]
    rows = []
    for r in replayed["rows"]:
        cancel = replayed["cancels"].get(r.key)
        if r.end <= r.start:  # not pressed: nothing measured
            rows.append(
                [f"`{r.key}`", "/" + REPLAYS[r.key].path, REPLAYS[r.key].words, r.shown] + ["—"] * 5
            )
            continue
        pages = bystander.between(r.start, r.end + AFTER_S)
        rows.append(
            [
                f"`{r.key}`",
                "/" + REPLAYS[r.key].path,
                REPLAYS[r.key].words,
                r.shown,
                f"`{cancel}`" if cancel else "none (tab closed if still running)",
                f"{r.before_mb:,.0f} ({r.workers[0]} w.)",
                f"{server.peak_since(r.start, r.end + AFTER_S):,.0f}",
                f"{r.after_mb:,.0f} ({(r.after_mb - r.before_mb) / r.before_mb:+.0%}; "
                f"{r.workers[1]} w.)",
                f"{max(pages):.1f} s ({len(pages)} pages)" if pages else "—",
            ]
        )
    grown = [
        f"`{r.key}` {(r.after_mb - r.before_mb) / r.before_mb:+.0%} "
        f"(workers {r.workers[0]} → {r.workers[1]})"
        for r in replayed["rows"]
        if r.stopped and r.after_mb > 1.10 * r.before_mb
    ]
    kept = [
        f"`{r.key}` {(r.after_mb - r.before_mb) / r.before_mb:+.0%}"
        for r in replayed["rows"]
        if r.end > r.start and not r.stopped and r.after_mb > 1.10 * r.before_mb
    ]
    during = bystander.between(replayed["started"], replayed["finished"])
    peak = server.peak_since(replayed["started"], replayed["finished"])
    after = server.settle()
    after_words = server.breakdown()
    idle_p95, during_p95 = p95(idle), p95(during)
    ratio = during_p95 / idle_p95
    before, before_words = before
    drift = (after - before) / before
    by_page = {}
    for _, name, seconds in bystander.log:
        by_page.setdefault(name, []).append(seconds)
    page_words = " · ".join(
        f"{n} median {statistics.median(v):.1f} s, p95 {p95(v):.1f} s" for n, v in by_page.items()
    )
    verdict = [
        f"- peak {peak:,.0f} MB (server + workers) against the budget of {DEMO_BUDGET_MB:,} MB: "
        + ("**met**" if peak < DEMO_BUDGET_MB else "**missed**"),
        f"- bystander's p95 page time {during_p95:.2f} s during the replay ({len(during)} pages) "
        f"against {idle_p95:.2f} s idle ({len(idle)} pages): {ratio:.2f}× — "
        + ("**met** (≤ 2×)" if ratio <= 2 else "**missed** (> 2×)"),
        f"- memory once every attacker tab is closed and the sessions are dropped: {after:,.0f} MB "
        f"against {before:,.0f} MB before the replay ({drift:+.1%}) — "
        + (
            "**met** (at most 10 % above; below means fewer idle workers)"
            if drift <= 0.10
            else "**missed** (more than 10 % above)"
        )
        + f"; before: {before_words}; at the replay's end: {replayed['at_end']}; "
        f"after: {after_words}",
        f"- memory {AFTER_S:.0f} s after each Cancel or tab close, against the memory at the "
        "press: "
        + (
            "**within 10 %** for every action stopped"
            if not grown
            else f"**more than 10 % above** for {', '.join(grown)}"
        ),
        "- memory after a run that ended, against the press (its result is kept by the "
        "session until the session ends): "
        + (", ".join(kept) if kept else "within 10 % for every one"),
        f"- the bystander's pages during the replay: {page_words}",
        f"- replay time {replayed['finished'] - replayed['started']:.0f} s for "
        f"{len(replayed['rows'])} actions",
    ]
    return (
        table(
            [
                "action (key)",
                "page",
                "parameters",
                "what the page showed",
                "Cancel",
                "RSS at the press (MB; workers)",
                "peak RSS (MB)",
                f"RSS {AFTER_S:.0f} s after (MB; vs the press; workers)",
                "bystander's worst page meanwhile",
            ],
            rows,
        )
        + "\n\n"
        + "\n".join(verdict)
    )


def main(only: list[str] | None = None, attacks: bool = True, run_for: float = RUN_FOR) -> str:
    clock = time.monotonic()
    OUT.mkdir(parents=True, exist_ok=True)
    keys = replay_order(computing_keys())
    if only:
        keys = [k for k in keys if k in only]
    env, _ = _dockerfile()
    files = make_files(int(env.get("PRIVCORE_MAX_ROWS", "200000")))
    sections = []
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                bystander_round(browser, server.base)  # warm the caches
                idle_log: list = []
                idle = [bystander_round(browser, server.base, idle_log) for _ in range(4)]
                idle_times = {n: statistics.median(r[n] for r in idle) for n, _, _ in PAGES}
                idle_text = " · ".join(f"{n} {idle_times[n]:.1f} s" for n in idle_times)
                sections.append(
                    f"Demo memory budget: {DEMO_BUDGET_MB:,} MB per server, its workers "
                    f"included. Bystander's pages when idle (median of 4): {idle_text}; "
                    f"p95 of the {len(idle_log)} idle pages {p95([s for *_, s in idle_log]):.2f} s."
                )
                if attacks:
                    rows, notes, _ = _attacks(browser, server, idle_times)
                    sections.append(
                        table(
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
                else:
                    server.settle(extra=5)
                before = (server.rss(), server.breakdown())
                replayed = replay_all(browser, server, files, keys, run_for)
                browser.close()
            sections.append(
                f"Every heavy action ({len(keys)} keys of `ui.common.heavy.computing_keys()`), on "
                f"{files.table.stat().st_size / 2**20:.1f} MB of CSV with "
                f"{env.get('PRIVCORE_MAX_ROWS')} rows, each left to run {run_for:.0f} s:\n\n"
                + _replay_report(server, replayed, [s for *_, s in idle_log], before)
            )
        finally:
            server.stop()
    sections.append(f"(bench wall time {time.monotonic() - clock:.0f} s)")
    return "\n\n".join(sections)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="replay only these keys (comma-separated)")
    parser.add_argument("--no-attacks", action="store_true", help="skip the attacks of round two")
    parser.add_argument("--run-for", type=float, default=RUN_FOR)
    args = parser.parse_args()
    print(
        main(
            only=args.only.split(",") if args.only else None,
            attacks=not args.no_attacks,
            run_for=args.run_for,
        )
    )
