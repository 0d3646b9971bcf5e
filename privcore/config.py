"""Limits of this installation, read from environment variables.

A hosted demo lowers them; a workstation can raise them. Every limit is named in the
message a user sees when a file or a parameter exceeds it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass(frozen=True)
class Limits:
    """Upper bounds on input sizes (environment variable in brackets)."""

    max_rows: int  # PRIVCORE_MAX_ROWS
    max_columns: int  # PRIVCORE_MAX_COLUMNS
    max_file_mb: int  # PRIVCORE_MAX_FILE_MB
    max_parse_seconds: int = 60  # PRIVCORE_MAX_PARSE_SECONDS: time to read one file
    max_session_datasets: int = 20  # PRIVCORE_MAX_SESSION_DATASETS: uploads one session keeps
    max_session_mb: int = 4096  # PRIVCORE_MAX_SESSION_MB: their size in memory, together
    audit_memory_mb: int = 1024  # PRIVCORE_AUDIT_MEMORY_MB: working memory of one LDP audit
    max_cell_chars: int = 100_000  # PRIVCORE_MAX_CELL_CHARS: characters of one cell of a table
    max_run_mb: int = 8192  # PRIVCORE_MAX_RUN_MB: estimated peak memory of any one run


def limits() -> Limits:
    """Current limits; read on every call so tests and deployments can change them."""
    return Limits(
        max_rows=_env_int("PRIVCORE_MAX_ROWS", 5_000_000),
        max_columns=_env_int("PRIVCORE_MAX_COLUMNS", 500),
        max_file_mb=_env_int("PRIVCORE_MAX_FILE_MB", 1024),
        max_parse_seconds=_env_int("PRIVCORE_MAX_PARSE_SECONDS", 60),
        max_session_datasets=_env_int("PRIVCORE_MAX_SESSION_DATASETS", 20),
        max_session_mb=_env_int("PRIVCORE_MAX_SESSION_MB", 4096),
        audit_memory_mb=_env_int("PRIVCORE_AUDIT_MEMORY_MB", 1024),
        max_cell_chars=_env_int("PRIVCORE_MAX_CELL_CHARS", 100_000),
        max_run_mb=_env_int("PRIVCORE_MAX_RUN_MB", 8192),
    )


def assets_dir() -> Path:
    """Folder of the bundled sample data (``PRIVCORE_ASSETS`` overrides)."""
    override = os.environ.get("PRIVCORE_ASSETS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "assets"


HISTORY_SCOPES = ("all", "session")


def history_scope() -> str:
    """Whose runs the History page lists (``PRIVCORE_HISTORY_SCOPE``): ``"all"`` on a
    workstation (the default: one user, runs kept across visits), ``"session"`` on a
    hosted demo (each visitor sees, compares and deletes only their own runs)."""
    raw = os.environ.get("PRIVCORE_HISTORY_SCOPE", "").strip().lower()
    return raw if raw in HISTORY_SCOPES else "all"


def local_tables_allowed() -> bool:
    """May the app open tables from paths of this machine ("Open a large table" on the
    Data & roles page)? ``PRIVCORE_LOCAL_TABLES``: ``1`` yes, ``0`` no; unset: yes,
    unless the History page is scoped to the session (``PRIVCORE_HISTORY_SCOPE=session``,
    a hosted demo), whose visitors must not read the server's files."""
    raw = os.environ.get("PRIVCORE_LOCAL_TABLES", "").strip()
    if raw in ("0", "1"):
        return raw == "1"
    return history_scope() != "session"
