"""The command line on hostile or careless input: outputs that would destroy an input,
outputs that cannot be written, numbers that are not numbers, damaged specs, and names
that carry terminal escape sequences. Each is one line on stderr and exit code 2 (or,
for names, clean output)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from privcore.cli import main, terminal_safe

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"


def one_line_error(capsys, argv: list[str]) -> str:
    """Run the CLI: exit 2, nothing on stdout, exactly one line on stderr."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert captured.out == ""
    assert captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err
    return captured.err.strip()


@pytest.fixture
def table(tmp_path) -> Path:
    path = tmp_path / "hospital.csv"
    path.write_bytes((HOSPITAL / "hospital.csv").read_bytes())
    return path


def anonymize_args(source: Path, out: Path, *extra: str) -> list[str]:
    return [
        "anonymize",
        str(source),
        "--qi",
        "Age",
        "--sa",
        "Disease",
        "--identifiers",
        "",
        "--algorithm",
        "mondrian",
        "--k",
        "3",
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]


# --------------------------------------------------------------------------- outputs


def test_out_equal_to_the_input_is_refused_before_anything_is_written(table, tmp_path, capsys):
    before = table.read_bytes()
    report = tmp_path / "report.json"
    for same in (table, tmp_path / "." / table.name, Path(os.path.relpath(table))):
        message = one_line_error(capsys, anonymize_args(table, same, "--report", str(report)))
        assert message.startswith("error: --out") and "is the input file" in message
    assert table.read_bytes() == before
    assert not report.exists()


def test_out_hard_linked_to_the_input_is_refused(table, tmp_path, capsys):
    link = tmp_path / "link.csv"
    os.link(table, link)
    before = table.read_bytes()
    message = one_line_error(capsys, anonymize_args(table, link))
    assert "is the input file" in message
    assert table.read_bytes() == before


def test_report_or_spec_over_the_input_or_each_other_is_refused(table, tmp_path, capsys):
    out = tmp_path / "release.csv"
    assert "is the input file" in one_line_error(
        capsys, anonymize_args(table, out, "--report", str(table))
    )
    message = one_line_error(
        capsys, anonymize_args(table, out, "--report", str(out), "--spec-out", str(out))
    )
    assert "name the same file" in message
    assert not out.exists()


def test_report_command_out_equal_to_an_input_is_refused(table, capsys):
    before = table.read_bytes()
    argv = ["report", "--original", str(table), "--release", str(HOSPITAL / "hospital_release.csv")]
    argv += ["--qi", "ZIP,Age", "--sa", "Disease", "--out", str(table), "--quiet"]
    assert "is the input file" in one_line_error(capsys, argv)
    assert table.read_bytes() == before


def test_spec_out_a_folder_is_refused_before_the_work(table, tmp_path, capsys):
    out = tmp_path / "release.csv"
    message = one_line_error(capsys, anonymize_args(table, out, "--spec-out", str(tmp_path)))
    assert "--spec-out" in message and "is a folder" in message
    assert not out.exists()
    message = one_line_error(capsys, anonymize_args(table, tmp_path))
    assert "--out" in message and "is a folder" in message
    missing = tmp_path / "no" / "such" / "report.json"
    assert "folder does not exist" in one_line_error(
        capsys, anonymize_args(table, out, "--report", str(missing))
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_line(table, tmp_path, capsys):
    out = tmp_path / "release.csv"
    message = one_line_error(capsys, anonymize_args(table, out, "--report", "/dev/full"))
    assert message.startswith("error: Cannot write --report /dev/full")
    assert "No space left on device" in message


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--l", "nan", "finite"),
        ("--l", "inf", "finite"),
        ("--l", "2.5", "whole number for distinct"),
        ("--c", "nan", "finite"),
        ("--t", "-inf", "finite"),
        ("--max-suppression", "nan", "finite"),
        ("--seed", "-1", "from 0 to"),
        ("--seed", str(2**64), "from 0 to"),
        ("--seed", "1.5", "from 0 to"),
    ],
)
def test_anonymize_numbers(table, tmp_path, capsys, option, value, words):
    argv = anonymize_args(table, tmp_path / "release.csv", f"{option}={value}")
    assert words in one_line_error(capsys, argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["measure", "--l", "nan"],
        ["measure", "--l", "inf", "--l-kind", "recursive"],
        ["measure", "--risk-threshold", "nan"],
        ["attack", "--seed", "-1"],
        ["attack", "--roll-size", "0"],
        ["attack", "--tau", "inf"],
        ["report", "--seed", "-1", "--out", "r.html"],
        ["report", "--min-k", "nan", "--out", "r.html"],
        ["report", "--max-t", "nan", "--out", "r.html"],
        ["report", "--roll-size", "-5", "--out", "r.html"],
    ],
)
def test_measure_attack_report_numbers(capsys, argv):
    command, *options = argv
    tables = ["--original", str(HOSPITAL / "hospital.csv")]
    tables += ["--release", str(HOSPITAL / "hospital_release.csv")]
    full = [command, *tables, "--qi", "ZIP,Age", "--sa", "Disease", *options]
    if command != "measure":
        full.append("--quiet")
    message = one_line_error(capsys, full)
    assert "error" in message


@pytest.mark.parametrize(
    "options",
    [["--seed", "-1"], ["--samples", "0"], ["--seed", str(2**64)], ["--epsilon", "nan"]],
)
def test_audit_numbers(capsys, options):
    argv = ["audit", "--mechanism", "grr", "--epsilon", "1", "--domain", "5", "--quiet", *options]
    one_line_error(capsys, argv)


def test_history_numbers(capsys):
    one_line_error(capsys, ["history", "list", "--limit", "-1"])
    one_line_error(capsys, ["history", "show", "-1"])


# --------------------------------------------------------------------------- specs


@pytest.fixture
def spec(table, tmp_path, capsys) -> dict:
    path = tmp_path / "spec.json"
    assert main(anonymize_args(table, tmp_path / "first.csv", "--spec-out", str(path))) == 0
    capsys.readouterr()
    return json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("seed", ['"NaN"', "NaN", "-1", "1.5", "true", "1e400"])
def test_a_spec_with_a_bad_seed_is_one_line(table, tmp_path, capsys, spec, seed):
    text = json.dumps({**spec, "seed": "SEED"}).replace('"SEED"', seed)
    path = tmp_path / "bad_seed.json"
    path.write_text(text)
    argv = ["anonymize", str(table), "--from-spec", str(path), "--out", str(tmp_path / "r.csv")]
    message = one_line_error(capsys, argv)
    assert "seed must be a whole number" in message


def test_a_deeply_nested_spec_is_one_line(table, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    argv = ["anonymize", str(table), "--from-spec", str(path), "--out", str(tmp_path / "r.csv")]
    assert "nested too deeply" in one_line_error(capsys, argv)


def test_a_deeply_nested_algorithm_report_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    argv = ["report", "--original", str(HOSPITAL / "hospital.csv")]
    argv += ["--release", str(HOSPITAL / "hospital_release.csv"), "--qi", "ZIP,Age"]
    argv += ["--sa", "Disease", "--out", str(tmp_path / "r.html"), "--quiet"]
    argv += ["--algorithm-report", str(path)]
    assert "nested too deeply" in one_line_error(capsys, argv)


# --------------------------------------------------------------------------- terminal

TITLE = "\x1b]0;owned\x07"  # sets the terminal's title
RED = "\x1b[31m"
C1_CSI = "\x9b2J"  # 8-bit CSI: clear screen


def test_terminal_safe_strips_escape_sequences_and_controls():
    assert terminal_safe(f"{TITLE}name{RED}x\x1b[0m") == "namex"
    assert terminal_safe("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b") == "alinkb"
    assert terminal_safe(f"a{C1_CSI}b\x00c\x7fd\re\tf\ng") == "abcde\tf\ng"
    assert terminal_safe("a\nb", one_line=True) == "a b"
    assert terminal_safe("年齢 ok — ε") == "年齢 ok — ε"


def test_profile_prints_no_escape_sequences(tmp_path, capsys):
    path = tmp_path / "names.csv"
    names = [f"{TITLE}age", f"{RED}zip", f"note{C1_CSI}"]
    rows = ["30,47677,a", "40,47602,b", "50,47678,c"]
    path.write_text(",".join(names) + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert main(["profile", str(path)]) == 0
    out = capsys.readouterr().out
    assert not any(ch in out for ch in "\x1b\x07\x9b")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["age", "zip", "note"]
    assert main(["profile", str(path), "--json"]) == 0
    text = capsys.readouterr().out
    assert not any(ch in text for ch in "\x1b\x07\x9b")
    columns = [c["column"] for c in json.loads(text)["profile"]]
    assert columns == names  # escaped in JSON, intact once parsed


def test_error_messages_are_stripped_too(tmp_path, capsys):
    path = tmp_path / "names.csv"
    path.write_text(f"a,{TITLE}b,{TITLE}b\n1,2,3\n", encoding="utf-8")
    message = one_line_error(capsys, ["profile", str(path)])
    assert "appears twice" in message and "\x1b" not in message and "\x07" not in message
