"""The options the algorithms have of their own, as one set of names that a release's
spec replays.

An algorithm declares its parameters in its line of :data:`privcore.anonymize.ALGORITHMS`
(:class:`~privcore.core.parameters.Parameter`); the line hands them to :func:`own`. A
release records every keyword its algorithm was called with among its ``params`` (with
figures of its making: merges, partitions…); :func:`owned_names` says which of those
keys are options, so that :meth:`privcore.anonymize.release.Release.spec` gives a later
run exactly the options to call the algorithm with again.
"""

from __future__ import annotations

from privcore.core.parameters import Parameter

_OWNED: dict[str, Parameter] = {}


def own(*parameters: Parameter) -> None:
    """Record ``parameters`` as options of an algorithm (a name declared twice must be
    the same parameter: one name, one meaning)."""
    for parameter in parameters:
        known = _OWNED.setdefault(parameter.name, parameter)
        if known != parameter:
            raise ValueError(f"two algorithms declare different parameters '{parameter.name}'")


def owned_names() -> frozenset[str]:
    """The names of every option an algorithm has declared."""
    return frozenset(_OWNED)
