"""The command line's package: command modules use the shared toolkit and never each
other, and the options that are request parameters are built from the registry
(:data:`privcore.runs.registry.OPTIONS`) by one helper, with the registry's flag, kind,
choices and range."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from privcore.cli import build_parser
from privcore.cli.toolkit import (
    LazyChoices,
    Parser,
    add_option,
    column_list,
    number,
    whole_number,
    whole_number_in,
)
from privcore.models import DISTANCES
from privcore.runs import OPTIONS

CLI = Path(__file__).resolve().parents[2] / "privcore" / "cli"
COMMANDS = ("profile", "measure", "anonymize", "attack", "audit", "report", "dp", "risk", "history")


def _cli_imports(path: Path) -> set[str]:
    """The privcore.cli modules ``path`` imports (imports inside functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("privcore"):
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n for n in names if n.startswith("privcore.cli.")}
    return found


def test_every_command_module_imports_only_the_toolkit():
    for name in COMMANDS:
        imported = _cli_imports(CLI / f"{name}.py")
        assert imported, name
        assert all(m.startswith("privcore.cli.toolkit") for m in imported), (name, imported)


def test_the_toolkit_imports_no_command():
    for path in (CLI / "toolkit").glob("*.py"):
        imported = _cli_imports(path)
        assert all(m.startswith("privcore.cli.toolkit") for m in imported), (path, imported)


def test_no_module_of_the_command_line_is_long():
    for path in CLI.rglob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 700, path


def test_whole_number_in_refuses_outside_its_range_with_the_range_in_words():
    positive = whole_number_in(1)
    assert positive("7") == 7
    with pytest.raises(argparse.ArgumentTypeError, match=r"^expected a whole number ≥ 1, not '0'$"):
        positive("0")
    with pytest.raises(argparse.ArgumentTypeError, match=r"≥ 1, not '1\.5'$"):
        positive("1.5")
    digit = whole_number_in(0, 9)
    assert digit("0") == 0 and digit("9") == 9
    with pytest.raises(argparse.ArgumentTypeError, match=r"^expected a whole number from 0 to 9, "):
        digit("10")


def _parser_with(name: str, **settings) -> tuple[Parser, argparse.Action]:
    parser = Parser(prog="probe")
    return parser, add_option(parser, name, **settings)


def test_add_option_takes_the_registrys_flag_kind_and_help():
    parser, action = _parser_with("max_suppression", default=0.05)
    assert action.option_strings == ["--max-suppression"] and action.dest == "max_suppression"
    assert action.type is number
    assert action.help == "share of rows that may be suppressed, 0–1 (default 0.05)"
    # read as written: the request checks the range, with a page's message
    assert parser.parse_args(["--max-suppression", "2"]).max_suppression == 2.0
    assert parser.parse_args([]).max_suppression == 0.05


def test_add_option_choices_lists_and_flags():
    _, distance = _parser_with("t_distance", default="auto")
    assert tuple(distance.choices) == tuple(DISTANCES)
    assert distance.help.endswith("(default auto)")
    _, algorithm = _parser_with("algorithm", default="optimal")
    assert isinstance(algorithm.choices, LazyChoices) and "optimal" in algorithm.choices
    assert algorithm.metavar == "ALGORITHM" and "one of %(choices)s" in algorithm.help
    parser, qi = _parser_with("qi", required=True)
    assert qi.type is column_list and qi.required
    assert parser.parse_args(["--qi", "A, B,"]).qi == ("A", "B")
    _, seed = _parser_with("seed", default=0)
    assert seed.type is whole_number


def test_add_option_checked_refuses_outside_the_registry_range_at_once(capsys):
    parser, seed = _parser_with("seed", default=0, checked=True, help="seed of the noise")
    assert seed.help == "seed of the noise (default 0)"
    assert parser.parse_args(["--seed", str(2**63 - 1)]).seed == 2**63 - 1
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--seed", str(2**63)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "probe: error: argument --seed: expected a whole number from 0 to "
        f"9223372036854775807, not '{2**63}'"
    )
    parser, _ = _parser_with("k", checked=True)
    with pytest.raises(SystemExit):
        parser.parse_args(["--k", "0"])
    assert "expected a whole number ≥ 1, not '0'" in capsys.readouterr().err


def test_add_option_overrides_keep_a_commands_reading():
    parser, _ = _parser_with("qi", type=None)
    assert parser.parse_args(["--qi", "A,B"]).qi == "A,B"  # the command splits it
    _, algorithm = _parser_with("algorithm", choices=None, metavar=None)
    assert algorithm.choices is None and "one of" not in algorithm.help


def _subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _subcommands(sub, (*path, name))


#: Options named like a registry parameter that mean something else: the noise of a
#: central DP query, the central mechanisms audited, the draws of a central DP audit.
OTHER_MEANING = {
    ("dp", "query", "mechanism"),
    ("dp", "dinner", "mechanism"),
    ("dp", "audit", "mechanism"),
    ("dp", "audit", "samples"),
    ("dp", "person", "mechanism"),
    ("dp", "accuracy", "mechanism"),
    # how a DP release is made (option release_method under the flag --method; its test
    # in tests/cli/test_dp_release_method.py), not the LDP audit's method
    ("dp", "release", "method"),
    # the background attack's tau is a posterior confidence (option posterior_tau)
    ("background", "tau"),
}


def test_every_option_named_like_a_registry_parameter_reads_it_as_the_registry_says():
    seen = set()
    for path, sub in _subcommands(build_parser()):
        for action in sub._actions:
            option = OPTIONS.get(action.dest)
            if option is None or (*path, action.dest) in OTHER_MEANING:
                continue
            seen.add((*path, action.dest))
            assert option.flag in action.option_strings, (path, action.dest)
            if option.kind == "choice" and action.choices is not None:
                assert set(action.choices) == set(option.allowed()), (path, action.dest)
            if option.kind == "float":
                assert action.type is number, (path, action.dest)
            if option.kind == "int" and action.type is not whole_number:
                # checked at once: the registry's range
                assert action.type(str(int(option.minimum))) == option.minimum, path
                with pytest.raises(argparse.ArgumentTypeError):
                    action.type(str(int(option.minimum) - 1))
    # the commands that used to write these options by hand
    assert {
        ("report", "qi"),
        ("report", "key"),
        ("report", "roll_size"),
        ("report", "seed"),
        ("risk", "seed"),
        ("dp", "query", "epsilon"),
        ("dp", "release", "k"),
        ("dp", "release", "max_suppression"),
        ("dp", "audit", "seed"),
    } <= seen


def test_report_roll_size_has_the_registry_help():
    report = dict(_subcommands(build_parser()))[("report",)]
    actions = {a.dest: a for a in report._actions}
    assert actions["roll_size"].help == OPTIONS["roll_size"].help
    assert actions["seed"].help == "seed of the voter roll (default 0)"
    assert actions["seed"].default == 0 and actions["roll_size"].default is None


def test_a_field_checked_by_an_option_of_its_own_meaning_takes_that_option():
    background = dict(_subcommands(build_parser()))[("background",)]
    tau = {a.dest: a for a in background._actions}["tau"]
    assert tau.option_strings == [OPTIONS["posterior_tau"].flag]
    assert tau.help.startswith(OPTIONS["posterior_tau"].help)
