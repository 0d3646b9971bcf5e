"""What every command of the command line shares: the parser and how option values are
read (:mod:`~privcore.cli.toolkit.arguments`), the shared and registry-built options
(:mod:`~privcore.cli.toolkit.options`), reading tables and hierarchies and writing
outputs (:mod:`~privcore.cli.toolkit.files`), the engine choice
(:mod:`~privcore.cli.toolkit.engines`), requests and runs
(:mod:`~privcore.cli.toolkit.running`) and what is printed
(:mod:`~privcore.cli.toolkit.output`).

The toolkit imports no command; each command module imports it and the library, never
another command (``lint-imports``). Heavy parts of privcore are imported inside the
functions that need them, so building the parser stays fast.
"""

from privcore.cli.toolkit.arguments import (
    MAX_SEED,
    Parser,
    column_list,
    columns,
    limit_option,
    number,
    number_list,
    positive_int,
    whole_number,
    whole_number_in,
)
from privcore.cli.toolkit.engines import (
    ENGINE_ROWS,
    chosen_engine,
    engine_rows,
    open_engine,
    paired_engine_inputs,
    paired_inputs,
    scan,
)
from privcore.cli.toolkit.files import (
    check_outputs,
    file_names,
    guard_note,
    hierarchies,
    hierarchy_inputs,
    load_table,
    read_bytes,
    read_json_file,
    release_inputs,
    suggested_hierarchies,
    write_bytes,
    write_text,
)
from privcore.cli.toolkit.options import (
    LazyChoices,
    add_option,
    add_request_options,
    budget_options,
    command,
    default_words,
    engine_options,
    formula_guard_option,
    hierarchy_option,
    json_option,
    run_options,
    table_options,
)
from privcore.cli.toolkit.output import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_VERDICT,
    emit,
    history_lines,
    num,
    real_records_line,
    say,
    terminal_safe,
)
from privcore.cli.toolkit.running import request, run_request

__all__ = [
    "ENGINE_ROWS",
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "EXIT_VERDICT",
    "MAX_SEED",
    "LazyChoices",
    "Parser",
    "add_option",
    "add_request_options",
    "budget_options",
    "check_outputs",
    "chosen_engine",
    "column_list",
    "columns",
    "command",
    "default_words",
    "emit",
    "engine_options",
    "engine_rows",
    "file_names",
    "formula_guard_option",
    "guard_note",
    "hierarchies",
    "hierarchy_inputs",
    "hierarchy_option",
    "history_lines",
    "json_option",
    "limit_option",
    "load_table",
    "num",
    "number",
    "number_list",
    "open_engine",
    "paired_engine_inputs",
    "paired_inputs",
    "positive_int",
    "read_bytes",
    "read_json_file",
    "real_records_line",
    "release_inputs",
    "request",
    "run_options",
    "run_request",
    "say",
    "scan",
    "suggested_hierarchies",
    "table_options",
    "terminal_safe",
    "whole_number",
    "whole_number_in",
    "write_bytes",
    "write_text",
]
