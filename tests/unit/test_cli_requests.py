"""The command line on the application layer: the options of measure, anonymize, attack
and audit are generated from the registry (``privcore.runs.registry.OPTIONS``) and the
requests' defaults; a value is refused by the request, with the code and message a page
gets; and every run, ``anonymize --from-spec`` included, is recorded by
``privcore.runs.run``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from pathlib import Path

import pytest

from privcore import history
from privcore.cli import build_parser, main
from privcore.errors import ParameterError
from privcore.runs import (
    OPTIONS,
    AnonymizeRequest,
    AttackRequest,
    AuditRequest,
    MeasureRequest,
    ReplayRequest,
    check_value,
    error_record,
    make_request,
)

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"
ORIGINAL = str(HOSPITAL / "hospital.csv")
RELEASE = str(HOSPITAL / "hospital_release.csv")
REQUESTS = {
    "measure": MeasureRequest,
    "anonymize": AnonymizeRequest,
    "attack": AttackRequest,
    "audit": AuditRequest,
}


def _options(command: str) -> dict[str, argparse.Action]:
    """The options of a subcommand, by destination."""
    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {a.dest: a for a in commands.choices[command]._actions if a.option_strings}


def _request_defaults(request_class) -> dict:
    return {
        f.name: f.default
        for f in dataclasses.fields(request_class)
        if f.default is not dataclasses.MISSING
    }


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize("command", REQUESTS)
def test_the_generated_options_are_the_registrys(command):
    request_class = REQUESTS[command]
    options = _options(command)
    generated = [name for name in options if name in OPTIONS]
    in_registry = {f.name for f in dataclasses.fields(request_class) if f.name in OPTIONS}
    if command == "audit":  # one method per command (--method), ε required
        assert set(generated) == {"mechanism", "epsilon", "domain", "method"} | {
            "samples",
            "density",
            "seed",
        }
        expected_defaults = {
            **_request_defaults(request_class),
            "method": request_class.methods[0],
            "epsilon": None,
        }
    else:  # every parameter of the request, and only those
        assert set(generated) == in_registry
        expected_defaults = _request_defaults(request_class)
    for name in generated:
        action, option = options[name], OPTIONS[name]
        assert option.flag in action.option_strings
        assert action.help.startswith(option.help)
        if option.kind == "choice":
            assert tuple(action.choices) == option.allowed()
        else:
            assert action.choices is None
        assert action.default == expected_defaults.get(name), name


def test_the_unified_defaults():
    """One default per parameter (the pages'): anonymize k = 5 and c = 3; a measurement
    asks for no model verdict unless a threshold is given."""
    anonymize, measure = _options("anonymize"), _options("measure")
    assert (anonymize["k"].default, anonymize["c"].default) == (5, 3.0)
    assert (measure["k"].default, measure["l"].default, measure["t"].default) == (None,) * 3
    assert measure["c"].default == 3.0
    assert "(default 5)" in anonymize["k"].help and "(default 3)" in anonymize["c"].help


def test_the_options_not_given_make_the_requests_default_request():
    argv = ["anonymize", "in.csv", "--qi", "a, b", "--sa", "c", "--out", "out.csv"]
    args = build_parser().parse_args(argv)
    values = {name: getattr(args, name) for name in args.request_options}
    assert AnonymizeRequest(**values) == AnonymizeRequest(qi=("a", "b"), sa=("c",))


def test_a_choice_added_to_the_registry_is_an_option_of_the_command(monkeypatch):
    locale = OPTIONS["locale"]
    monkeypatch.setitem(
        OPTIONS, "locale", dataclasses.replace(locale, choices=(*locale.allowed(), "fr"))
    )
    assert "fr" in _options("attack")["locale"].choices


# --------------------------------------------------------------------------- values

COMMANDS = {
    "measure": ["measure", "--original", ORIGINAL, "--release", RELEASE],
    "attack": ["attack", "--original", ORIGINAL, "--release", RELEASE, "--quiet"],
    "anonymize": ["anonymize", ORIGINAL, "--out", "never-written.csv", "--quiet"],
    "audit": ["audit", "--mechanism", "grr", "--epsilon", "1", "--domain", "4", "--quiet"],
}
COLUMNS = {"qi": ("ZIP", "Age"), "sa": ("Disease",)}


@pytest.mark.parametrize(
    ("command", "option", "text", "values"),
    [
        ("anonymize", "--seed", "-1", {"seed": -1}),
        ("anonymize", "--k", "2.5", {"k": 2.5}),
        ("anonymize", "--max-suppression", "nan", {"max_suppression": math.nan}),
        ("measure", "--risk-threshold", "1.5", {"risk_threshold": 1.5}),
        ("measure", "--c", "0", {"c": 0.0}),
        ("attack", "--roll-size", "0", {"roll_size": 0}),
        ("attack", "--tau", "inf", {"tau": math.inf}),
        ("audit", "--epsilon", "-1", {"epsilon": -1.0}),
        ("audit", "--samples", "50", {"samples": 50}),
    ],
)
def test_a_bad_value_is_the_requests_error_on_the_command_line(
    command, option, text, values, capsys
):
    request_class = REQUESTS[command]
    given = {"mechanism": "grr", "domain": 4} if command == "audit" else dict(COLUMNS)
    with pytest.raises(ParameterError) as refused:
        request_class(**given, **values)
    expected = refused.value
    argv = [*COMMANDS[command], *(() if command == "audit" else ("--qi", "ZIP,Age"))]
    argv += [] if command == "audit" else ["--sa", "Disease"]
    assert main([*argv, option, text, "--record"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: {expected.message}\n"
    assert expected.code == "parameter.invalid"
    [row] = history.list_runs()
    run = history.get_run(row["id"])
    assert (run["kind"], run["status"], run["page"]) == (command, "error", "cli")
    assert run["error"] == expected.code
    assert run["results"] == {"error": error_record(expected)}


def test_make_request_records_a_refused_value_for_any_front_end():
    values = {"mechanism": "grr", "epsilon": 0.0, "methods": ["ob"]}
    with pytest.raises(ParameterError) as refused:
        make_request(AuditRequest, values, page="ldp", owner="visitor")
    [row] = history.list_runs()
    run = history.get_run(row["id"])
    assert (run["kind"], run["status"], run["page"], run["owner"]) == (
        "audit",
        "error",
        "ldp",
        "visitor",
    )
    assert run["params"] == values and run["error"] == refused.value.code
    assert run["results"]["error"]["params"] == {"option": "epsilon"}
    assert make_request(AuditRequest, {**values, "epsilon": 2}).epsilon == 2.0


def test_without_record_a_refused_value_writes_nothing(capsys, isolated_history):
    assert main([*COMMANDS["audit"], "--epsilon", "-1"]) == 2
    assert "--epsilon must be a number above 0" in capsys.readouterr().err
    assert not isolated_history.exists()


def test_a_refused_number_names_its_whole_range():
    """Messages of :func:`check_value`, hand-written; a seed of 2**63 - 1 stays exact."""
    cases = {
        ("seed", -1): "--seed must be a whole number from 0 to 9223372036854775807, not -1.",
        ("seed", 1.5): "--seed must be a whole number from 0 to 9223372036854775807, not 1.5.",
        ("max_suppression", math.nan): "--max-suppression must be a finite number from 0 to 1"
        ", not nan.",
        ("tau", 0.0): "--tau must be a number above 0 and at most 1, not 0.0.",
        ("roll_size", 0): "--roll-size must be a whole number of at least 1, not 0.",
        ("epsilon", -1.0): "--epsilon must be a number above 0, not -1.0.",
    }
    for (name, value), message in cases.items():
        with pytest.raises(ParameterError) as refused:
            check_value(name, value)
        assert refused.value.message == message
    assert check_value("seed", 2**63 - 1) == 2**63 - 1
    assert check_value("seed", 7.0) == 7 and isinstance(check_value("seed", 7.0), int)


# --------------------------------------------------------------------------- --from-spec


def test_from_spec_is_recorded_as_an_anonymize_run_without_the_spec(tmp_path, capsys):
    first, spec_path, again = tmp_path / "first.csv", tmp_path / "spec.json", tmp_path / "a.csv"
    argv = ["anonymize", ORIGINAL, "--qi", "ZIP,Age", "--sa", "Disease", "--quiet"]
    argv += ["--algorithm", "mondrian", "--k", "3", "--seed", "7"]
    assert main([*argv, "--out", str(first), "--spec-out", str(spec_path)]) == 0
    spec = json.loads(spec_path.read_text())
    capsys.readouterr()
    replay = ["anonymize", ORIGINAL, "--from-spec", str(spec_path), "--out", str(again)]
    assert main([*replay, "--quiet", "--record", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert again.read_bytes() == first.read_bytes()
    [row] = history.list_runs()
    run = history.get_run(row["id"])
    assert (run["kind"], run["status"], run["page"]) == ("anonymize", "ok", "cli")
    assert run["params"] == {
        "algorithm": "mondrian",
        "qi": ["ZIP", "Age"],
        "sa": ["Disease"],
        "max_suppression": 0.05,  # the default suppression limit of the first run, kept
        "seed": 7,
        "from_spec": "spec.json",
        "keep_order": False,
        "out": "a.csv",
    }
    assert run["params"] == {
        **ReplayRequest(spec=spec).to_dict(),
        "from_spec": "spec.json",
        "keep_order": False,
        "out": "a.csv",
    }
    assert run["results"]["k"] == out["k"] >= 3
    assert "schema" not in history.to_json(run["params"])  # nor the hierarchies it holds
