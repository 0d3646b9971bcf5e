"""Packaging and deployment: `pip install .` gives the `privcore` command, every command
has --help, long commands draw a tqdm bar on a terminal, and the Dockerfile and the
demo settings say what the README promises (no container engine is needed to check)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from privcore.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["profile", "measure", "anonymize", "attack", "audit", "report", "history"]


# --------------------------------------------------------------------------- --help


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: privcore {command}")
    assert "--" in out  # its options are listed


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert re.search(rf"^\s+{command}\s", out, re.MULTILINE), command


def test_parser_is_named_after_the_installed_command():
    assert build_parser().prog == "privcore"


# --------------------------------------------------------------------------- progress bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _anonymize_hospital(tmp_path: Path, *extra: str) -> list[str]:
    hospital = ROOT / "assets" / "hospital"
    return [
        "anonymize",
        str(hospital / "hospital.csv"),
        "--qi",
        "ZIP,Age",
        "--sa",
        "Disease",
        "--hierarchy",
        f"ZIP={hospital / 'hospital_hierarchy_ZIP.csv'}",
        "--hierarchy",
        f"Age={hospital / 'hospital_hierarchy_Age.csv'}",
        "--algorithm",
        "samarati",
        "--k",
        "3",
        "--out",
        str(tmp_path / "release.csv"),
        *extra,
    ]


def test_a_long_command_draws_a_tqdm_bar_on_a_terminal(tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(_anonymize_hospital(tmp_path)) == 0
    drawn = terminal.getvalue()
    assert "%|" in drawn  # tqdm's bar: percentage, then the bar
    assert "100%|" in drawn  # it ran to the end


def test_no_bar_when_quiet_or_not_a_terminal(tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(_anonymize_hospital(tmp_path, "--quiet")) == 0
    assert "%|" not in terminal.getvalue()
    piped = io.StringIO()  # isatty() is False: a log file or a pipe
    monkeypatch.setattr(sys, "stderr", piped)
    assert main(_anonymize_hospital(tmp_path)) == 0
    assert "%|" not in piped.getvalue()


# --------------------------------------------------------------------------- pip install .


@pytest.mark.slow
def test_pip_install_provides_the_privcore_command(tmp_path):
    """Install a copy of the project (the checkout stays clean of build files) into a
    target folder with the build backend already present, then run its script."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "privcore", source / "privcore", ignore=shutil.ignore_patterns("__pycache__")
    )
    target = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    script = target / "bin" / "privcore"
    assert script.exists(), sorted(p.name for p in target.iterdir())
    env = {**os.environ, "PYTHONPATH": str(target)}
    # run the installed script (its shebang is this interpreter) outside the checkout
    help_run = subprocess.run(
        [str(script), "--help"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert help_run.returncode == 0, help_run.stderr
    assert "usage: privcore" in help_run.stdout
    which = subprocess.run(
        [sys.executable, "-c", "import privcore, sys; sys.stdout.write(privcore.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert Path(which.stdout).is_relative_to(target)  # the installed copy, not the checkout
    bad = subprocess.run(
        [str(script), "profile", str(tmp_path / "missing.csv")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")


def test_pyproject_declares_the_command_and_the_runtime_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"] == {"privcore": "privcore.cli:main"}
    declared = {re.split(r"[<>=\[]", d)[0].lower() for d in project["dependencies"]}
    assert {"numpy", "pandas", "scipy", "pyarrow", "sqlite-utils", "faker", "tqdm"} <= declared
    assert "streamlit" not in declared  # the library and its CLI do not need the app


# --------------------------------------------------------------------------- Dockerfile


def _dockerfile() -> list[str]:
    """Instructions of the Dockerfile, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text()
    text = re.sub(r"\\\n\s*", " ", text)
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def test_dockerfile_runs_as_a_non_root_user():
    lines = _dockerfile()
    users = [ln.split()[1] for ln in lines if ln.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    created = [ln for ln in lines if ln.startswith("RUN ") and "useradd" in ln]
    assert created and users[-1] in created[0]
    cmd_index = next(i for i, ln in enumerate(lines) if ln.startswith("CMD "))
    user_index = max(i for i, ln in enumerate(lines) if ln.startswith("USER "))
    assert user_index < cmd_index


def test_dockerfile_health_check_and_app_command():
    lines = _dockerfile()
    env = " ".join(ln for ln in lines if ln.startswith("ENV "))
    assert "PRIVCORE_HISTORY_SCOPE=session" in env  # visitors see only their own runs
    health = [ln for ln in lines if ln.startswith("HEALTHCHECK ")]
    assert len(health) == 1 and "/_stcore/health" in health[0]
    assert "EXPOSE 8501" in lines
    cmd = next(ln for ln in lines if ln.startswith("CMD "))
    for flag in ("streamlit", "serve.py", "--server.port=8501", "--client.showErrorDetails=none"):
        assert flag in cmd


def test_dockerfile_copies_what_exists_and_pins_torch_like_requirements():
    lines = _dockerfile()
    for line in lines:
        if line.startswith("COPY "):
            parts = [p for p in line.split()[1:] if not p.startswith("--")]
            for source in parts[:-1]:
                assert (ROOT / source).exists(), source
    requirements = (ROOT / "requirements.txt").read_text()
    torch_pin = re.search(r"^torch==(\S+)", requirements, re.MULTILINE).group(1)
    assert f"torch=={torch_pin}" in " ".join(lines)
    assert "requirements.txt" in " ".join(ln for ln in lines if ln.startswith("RUN "))


def test_demo_settings_match_the_container_command():
    demo = tomllib.loads((ROOT / "deploy" / "demo.toml").read_text())
    cmd = next(ln for ln in _dockerfile() if ln.startswith("CMD "))
    assert f"--server.maxUploadSize={demo['server']['maxUploadSize']}" in cmd
    assert demo["client"]["showErrorDetails"] == "none"
    assert demo["server"]["enableXsrfProtection"] is True
    ttl = demo["server"]["disconnectedSessionTTL"]
    assert f"--server.disconnectedSessionTTL={ttl}" in cmd
    local = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert local["client"]["showErrorDetails"] == "none"


def test_make_run_listens_on_this_machine_only_unless_asked():
    """`make run` binds to 127.0.0.1 (a workstation's history is not for the network);
    HOST=0.0.0.0 exposes it on purpose. It starts serve.py (guard and housekeeping)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {**os.environ, "MAKEFLAGS": ""}
    out = subprocess.run(
        ["make", "-n", "run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if "streamlit run" in ln)
    assert "serve.py" in line and "--server.address 127.0.0.1" in line
    exposed = subprocess.run(
        ["make", "-n", "run", "HOST=0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "--server.address 0.0.0.0" in exposed


def test_make_chromium_waits_for_another_package_managers_lock():
    """`make test` installs Chromium with apt-get: every apt-get call waits for the dpkg
    lock (DPkg::Lock::Timeout, 10 minutes by default), `apt-get update` (which does not
    wait for the package lists' lock by itself) is retried while it is locked, and a lock
    held all that time is said in words."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {**os.environ, "MAKEFLAGS": ""}
    recipe = subprocess.run(
        ["make", "-n", "chromium"], cwd=ROOT, capture_output=True, text=True, env=env, check=True
    ).stdout
    calls = re.findall(r"apt-get[^;|&)]*", recipe)
    assert len(calls) == 3, calls  # install, update, install again
    assert all("-o DPkg::Lock::Timeout=600 " in call for call in calls), calls
    assert re.search(r"until .*apt-get .*update.*get lock.*do sleep", recipe, re.DOTALL)
    assert "another package manager held the dpkg lock for 600 s" in recipe
    longer = subprocess.run(
        ["make", "-n", "chromium", "APT_LOCK_WAIT=1800"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert longer.count("DPkg::Lock::Timeout=1800 ") == 3


def test_without_torch_the_audit_command_exits_2_with_a_clear_message(capsys, monkeypatch):
    """`pip install .` without the ldp extra: `privcore audit` explains, no traceback."""
    import builtins

    from privcore.ldp import device

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError("No module named 'torch'")
        return real_import(name, *args, **kwargs)

    device.torch_module.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_torch)
    try:
        code = main(["audit", "--mechanism", "grr", "--epsilon", "1", "--domain", "4"])
    finally:
        monkeypatch.setattr(builtins, "__import__", real_import)
        device.torch_module.cache_clear()
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: The LDP auditor needs PyTorch") and "\n" not in err
