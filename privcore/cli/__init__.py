"""Command line: ``python -m privcore COMMAND …`` for batch use and scripts.

Commands mirror the app's pages and run the same requests: ``measure``, ``anonymize``,
``attack`` and ``audit`` turn their options into a request of :mod:`privcore.runs` and
call :func:`privcore.runs.run`, and those options are generated from the registry
(:data:`privcore.runs.registry.OPTIONS`: kind, choices, help) and the request's defaults,
so a default or a choice is the pages' one; every other command builds its options that
are request parameters from the same registry. Output is a readable summary, or with
``--json`` one JSON object whose keys are a documented contract (README). Exit codes: 0
success, 2 bad input or impossible parameters (one line on stderr), 1 reserved for
verdicts (``report``: not ready). ``--record`` (measure, anonymize, attack, audit,
report, risk, dp) writes the run to the history with the pages' policy (page ``cli``); a
history that cannot be written is one warning on stderr and changes neither the output
nor the exit code.

Numbers are checked by the request they belong to (:func:`privcore.runs.check_value`:
no NaN, infinity, negative count or seed, nothing out of range), with the message a page
would give; no command writes over one of its input files; readable output
is printed without control characters or terminal escape sequences (a column name can
hold them), and JSON output escapes them. Release CSV/TSV files and the history export
are formula-guarded (:mod:`privcore.data.writing`) unless ``--no-formula-guard``.

Layout: :mod:`~privcore.cli.toolkit` is what every command shares; one module per
command group (:mod:`~privcore.cli.profile`, :mod:`~privcore.cli.measure`,
:mod:`~privcore.cli.anonymize`, :mod:`~privcore.cli.attack`, :mod:`~privcore.cli.audit`,
:mod:`~privcore.cli.report`, :mod:`~privcore.cli.dp`, :mod:`~privcore.cli.risk`,
:mod:`~privcore.cli.history`) imports only the toolkit and the library, never another
command; :mod:`~privcore.cli.entry` assembles the parser and runs :func:`main` (the
``privcore`` console script and ``python -m privcore``).
"""

from privcore.cli.entry import build_parser, main
from privcore.cli.toolkit import EXIT_BAD_INPUT, EXIT_OK, EXIT_VERDICT, terminal_safe

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_VERDICT", "build_parser", "main", "terminal_safe"]
