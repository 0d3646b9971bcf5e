"""The application layer: one path from a user's request to a recorded result.

Pages and the command line are two front ends of the same runs. A user action becomes a
frozen request (:mod:`privcore.runs.requests`); :func:`run` executes it on its
:class:`Inputs` and records success, error or cancel in the history with one policy
(:mod:`privcore.runs.execute`). :mod:`privcore.runs.registry` lists everything runnable
with its options, defaults and choices, from which the command line's options and the
pages' widgets are built.
"""

from privcore.runs import analysis_requests, requests
from privcore.runs.accountant import Accountant, cost_of
from privcore.runs.analysis_requests import *  # noqa: F403 - its __all__, added to ours below
from privcore.runs.execute import Outcome, compute, error_record, make_request, run
from privcore.runs.inputs import EngineTable, Inputs, Part
from privcore.runs.registry import ALGORITHMS, ATTACKS, MECHANISMS, MODELS, OPTIONS, Entry, Option
from privcore.runs.requests import *  # noqa: F403 - its __all__, added to ours below
from privcore.runs.requests import check_value

__all__ = [
    "ALGORITHMS",
    "ATTACKS",
    "MECHANISMS",
    "MODELS",
    "OPTIONS",
    "Accountant",
    "EngineTable",
    "Entry",
    "Inputs",
    "Option",
    "Outcome",
    "Part",
    "check_value",
    "compute",
    "cost_of",
    "error_record",
    "make_request",
    "run",
]
__all__ += analysis_requests.__all__
__all__ += requests.__all__
