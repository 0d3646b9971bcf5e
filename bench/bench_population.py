"""Population risk: population uniqueness (Zayatz, Pitman, SNB, Dankar et al.'s rule) and
Benedetti–Franconi individual risk on Adult, and their cost.

Adult (30,162 rows) with the bundled schema's 8 QIs at sampling fractions 0.01 and 0.1:
each model's share of population uniques, the one Dankar et al.'s rule chooses, and the
expected re-identifications (sdcMicro's approximation and the exact posterior). Then
Adult with all 9 attributes as QIs against the figures ARX's own test suite asserts
(TestRiskMetrics.testDecisionRule2) — neither ARX nor sdcMicro runs here, so their
published figures are the reference. Timings: each call end to end (classes included) in
a fresh process, median of 3, on Adult and on 1,000,000 synthetic rows × 8 QIs (most
records unique: the Pitman fit runs over ~900,000 classes).
"""

from __future__ import annotations

import sys

from _util import MILLION_QI_SETUP, ROOT, median_probe, table

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ARX_ADULT_9_QIS = {  # fraction: (ARX's chosen model, ARX's share)
    0.01: ("pitman", 0.1446083531167384),
    0.1: ("pitman", 0.27684993883653597),
    0.2: ("zayatz", 0.3577099234829125),
    1.0: ("zayatz", 0.5142895033485844),
}

ADULT_SETUP = r"""
from privcore.data import load_sample
from privcore.measure.population import individual_risk, population_uniqueness
dataset, schema = load_sample("adult")
frame, qi = dataset.frame, list(schema.quasi_identifiers)
"""

MILLION_SETUP = (
    MILLION_QI_SETUP
    + r"""
from privcore.measure.population import individual_risk, population_uniqueness
"""
)


def _share(value) -> str:
    return "—" if value is None else f"{value:.6f}"


def adult_figures() -> str:
    from privcore.data import load_sample
    from privcore.measure.population import individual_risk, population_uniqueness

    dataset, schema = load_sample("adult")
    frame, qi = dataset.frame, list(schema.quasi_identifiers)
    rows = []
    for fraction in (0.01, 0.1):
        result = population_uniqueness(frame, qi, sampling_fraction=fraction)
        approx = individual_risk(frame, qi, sampling_fraction=fraction)
        exact = individual_risk(frame, qi, sampling_fraction=fraction, method="exact")
        rows.append(
            [
                fraction,
                result.sample_uniques,
                _share(result.models["zayatz"]),
                _share(result.models["pitman"]),
                _share(result.models["snb"]),
                result.model,
                f"{result.share:.6f} ({result.count:,.0f} people)",
                f"{approx.expected_reidentifications:.2f} / {exact.expected_reidentifications:.2f}",
                f"{approx.max:.4f}",
            ]
        )
    return table(
        [
            "π",
            "sample uniques",
            "Zayatz",
            "Pitman",
            "SNB",
            "chosen",
            "share (count)",
            "expected re-ids approx / exact",
            "max risk",
        ],
        rows,
    )


def arx_agreement() -> str:
    from privcore.data import load_sample
    from privcore.measure.population import population_uniqueness

    dataset, _ = load_sample("adult")
    frame = dataset.frame
    rows = []
    for fraction, (arx_model, arx_share) in ARX_ADULT_9_QIS.items():
        result = population_uniqueness(frame, list(frame.columns), sampling_fraction=fraction)
        ours = result.models[arx_model]
        rows.append(
            [
                fraction,
                f"{arx_model} {arx_share:.10f}",
                f"{arx_model} {ours:.10f}",
                f"{abs(ours - arx_share):.1e}",
                f"{result.model} {result.share:.6f}",
                _share(result.models["snb"]),
            ]
        )
    return table(
        [
            "π",
            "ARX (chosen, share)",
            "privcore, same model",
            "|difference|",
            "privcore chosen",
            "privcore SNB",
        ],
        rows,
    )


def timings() -> str:
    calls = {
        "population uniqueness": "population_uniqueness(frame, qi, sampling_fraction=0.01)",
        "individual risk (approx)": "individual_risk(frame, qi, sampling_fraction=0.01)",
        "individual risk (exact)": (
            "individual_risk(frame, qi, sampling_fraction=0.01, method='exact')"
        ),
    }
    rows = []
    for label, setup in (
        ("Adult, 8 QIs", ADULT_SETUP),
        ("1,000,000 rows × 8 QIs", MILLION_SETUP),
    ):
        for name, statement in calls.items():
            result = median_probe(setup, statement)
            rows.append([label, name, f"{result['seconds']:.3f}", f"{result['peak_mb']:.0f}"])
    return table(["table", "call (π = 0.01)", "seconds", "peak MB"], rows)


def main() -> str:
    return "\n\n".join([adult_figures(), arx_agreement(), timings()])


if __name__ == "__main__":
    print(main())
