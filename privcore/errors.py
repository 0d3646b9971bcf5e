"""Errors raised by privcore.

Every error a user can cause is a :class:`PrivcoreError` subclass whose message is
written for that user (English), plus a stable ``code`` the interface can translate
and ``params`` that fill the translated template. Any other exception is a bug.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class PrivcoreError(Exception):
    """Base class of every user-facing error.

    ``code`` is a stable identifier (``"data.empty_file"``); ``params`` are the values
    named in the message, so a UI can render the same message in another language.
    """

    default_code = "error"

    def __init__(self, message: str, *, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.params = params

    def __str__(self) -> str:
        return self.message

    @classmethod
    def unless_present(
        cls,
        wanted: Iterable[Any],
        present: Container[Any],
        message: str,
        /,
        *,
        code: str,
        first: int | None = None,
        quoted: bool = False,
        missing_param: str = "columns",
        **params: Any,
    ) -> None:
        """Raise one when any of ``wanted`` (columns, parameters) is not in ``present``:
        ``message`` with ``{names}`` replaced by the missing ones joined by ", " (the
        ``first`` few when given; each ``repr``-quoted when ``quoted``), and the missing
        ones as the param ``missing_param`` (``columns``) beside ``params``."""
        missing = [c for c in wanted if c not in present]
        if not missing:
            return
        shown = missing[:first] if first is not None else missing
        names = ", ".join(repr(c) if quoted else str(c) for c in shown)
        raise cls(
            message.replace("{names}", names), code=code, **{missing_param: missing}, **params
        )

    @classmethod
    def unless_one_of(
        cls, value: T, allowed: Collection[Any], message: str, /, *, code: str, **params: Any
    ) -> T:
        """``value`` when it is one of ``allowed``, else raise one: ``message`` is a
        :meth:`str.format` template of ``params`` (which the error carries), ``value`` and
        ``choices`` (``allowed`` joined by ", ")."""
        if value in allowed:
            return value
        fields = {**params, "value": value, "choices": ", ".join(map(str, allowed))}
        raise cls(message.format(**fields), code=code, **params)

    @classmethod
    @contextmanager
    def on_os_error(cls, message: str, *, code: str, **params: Any) -> Iterator[None]:
        """Within the block, an :class:`OSError` (a file the system would not read or
        write) becomes one of these: ``message`` is a :meth:`str.format` template of
        ``params`` (which the error carries) and ``reason``, what the system said (its
        ``strerror``, else the error itself)."""
        try:
            yield
        except OSError as exc:
            reason = str(exc.strerror or exc)
            raise cls(message.format(**params, reason=reason), code=code, **params) from exc


class DataFormatError(PrivcoreError):
    """A file or table could not be read as a data set."""

    default_code = "data.format"


class ParameterError(PrivcoreError):
    """A parameter is outside its allowed range (k < 1, epsilon <= 0, ...)."""

    default_code = "parameter.invalid"

    @classmethod
    def unless_within(
        cls, value: float, low: float, high: float, message: str, /, *, code: str, **params: Any
    ) -> float:
        """``value`` when low ≤ ``value`` ≤ high (NaN is not), else raise one: ``message``
        is a :meth:`str.format` template of ``params`` (which the error carries),
        ``value``, ``low`` and ``high``."""
        if low <= value <= high:
            return value
        fields = {**params, "value": value, "low": low, "high": high}
        raise cls(message.format(**fields), code=code, **params)


class RoleError(PrivcoreError):
    """Column roles are missing, unknown or inconsistent with the table."""

    default_code = "roles.invalid"


class HierarchyError(PrivcoreError):
    """A generalization hierarchy is malformed or does not cover the data."""

    default_code = "hierarchy.invalid"


class InfeasibleError(PrivcoreError):
    """The privacy constraints cannot be met on this table."""

    default_code = "anonymize.infeasible"


class HistoryError(PrivcoreError):
    """The run history database cannot be read or written."""

    default_code = "history.unavailable"


class CancelledError(PrivcoreError):
    """Long work was cancelled by the user between two steps."""

    default_code = "cancelled"
