"""A result reproduced in Python: the privcore code, and the files it reads, that
compute a run's figures again outside the app.

:func:`reproduction` takes a run as a front end made it — its request, its
:class:`~privcore.runs.Inputs` and the summary it recorded — and gives a
:class:`Reproduction`: the request's class and parameters, every table the run read
(written as Parquet, which keeps each column's type, so the table read back has the
same fingerprint), the roles and hierarchies, the facts of the inputs (paired rows,
shuffled file, the release's kind, its blanked rows) and the figures recorded.
:meth:`Reproduction.code` is the Python that reads those files, builds the same request
and inputs and calls :func:`privcore.runs.compute` — the one path every front end
takes — then compares every figure with the recorded one
(:func:`differing_figures`); :meth:`Reproduction.notebook` is that code as a Jupyter
notebook and :meth:`Reproduction.bundle` a ZIP with the notebook, the script and the
files.

A run that cannot be written so is refused with a reason (:class:`NotReproducible`): a
front end's own computation (a :class:`~privcore.runs.requests.TaskRequest`), and a
table an engine holds (DuckDB, Spark: the script would have to read the engine's copy).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.jsonsafe import plain
from privcore.core.notebooks import notebook_json
from privcore.errors import PrivcoreError
from privcore.runs.inputs import Inputs
from privcore.runs.requests import Request, TaskRequest

__all__ = [
    "VOLATILE",
    "NotReproducible",
    "Reproduction",
    "differing_figures",
    "reproduction",
]

#: Summary keys that say how a run went, not what it found: the seconds it took,
#: whether a shared result served it, the budget it spent, the history's ids of its
#: parts, when a report was made.
VOLATILE = frozenset({"seconds", "cached", "budget", "created", "history_error"})

#: Tables of :class:`Inputs` written as files, in the order the code reads them.
_FRAMES = ("release", "second_release", "population", "control")

#: The name of the file of the run's description inside a bundle.
RUN_FILE = "run.json"


class NotReproducible(PrivcoreError):
    """This run cannot be written as a script (the reason is the error's code)."""


def _volatile(key: str) -> bool:
    return key in VOLATILE or key.endswith("_run")


def _flat(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """The leaves of a summary as ``(dotted path, value)``, volatile keys left out."""
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            if not _volatile(str(key)):
                yield from _flat(value[key], f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _flat(item, f"{prefix}[{i}]")
    else:
        yield prefix, value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def differing_figures(computed: Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    """The figures (dotted paths) where ``computed`` and ``recorded`` differ, after both
    are made plain JSON values; numbers compared within 1e-12 (relative), the keys of
    :data:`VOLATILE` and the history's ids (``*_run``) left out. Empty: the same."""
    mine = dict(_flat(plain(computed)))
    theirs = dict(_flat(plain(recorded)))
    return [
        path
        for path in sorted(set(mine) | set(theirs))
        if path not in mine or path not in theirs or not _same(mine[path], theirs[path])
    ]


#: What an object column may hold for Parquet to keep it unchanged (pandas' inference).
_KEPT_OBJECTS = frozenset({"string", "empty", "boolean", "integer", "floating", "decimal"})


def _kept(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``, checked first (cheaply, before anything is written) to hold no column
    of mixed Python types, which Parquet would change or refuse."""
    for position, dtype in enumerate(frame.dtypes):
        if not pd.api.types.is_object_dtype(dtype):
            continue
        if pd.api.types.infer_dtype(frame.iloc[:, position], skipna=True) not in _KEPT_OBJECTS:
            raise NotReproducible(
                "A table of this run cannot be written as Parquet without changing it.",
                code="reproduce.table_types",
                column=str(frame.columns[position]),
            )
    return frame


def _parquet(frame: pd.DataFrame) -> bytes:
    """``frame`` as Parquet bytes, checked to read back equal (a column of mixed Python
    types cannot be written so: refused rather than changed)."""
    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer, index=False)
        back = pd.read_parquet(io.BytesIO(buffer.getvalue()))
        pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_dtype=True)
    except Exception as exc:
        raise NotReproducible(
            "A table of this run cannot be written as Parquet without changing it.",
            code="reproduce.table_types",
        ) from exc
    return buffer.getvalue()


@dataclass(frozen=True)
class Reproduction:
    """What :func:`reproduction` gives: ``run`` (the JSON description the code reads)
    and ``frames`` (the tables, by the name of their file), written as Parquet by
    :attr:`files`."""

    run: Mapping[str, Any]
    frames: Mapping[str, pd.DataFrame] = field(default_factory=dict)

    @cached_property
    def files(self) -> dict[str, bytes]:
        """The tables as Parquet files (name → bytes), written when first asked for —
        a download — not when the page shows the code."""
        return {f"{name}.parquet": _parquet(frame) for name, frame in self.frames.items()}

    @property
    def request_class(self) -> str:
        return str(self.run["request_class"])

    def code(self) -> str:
        """The Python that computes the figures again from the files (the notebook's
        cells, in order)."""
        cells = [_printed(source) for kind, source in self._cells() if kind == "code"]
        return "\n\n".join(cells) + "\n"

    def notebook(self) -> str:
        """The notebook (nbformat 4.5 JSON) that reads the files beside it."""
        return notebook_json(self._cells(), prefix="reproduce")

    def bundle(self) -> bytes:
        """A ZIP: ``reproduce.ipynb``, ``reproduce.py``, ``run.json`` and the tables,
        in one folder; unzip it and run either file there."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in {
                "reproduce.ipynb": self.notebook().encode("utf-8"),
                "reproduce.py": self.code().encode("utf-8"),
                RUN_FILE: (json.dumps(self.run, indent=1, ensure_ascii=False) + "\n").encode(),
                **self.files,
            }.items():
                info = zipfile.ZipInfo(f"reproduce/{name}", date_time=(2000, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data)
        return buffer.getvalue()

    def _cells(self) -> list[tuple[str, str]]:
        run, cls = self.run, self.request_class
        return [
            ("markdown", _INTRO.format(title=run["title"], kind=run["kind"])),
            ("code", _imports(run) + '\n\nRUN = json.load(open("run.json", encoding="utf-8"))'),
            ("markdown", _INPUTS),
            ("code", _read_inputs(run)),
            ("markdown", _REQUEST.format(cls=cls)),
            ("code", f'params = RUN["params"]\nrequest = {cls}.from_dict(params)\nrequest'),
            ("markdown", _RUN),
            ("code", "result, summary = compute(request, inputs)[:2]\nsummary"),
            ("markdown", _COMPARE),
            ("code", _CHECK),
        ]


_INTRO = """\
# Reproduce a result of Privacy Workbench: {title}

This notebook computes the figures of a `{kind}` run again with privcore, from the files
beside it: the tables the run read (Parquet, each column's type kept) and `run.json`
(the request's parameters, the roles and hierarchies, the facts of the inputs and the
figures the page recorded). Change a value in `params` and run it again to see what it
changes."""

_INPUTS = """\
## The inputs

The same tables, read back. The original's fingerprint (SHA-256 of its cells) is checked
against the one the page recorded."""

_REQUEST = """\
## The request

`{cls}` with the parameters the page used; every option is checked as the page and the
command line check it."""

_RUN = """\
## The run

`compute` is the path every front end takes: the request's cost is checked, then the
library computes its result and the summary the history keeps."""

_COMPARE = """\
## The same figures?

Every figure of the summary is compared with the recorded one (numbers within 1e-12),
leaving out how the run went (seconds, a shared result, the budget spent); a release's
rows are compared by their fingerprint."""

_CHECK = """\
differing = differing_figures(summary, RUN["expected"])
if RUN["result_sha256"] and result.fingerprint.sha256 != RUN["result_sha256"]:
    differing.append("the rows of the result")
if differing:
    raise AssertionError(f"These figures differ from the page's: {differing}")
print("Every figure is the same as the page's.")"""

#: What each table the run read is, in the code that reads it back.
_READ = {
    "original": 'original = Dataset(\n    frame=pd.read_parquet("original.parquet"),\n'
    '    name=RUN["tables"]["original"]["name"],\n    source_format="parquet",\n)',
    **{name: f'{name} = pd.read_parquet("{name}.parquet")' for name in _FRAMES},
    "samples": 'samples = Dataset(\n    frame=pd.read_parquet("samples.parquet"),\n'
    '    name=RUN["tables"]["samples"]["name"],\n    source_format="parquet",\n)',
    "roll": 'roll = VoterRoll(frame=pd.read_parquet("roll.parquet"), **RUN["roll"])',
    "blanked": 'blanked = pd.read_parquet("blanked.parquet")["blanked"].to_numpy()',
}

_CHECK_ORIGINAL = """\
if original.fingerprint.sha256 != RUN["tables"]["original"]["sha256"]:
    raise AssertionError("This is not the table the page read.")"""


def _printed(source: str) -> str:
    """A notebook cell as script code: a last line that only names a value (shown by
    the notebook) printed instead."""
    *body, last = source.split("\n")
    return "\n".join([*body, f"print({last})"]) if last.isidentifier() else source


def _imports(run: Mapping[str, Any]) -> str:
    tables = run["tables"]
    privcore = [
        f"from privcore.runs import Inputs, {run['request_class']}, compute",
        "from privcore.runs.reproduction import differing_figures",
    ]
    data = ["Dataset"] if "original" in tables or "samples" in tables else []
    data += ["Schema"] if run.get("schema") is not None else []
    if data:
        privcore.append(f"from privcore.data import {', '.join(data)}")
    if "roll" in tables:
        privcore.append("from privcore.attacks import VoterRoll")
    return "import json\n\nimport pandas as pd\n\n" + "\n".join(sorted(privcore))


def _read_inputs(run: Mapping[str, Any]) -> str:
    """The code that reads the run's tables back and makes its :class:`Inputs`."""
    tables = run["tables"]
    given = [name for name in _READ if name in tables]
    lines = [_READ[name] for name in given]
    if "original" in tables:
        lines.append(_CHECK_ORIGINAL)
    arguments = [f"    {name}={name}," for name in given]
    if run.get("schema") is not None:
        arguments.append('    schema=Schema.from_dict(RUN["schema"]),')
    arguments.append('    **RUN["inputs"],')
    lines.append("inputs = Inputs(\n" + "\n".join(arguments) + "\n)")
    return "\n".join(lines)


def _params(request: Request) -> dict[str, Any]:
    """The request's parameters as JSON that :meth:`~Request.from_dict` makes the same
    request of: its :meth:`~Request.reproduction_params`, else every field as given —
    whichever comes back with every field equal after a trip through JSON. (The history
    keeps names, not values: a condition's values come back only from the fields.)"""
    cls = type(request)
    for candidate in (request.reproduction_params(), Request.to_dict(request)):
        params = json.loads(json.dumps(plain(candidate)))
        try:
            again = cls.from_dict(params)
        except (PrivcoreError, TypeError, ValueError):
            continue
        # every field, those equality leaves out too (a condition's values, a prior)
        if plain(Request.to_dict(again)) == plain(Request.to_dict(request)):
            return params
    raise NotReproducible(
        "The parameters of this request do not come back the same from JSON.",
        code="reproduce.params",
    )


def _result_sha256(result: Any) -> str | None:
    """The SHA-256 of a result's table (a release's rows), when it has one."""
    sha = getattr(getattr(result, "fingerprint", None), "sha256", None)
    return sha if isinstance(sha, str) else None


def reproduction(
    request: Request,
    inputs: Inputs,
    summary: Mapping[str, Any],
    *,
    result: Any = None,
    title: str | None = None,
) -> Reproduction:
    """The :class:`Reproduction` of a run of ``request`` on ``inputs`` that recorded
    ``summary``; ``result``: its result, whose table's fingerprint (a release's rows) is
    checked too when it has one; ``title``: what the run is, in the reader's words
    (default: its kind).
    Raises :class:`NotReproducible` for a front end's own computation, a table an
    engine holds, or a table Parquet cannot keep unchanged."""
    if isinstance(request, TaskRequest) or inputs.work is not None:
        raise NotReproducible(
            "This result is computed by the page itself, not by a request of privcore.runs.",
            code="reproduce.page_work",
        )
    if inputs.on_engine:
        raise NotReproducible(
            "This run read a table an engine holds; its reproduction would read the engine's copy.",
            code="reproduce.engine",
        )
    import privcore.runs as runs

    cls = type(request).__name__
    if getattr(runs, cls, None) is not type(request):
        raise NotReproducible(
            f"The request {cls} is not one of privcore.runs.", code="reproduce.page_work"
        )
    frames: dict[str, pd.DataFrame] = {}
    tables: dict[str, Any] = {}
    if inputs.original is not None:
        frames["original"] = _kept(inputs.original.frame)
        tables["original"] = {
            "name": inputs.original.name,
            "sha256": inputs.original.fingerprint.sha256,
        }
    for name in _FRAMES:
        frame = getattr(inputs, name)
        if frame is not None:
            frames[name] = _kept(frame)
            tables[name] = {"rows": len(frame)}
    if inputs.samples is not None:
        frames["samples"] = _kept(inputs.samples.frame)
        tables["samples"] = {"name": inputs.samples.name}
    roll = None
    if inputs.roll is not None:
        frames["roll"] = _kept(inputs.roll.frame)
        tables["roll"] = {"rows": inputs.roll.size}
        roll = {
            "qi": list(inputs.roll.qi),
            "mapping": dict(inputs.roll.mapping),
            "seed": inputs.roll.seed,
            "locale": inputs.roll.locale,
            "joint": inputs.roll.joint,
            "as_of": inputs.roll.as_of,
        }
    if inputs.blanked is not None:
        blanked = pd.DataFrame({"blanked": np.asarray(inputs.blanked, dtype=bool)})
        frames["blanked"] = blanked
        tables["blanked"] = {"rows": len(blanked)}
    facts = {
        "release_name": inputs.release_name,
        "aligned": inputs.aligned,
        "shuffled": inputs.shuffled,
        "algorithm": None if inputs.algorithm is None else plain(dict(inputs.algorithm)),
        "release_kind": inputs.release_kind,
        "second_release_name": inputs.second_release_name,
        "names": plain(dict(inputs.names)),
    }
    run = {
        "format": "privcore-reproduction/1",
        "title": title or request.kind,
        "kind": request.kind,
        "request_class": cls,
        "params": _params(request),
        "schema": None if inputs.schema is None else inputs.schema.to_dict(),
        "inputs": facts,
        "tables": tables,
        "roll": roll,
        "expected": plain(dict(summary)),
        "result_sha256": _result_sha256(result),
    }
    json.dumps(run)  # JSON-able, or a bug here
    return Reproduction(run=run, frames=frames)
