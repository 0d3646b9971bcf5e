"""δ-presence and k-map of 10-anonymous Adult releases against a voter roll of 10× their
size (301,620 people holding Adult's 30,162 people), in a fresh process each (median of
3): the optimal full-domain release (the exact join) and Mondrian's (overlapping
ranges: the bitset matching). Printed: δ_min, δ_max, k-map and the classes, next to the
release's own k.
"""

from __future__ import annotations

import json

from _util import median_probe, table

SETUP = r"""
from privcore.anonymize import anonymize
from privcore.attacks import build_roll
from privcore.data import load_sample
from privcore.measure.presence import presence
from privcore.models import KAnonymity
dataset, schema = load_sample("adult")
frame = dataset.frame
qi = list(schema.quasi_identifiers)
release = anonymize(frame, schema, [KAnonymity(10)], algorithm={algorithm!r}).frame
roll = build_roll(frame, qi, size=10 * len(frame), seed=0)
"""

RUN = "result = presence(release, qi, roll.frame, hierarchies=schema.hierarchies, k=10)"
FIGURES = RUN + "\nprint('FIGURES ' + __import__('json').dumps(result.to_dict()))"


def figures(algorithm: str) -> dict:
    import subprocess
    import sys

    from _util import ROOT

    code = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + SETUP.format(algorithm=algorithm)
    proc = subprocess.run(
        [sys.executable, "-c", code + FIGURES], capture_output=True, text=True, check=True
    )
    line = next(x for x in proc.stdout.splitlines() if x.startswith("FIGURES "))
    return json.loads(line.removeprefix("FIGURES "))


def main() -> str:
    rows = []
    for algorithm in ("optimal", "mondrian"):
        timing = median_probe(SETUP.format(algorithm=algorithm), RUN)
        data = figures(algorithm)
        d, k = data["delta_presence"], data["k_map"]
        rows.append(
            [
                f"Adult k=10 {algorithm} ({data['method']})",
                f"{data['population']:,}",
                f"{data['classes']:,}",
                f"{d['min']:.4f}",
                f"{d['max']:.4f}",
                f"{k['k']:,}",
                f"{data['short_classes']}",
                f"{timing['seconds']:.2f}",
                f"{timing['peak_mb']:.0f}",
            ]
        )
    return table(
        [
            "release",
            "population",
            "classes",
            "δ_min",
            "δ_max",
            "k-map",
            "short classes",
            "seconds",
            "peak MB",
        ],
        rows,
    )


if __name__ == "__main__":
    print(main())
