"""The code of a release's reproduction: the standalone script and the Jupyter notebook
that :func:`redo_script` and :func:`redo_notebook` write from a plan
(:func:`privcore.report.redo.redo_plan`; the steps are listed in that module's
docstring). The plan is embedded as JSON; the code around it is the same for every
release, kept here as text so that the script and the notebook share every step."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from privcore.core.jsonsafe import plain
from privcore.core.notebooks import notebook_json
from privcore.errors import ParameterError

__all__ = ["PLAN_FORMAT", "redo_notebook", "redo_script"]

#: The ``format`` of a plan made by :func:`privcore.report.redo.redo_plan`.
PLAN_FORMAT = "privcore-redo-plan/1"

#: The widest line of the plan's JSON in the script (the project's 100, less a margin).
_WIDTH = 96


def _checked_plan(plan: Any) -> Mapping[str, Any]:
    if not isinstance(plan, Mapping) or plan.get("format") != PLAN_FORMAT:
        raise ParameterError(
            f"This is not a redo plan (format '{PLAN_FORMAT}', made by redo_plan).",
            code="report.redo_plan",
        )
    return plan


# --------------------------------------------------------------------------- the code

_IMPORTS = """\
import hashlib
import json
from pathlib import Path

import privcore
from privcore.anonymize.spec import reproduce
from privcore.cli.toolkit import load_table
from privcore.data import Hierarchy, Schema, save
from privcore.errors import PrivcoreError
from privcore.report import readiness
"""

_HELPERS = '''\
RESULTS = []  # (what, the same as the dossier records)


def sha256_of(path):
    """The SHA-256 of a file's bytes, as sha256sum prints it."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def compare(what, expected, found):
    """One line: what is the same as the dossier records, or DIFFERENT."""
    same = expected == found
    RESULTS.append((what, same))
    if same:
        print(f"{what}: same")
    else:
        print(f"{what}: DIFFERENT (the dossier: {expected}; redone: {found})")
    return same


def not_redone(what, why):
    """One line: what could not be redone, and why (a difference)."""
    RESULTS.append((what, False))
    print(f"{what}: DIFFERENT ({why})")


def check_received(path):
    """The release file received, when there: the same bytes as the dossier's."""
    if not Path(path).is_file():
        print(f"received release {Path(path).name}: not found, not compared")
        return
    what = f"received release file {Path(path).name} (SHA-256 of its bytes)"
    compare(what, PLAN["release"]["sha256"], sha256_of(path))
'''

_STEP_INPUT = '''\
def read_input(path):
    """Step 1: the input table, read with the reader of 'privcore anonymize'; the
    file's bytes and privcore's fingerprint of the table compared with the dossier's."""
    recorded = PLAN["input"]
    what = f"input file {Path(path).name} (SHA-256 of its bytes)"
    if recorded["sha256"] is None:
        print(f"{what}: not recorded (the page kept the table, not the file)")
    else:
        compare(what, recorded["sha256"], sha256_of(path))
    dataset = load_table(str(path))
    found = dataset.fingerprint.sha256
    same = compare("input table (privcore fingerprint)", recorded["fingerprint"], found)
    return dataset, same
'''

_STEP_RELEASE = '''\
def redo_release(dataset, input_same):
    """Step 2: the release made again from the spec with privcore's reproduce (the
    recorded algorithm, constraints, options and seed); reproduce itself refuses
    another input table or a release with another fingerprint."""
    if not input_same:
        why = "not redone: the input is not the table the release was made from"
        not_redone("release table", why)
        return None
    try:
        release = reproduce(dataset.frame, PLAN["spec"])
    except PrivcoreError as exc:
        not_redone("release table", f"not redone: {exc}")
        return None
    found = release.fingerprint.sha256
    compare("release table (privcore fingerprint)", PLAN["release"]["fingerprint"], found)
    return release
'''

_STEP_WRITE = '''\
def write_release(release, out):
    """Step 3: the release written to out as 'privcore anonymize' wrote it (privcore's
    save; the rows shuffled with the recorded seed unless the order was kept); its
    bytes compared with the release file's."""
    name = PLAN["release"]["name"]
    if release is None:
        not_redone(f"release file {name}", "not written: the release was not redone")
        return None
    written = PLAN["written"]
    frame = release.export(shuffle=written["shuffled"], seed=written["seed"])
    save(frame, out, formula_guard=written["formula_guard"])
    what = f"redone file {Path(out).name} vs {name} (SHA-256 of its bytes)"
    if written["bytes_comparable"]:
        compare(what, PLAN["release"]["sha256"], sha256_of(out))
    else:
        print(f"{what}: not compared (a .{written['format']} file keeps its writing time)")
    return Path(out)
'''

_STEP_READINESS = '''\
def check_name(check):
    """A check's name, with the attribute it is about."""
    attribute = check.get("attribute")
    return check["check"] + (f" ({attribute})" if attribute else "")


def assessed_release(release, out, folder):
    """The release as it was assessed, and the arguments that say how: the redone file
    read back with the recorded hierarchy files ('privcore report'), or the release made
    here in the table's order with the page's schema, its suppressed rows, kind and
    shuffle (the Report page)."""
    params = PLAN["readiness"]
    expected = PLAN["expected"]["release_table"]
    if params.get("release_read") == "in_order":
        frame = release.export(shuffle=False)
        if expected:
            found = release.fingerprint.sha256
            compare("release table assessed (privcore fingerprint)", expected, found)
        how = {
            "hierarchies": Schema.from_dict(params["schema"]).hierarchies,
            "aligned": True,
            "shuffled": params["shuffled"],
            "blanked": release.suppressed if params["blanked"] else None,
            "release_kind": params["release_kind"],
        }
        return frame, PLAN["release"]["name"], how
    hierarchies = {}
    for column, recorded in params["hierarchy_files"].items():
        path = Path(folder) / recorded["file"]
        compare(f"hierarchy file {path.name} (SHA-256)", recorded["sha256"], sha256_of(path))
        hierarchies[column] = Hierarchy.read_arx(path, name=column)
    table = load_table(str(out))
    if expected:
        found = table.fingerprint.sha256
        compare("release file read back (privcore fingerprint)", expected, found)
    return table.frame, table.name, {"hierarchies": hierarchies}


def redo_readiness(dataset, release, out, folder):
    """Step 4: the readiness assessment made again as it was made: the recorded columns,
    key, thresholds, hierarchies, voter roll size and seed; the verdict and every
    check's status compared."""
    expected = PLAN["expected"]
    if out is None:
        not_redone(f"verdict {expected['verdict']}", "not assessed: no release redone")
        return None
    params = PLAN["readiness"]
    frame, release_name, how = assessed_release(release, out, folder)
    try:
        report = readiness(
            dataset.frame,
            frame,
            qi=params["qi"],
            sa=params["sa"],
            key=params["key"],
            thresholds=params["thresholds"],
            algorithm=params["algorithm"],
            roll_size=params["roll_size"],
            seed=params["seed"],
            original_name=dataset.name,
            release_name=release_name,
            published_tables=params.get("published_tables"),
            **how,
        )
    except PrivcoreError as exc:
        not_redone(f"verdict {expected['verdict']}", f"not assessed: {exc}")
        return None
    compare(f"verdict {expected['verdict']}", expected["verdict"], report.verdict)
    recorded = {check_name(c): c["status"] for c in expected["checks"]}
    found = {check_name(c): c["status"] for c in report.checks}
    for name in dict.fromkeys([*recorded, *found]):
        compare(f"check {name}", recorded.get(name, "absent"), found.get(name, "absent"))
    return report
'''

_SUMMARY = '''\
def summary():
    """The last line; 0 when everything is the same as the dossier records, else 1."""
    different = [what for what, same in RESULTS if not same]
    if different:
        print(f"{len(different)} of {len(RESULTS)} comparisons DIFFERENT: {'; '.join(different)}")
        return 1
    print(
        f"All {len(RESULTS)} comparisons are the same: the release and its readiness "
        "assessment were redone as the dossier records them."
    )
    return 0
'''

_MAIN = '''\
def arguments(argv):
    parser = argparse.ArgumentParser(
        description="Redo the release and its readiness assessment; compare fingerprints."
    )
    parser.add_argument(
        "--input", type=Path, help="the input table (default: its name, in this folder)"
    )
    parser.add_argument(
        "--out", type=Path, help="the redone release (default: redo-<release name>)"
    )
    parser.add_argument(
        "--release",
        type=Path,
        help="the release file received, compared too (default: beside the input, if there)",
    )
    return parser.parse_args(argv)


def input_path(given):
    """The input file: given, else its name in this folder, else beside this script."""
    if given is not None:
        return given
    name = PLAN["input"]["name"]
    beside = Path(__file__).resolve().parent / name
    return Path(name) if Path(name).exists() or not beside.exists() else beside


def problem(source, out, received):
    """Why the redo cannot start (exit 2), or None."""
    name = PLAN["input"]["name"]
    if not source.is_file():
        return (
            f"the input file {source} is missing: run this script in the folder holding "
            f"{name}, or give --input PATH"
        )
    for recorded in PLAN["readiness"]["hierarchy_files"].values():
        if not (source.parent / recorded["file"]).is_file():
            return f"the hierarchy file {recorded['file']} is missing beside {source}"
    if received is not None and not received.is_file():
        return f"the release file {received} (--release) is missing"
    release = PLAN["release"]["name"]
    if out.name == release or out.resolve() == source.resolve():
        return f"--out {out} would overwrite the original {out.name}: give another name"
    if out.suffix.lower() != Path(release).suffix.lower():
        return f"--out must end in {Path(release).suffix} as {release} does (same format)"
    return None


def main(argv=None):
    args = arguments(argv)
    source = input_path(args.input)
    out = args.out or Path("redo-" + PLAN["release"]["name"])
    why = problem(source, out, args.release)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    RESULTS.clear()
    release_name = PLAN["release"]["name"]
    print(f"Redoing {release_name} from {source} with privcore {privcore.__version__}")
    dataset, input_same = read_input(source)
    check_received(args.release or source.parent / release_name)
    release = redo_release(dataset, input_same)
    written = write_release(release, out)
    redo_readiness(dataset, release, written, source.parent)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
'''

_PATHS_CELL = """\
# The input table: by default in this notebook's folder; point INPUT elsewhere if needed.
INPUT = Path(PLAN["input"]["name"])
# The redone release: a new file, never the original release.
OUT = Path("redo-" + PLAN["release"]["name"])
if not INPUT.is_file():
    raise FileNotFoundError(f"The input file {INPUT} is missing: put it here or set INPUT.")
print(f"Redoing {PLAN['release']['name']} from {INPUT} with privcore {privcore.__version__}")
"""


def _safe(text: Any) -> str:
    """A name for a docstring or a Markdown line: no quotes, backslashes or line breaks."""
    return "".join(
        "'" if ch == '"' else "/" if ch == "\\" else " " if ch < " " else ch for ch in str(text)
    )


def _json_text(value: Any, indent: int = 0, lead: int = 0) -> str:
    """``value`` as JSON (ASCII) that a reader can follow: a list or an object on one
    line when it fits in :data:`_WIDTH` characters, else one item a line, indented by
    one space a level (``lead``: the characters before it on its first line)."""
    flat = json.dumps(value, ensure_ascii=True)
    if not isinstance(value, (dict, list)) or not value or indent + lead + len(flat) <= _WIDTH:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, dict):
        lines = []
        for name, item in value.items():
            key = json.dumps(str(name), ensure_ascii=True) + ": "
            lines.append(pad + key + _json_text(item, indent + 1, len(key)))
        ends = "{}"
    else:
        lines = [pad + _json_text(item, indent + 1) for item in value]
        ends = "[]"
    return ends[0] + "\n" + ",\n".join(lines) + "\n" + " " * indent + ends[1]


def _plan_block(plan: Mapping[str, Any]) -> str:
    """``PLAN = json.loads(r'''…''')``: the plan as JSON text in a raw string (ASCII; every
    single quote written ``\\u0027``, so nothing can end the string early)."""
    text = _json_text(plain(plan)).replace("'", "\\u0027")
    long = any(len(line) > _WIDTH for line in text.splitlines())
    return (
        "# What the dossier records: names and SHA-256 fingerprints (no value of the data),\n"
        "# the generalization spec, how the release was written, the readiness parameters\n"
        "# and the results expected.\n"
        "PLAN = json.loads(\n"
        "    r'''\n" + text + "\n'''" + ("  # noqa: E501\n" if long else "\n") + ")\n"
    )


def _docstring(plan: Mapping[str, Any]) -> str:
    """The script's docstring; the file names alone on their lines (a long name gets the
    string a ``noqa: E501``)."""
    release, source = _safe(plan["release"]["name"]), _safe(plan["input"]["name"])
    version = _safe(plan.get("privcore_version"))
    text = f'''"""Redo the release {release} and its readiness assessment with privcore.

Written by privcore {version} for a release dossier, so that another party can
redo the work the dossier describes and check its results (as the HHS expert
determination method and EMA Policy 0070 ask: the methods documented well enough to be
followed). It needs Python, privcore and the input table (with the hierarchy files the
assessment read, if any, beside it):

    {source}

    python redo.py                  # in the folder holding the input table
    python redo.py --input PATH     # the input table elsewhere
    python redo.py --out FILE       # where the redone release goes
    python redo.py --release FILE   # the release file received, compared too

Steps, each printed as one line per comparison ("same" or "DIFFERENT"):

1. read the input table with the reader of 'privcore anonymize'; compare the SHA-256 of
   its bytes and privcore's fingerprint of the table with the dossier's;
2. make the release again from the recorded generalization spec (privcore's reproduce);
3. write it as 'privcore anonymize' wrote it, to redo-<release name> (never over the
   original), and compare the SHA-256 of its bytes with the release file's;
4. run the readiness assessment again with the recorded parameters; compare the verdict
   and every check's status.

Exit status: 0 when everything is the same, 1 when something differs, 2 when the input
(or a hierarchy file) is missing. No value of the data is written here: only names,
fingerprints and figures, and the spec (the generalization's hierarchies).
"""'''
    long = any(len(line) > _WIDTH for line in text.splitlines())
    return text + ("  # noqa: E501\n" if long else "\n")


def redo_script(plan: Mapping[str, Any]) -> str:
    """The standalone reproduction script of a plan (:func:`redo_plan`): a Python file to
    run as ``python redo.py`` in the folder holding the input file (``--input PATH``,
    ``--out FILE``, ``--release FILE``); see the module docstring for its steps."""
    plan = _checked_plan(plan)
    imports = _IMPORTS.replace("import hashlib\n", "import argparse\nimport hashlib\n", 1)
    imports = imports.replace("import json\n", "import json\nimport sys\n", 1)
    parts = [
        imports + "\n" + _plan_block(plan),
        _HELPERS,
        _STEP_INPUT,
        _STEP_RELEASE,
        _STEP_WRITE,
        _STEP_READINESS,
        _SUMMARY,
        _MAIN,
    ]
    code = "\n\n\n".join(part.rstrip("\n") for part in parts)
    return _docstring(plan) + "\n" + code + "\n"


def _notebook_cells(plan: Mapping[str, Any]) -> list[tuple[str, str]]:
    release, source = _safe(plan["release"]["name"]), _safe(plan["input"]["name"])
    expected = plan["expected"]["verdict"]
    return [
        (
            "markdown",
            f"# Redo the release `{release}` and its readiness assessment\n\n"
            "This notebook was written by privcore for a release dossier, so that another "
            "party can redo the work it describes and check the results — the methods "
            "documented well enough to be followed, as the HHS expert determination method "
            "and EMA Policy 0070 ask. It needs privcore and the input table "
            f"`{source}` in this folder (set `INPUT` below otherwise). Each comparison "
            "prints one line: *same* or *DIFFERENT*. No value of the data is stored here: "
            "only names, fingerprints, figures and the generalization spec.",
        ),
        ("code", _IMPORTS + "\n" + _plan_block(plan)),
        (
            "markdown",
            "## Fingerprints and comparisons\n\n"
            "A file's fingerprint is the SHA-256 of its bytes (as `sha256sum` prints it); "
            "a table's is privcore's (column names, kinds and a hash of every row).",
        ),
        ("code", _HELPERS),
        ("markdown", "## Where the files are"),
        ("code", _PATHS_CELL),
        (
            "markdown",
            "## Step 1: the input table\n\nRead as `privcore anonymize` read it; its bytes "
            "and its table compared with the dossier's fingerprints, and the release file "
            "received (beside the input, when there) with the release's.",
        ),
        (
            "code",
            _STEP_INPUT + "\n\ndataset, input_same = read_input(INPUT)\n"
            'check_received(INPUT.parent / PLAN["release"]["name"])\n',
        ),
        (
            "markdown",
            "## Step 2: the release, made again from its spec\n\n"
            "`reproduce` applies the recorded algorithm, constraints, options and seed; it "
            "refuses another input table or a result with another fingerprint.",
        ),
        ("code", _STEP_RELEASE + "\n\nrelease = redo_release(dataset, input_same)\n"),
        (
            "markdown",
            "## Step 3: the release file, written again\n\n"
            f"Written as `privcore anonymize` wrote it, to `redo-{release}` (never over the "
            f"original); its bytes must be those of `{release}`.",
        ),
        ("code", _STEP_WRITE + "\n\nwritten = write_release(release, OUT)\n"),
        (
            "markdown",
            "## Step 4: the readiness assessment, made again\n\n"
            "With the recorded columns, key, thresholds, hierarchy files, voter roll size "
            f"and seed; the dossier's verdict is `{expected}`.",
        ),
        (
            "code",
            _STEP_READINESS
            + "\n\nreport = redo_readiness(dataset, release, written, INPUT.parent)\n",
        ),
        ("markdown", "## Summary"),
        (
            "code",
            _SUMMARY + "\n\nif summary():\n"
            '    raise RuntimeError("The redo differs from the dossier: see the lines '
            'marked DIFFERENT.")\n',
        ),
    ]


def redo_notebook(plan: Mapping[str, Any]) -> str:
    """The reproduction notebook of a plan (:func:`redo_plan`): the script's steps as an
    nbformat 4.5 notebook (JSON text), a Markdown cell explaining each step before its
    code; the last cell raises when something differs."""
    return notebook_json(_notebook_cells(_checked_plan(plan)), prefix="redo")
