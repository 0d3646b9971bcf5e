"""A parameter a user sets — its kind, valid values, default, step and words — written
once, where it belongs (a request's option, an algorithm's own option).

The command line's options, the pages' widgets, a request's validation, a release's spec
and the History page's labels are all read from a :class:`Parameter` (scikit-learn's
``_parameter_constraints`` is the model: the owner declares, everyone else reads). A
value is checked by :meth:`Parameter.check`, which refuses it with a
:class:`~privcore.errors.ParameterError` naming the option's flag and the whole valid
range in words ("--noise-level must be a number above 0 and at most 10, not 0").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from privcore.errors import ParameterError

__all__ = ["Parameter", "range_words"]

#: The kinds of parameter: a whole number, a number, one of a list of choices, free text,
#: an on/off flag, a list of column names, a list of numbers (each within the range).
KINDS = ("int", "float", "choice", "text", "flag", "columns", "numbers")


@dataclass(frozen=True)
class Parameter:
    """One parameter.

    ``kind`` is one of :data:`KINDS`; ``choices`` for a choice (a tuple, or a function
    that reads them when first asked for, so a command imports only what it runs);
    ``minimum``/``maximum`` for numbers (inclusive unless ``open_minimum``); ``optional``
    when ``None`` means "not asked for". ``help`` is the command line's help text.

    An algorithm's own parameter also carries what its owner alone knows: ``default``
    (the request's value when none is given), ``step`` (the widget's step), ``label``
    (the catalogue key of its name on the pages and in the History; ``param.<name>`` by
    default) and ``choice_words`` (the catalogue key prefix of its choices' names;
    ``<label>_`` by default).
    """

    name: str
    kind: str
    help: str
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] | None = None
    minimum: float | None = None
    maximum: float | None = None
    open_minimum: bool = False
    optional: bool = False
    metavar: str | None = None
    default: Any = None
    step: float | None = None
    label: str | None = None
    choice_words: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name}: unknown kind {self.kind!r}")

    @property
    def flag(self) -> str:
        """The command line's flag: ``--noise-level`` for ``noise_level``."""
        return "--" + self.name.replace("_", "-")

    @property
    def label_key(self) -> str:
        """The catalogue key of the parameter's name."""
        return self.label or f"param.{self.name}"

    @property
    def choice_key_prefix(self) -> str:
        """The catalogue key prefix of a choice's name (``<prefix><choice>``)."""
        return self.choice_words or f"{self.label_key}_"

    @property
    def widget_step(self) -> float:
        """The widget's step: the declared one, else 1 for a whole number and 0.01."""
        if self.step is not None:
            return self.step
        return 1 if self.kind == "int" else 0.01

    def allowed(self) -> tuple[str, ...] | None:
        """The choices (read now when the owner computes them)."""
        return self.choices() if callable(self.choices) else self.choices

    def refusal(self, value: Any, what: str) -> ParameterError:
        """The error for ``value``, which is not ``what`` the parameter takes."""
        return ParameterError(
            f"{self.flag} must be {what}, not {value!r}.",
            code="parameter.invalid",
            option=self.name,
            allowed=what,
        )

    def check(self, value: Any) -> Any:
        """``value`` checked and normalized: numbers in range and finite, whole where
        asked (compared exactly: a seed near 2**63 is not rounded through a float),
        choices known, columns a tuple of names, numbers a tuple; ``None`` only when
        optional. Raises :class:`~privcore.errors.ParameterError` naming the valid values."""
        if value is None:
            if self.optional:
                return None
            raise self.refusal(value, "given")
        kind = self.kind
        if kind == "columns":
            names = [value] if isinstance(value, str) else value
            if not isinstance(names, Sequence) or not all(isinstance(c, str) for c in names):
                raise self.refusal(value, "a list of column names")
            return tuple(names)
        if kind == "choice":
            allowed = self.allowed() or ()
            if value not in allowed:
                raise self.refusal(value, "one of " + ", ".join(allowed))
            return value
        if kind == "text":
            if not isinstance(value, str):
                raise self.refusal(value, "text")
            return value
        if kind == "flag":
            return bool(value)
        if kind == "numbers":
            numbers = [value] if isinstance(value, (int, float)) else value
            if (
                isinstance(numbers, (str, bytes))
                or not isinstance(numbers, Sequence)
                or not numbers
            ):
                raise self.refusal(value, "a list of numbers, each " + range_words(self))
            return tuple(self._checked_number(number) for number in numbers)
        return self._checked_number(value)

    def _checked_number(self, value: Any) -> int | float:
        """One number: finite, whole where asked, in range."""
        whole = self.kind == "int"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.refusal(value, range_words(self))
        if not math.isfinite(value):
            raise self.refusal(value, range_words(self, finite=True))
        if whole:
            if isinstance(value, float) and not value.is_integer():
                raise self.refusal(value, range_words(self))
            value = int(value)
        else:
            value = float(value)
        low, high = self.minimum, self.maximum
        too_low = low is not None and (value < low or (self.open_minimum and value == low))
        if too_low or (high is not None and value > high):
            raise self.refusal(value, range_words(self))
        return value


def _number_text(number: float) -> str:
    return str(number) if isinstance(number, int) else f"{number:g}"


def range_words(parameter: Parameter, *, finite: bool = False) -> str:
    """What a valid value of a number parameter is, in words: "a whole number from 0 to
    9223372036854775807", "a number above 0", "a finite number from 0 to 1"."""
    noun = ("a finite " if finite else "a ") + (
        "whole number" if parameter.kind == "int" else "number"
    )
    low, high = parameter.minimum, parameter.maximum
    if low is None:
        return noun if high is None else f"{noun} of at most {_number_text(high)}"
    if high is None:
        return f"{noun} {'above' if parameter.open_minimum else 'of at least'} {_number_text(low)}"
    if parameter.open_minimum:
        return f"{noun} above {_number_text(low)} and at most {_number_text(high)}"
    return f"{noun} from {_number_text(low)} to {_number_text(high)}"
