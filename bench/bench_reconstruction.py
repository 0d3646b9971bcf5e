"""Database reconstruction of a census-like population, and the Article 29 risks beside it.

A population is generated (numpy, seeded) block by block: block sizes from a skewed
(log-normal) law clipped to 5–100 people, a few blocks of exactly 100, until at least
``--people`` people (10,000 by default). Each block is filled with households (one
person; couples with or without children; one parent with children; families with
another relative; housemates): columns ``sex`` (2 values), ``age`` (0–99: householders
18+, spouses near the householder's age, children 15–45 years younger than the
householder, the rest by their role), ``race`` (6 values: White, Black, AIAN, Asian, NHPI,
other; national shares 61/13/1/6/0.2/19 %, each block its own mixture, so that blocks are
segregated as real blocks are; a household shares one race), ``ethnicity`` (Hispanic or
not, a share per block, shared by a household) and ``relationship`` (householder, spouse,
child, other relative, nonrelative). 2 × 100 × 6 × 2 × 5 = 12,000 record types.

Each block publishes, in the spirit of the 2010 Summary File 1 block tables, its total
and five contingency tables, empty cells included:

- ``sex,age`` (P12 / PCT12: sex by single year of age),
- ``race,sex,age`` (P12A–G: sex by age for each race),
- ``ethnicity,sex,age`` (P12H: sex by age, Hispanic or not),
- ``race,ethnicity`` (P5 / P2: Hispanic or not by race),
- ``relationship,age`` (P29 / P32 / P34: relationship, here by single year of age).

The 2010 block tables gave age in bands (single years by block only under 20, P14); the
Census Bureau's reconstruction reached single years by combining them with the tract
tables (PCT12A–N). Single years per block, as here and in the attack on published tables
of Garfinkel, Abowd & Martindale (CACM 2019), tell the attacker more than a 2010 block
did: the comparison with the Bureau's 46 % favours this attack.

The attack is ``privcore.attacks.reconstruction.published.attack_table`` block by block
(``max_solutions`` 2 and ``time_limit`` 20 s per block by default: enough to say whether a
block's table is unique, then the certain records are verified). Figures: the share of
people rebuilt exactly (all five columns) and within ± 1 year of age, the same on the
four columns the Census Bureau matched (block, sex, age, race, ethnicity; its reported
level: 46 % of the 2010 population, Abowd et al., arXiv 2312.11283), the certain records,
the unique blocks, seconds per block (all blocks, and blocks of exactly 100 people) and in
total. Then the curve with discrete Laplace noise at ε ∈ {0.1, 0.5, 1, 2, 4} (the budget
split equally over the total and the five tables: ε/6 each), ``--seeds`` seeds each (3 by
default), with ε = ∞ the exact tables; each point is the mean share with its 95 % Student
t interval
(``Attack.summary()["curve"]``). A noisy block is one least-absolute-deviation solve over
all 12,000 types (about 5 s whatever its size), so the curve runs on ``--curve-blocks``
blocks drawn at random (16 by default, seed 7), the five ε in ``--jobs`` processes (2).

Side by side on the same people, the product's singling out, linkability and inference
(``privcore.attacks.gdpr_risks.gdpr_risks``, as ``privcore risk`` runs them: 500 attacks,
quasi-identifiers block, sex, age, race, ethnicity — linkability between block, sex, age
and race, ethnicity — and inference of relationship from them) attack two releases: the
reconstructed table (the records an attacker rebuilds from the tables), and the true
records themselves (what the attacks see at most). The population is the training set;
the control set is a second population drawn for the same blocks (same sizes and
mixtures, another seed): neighbours who were never counted. One cProfile of the attack
on one block of 100 people says where its seconds go (the tables, building the program,
HiGHS, counting the tables, verifying the certain records).

Usage: python bench/bench_reconstruction.py [--people N] [--seeds S] [--curve-blocks B]
       [--jobs J] [--max-solutions M] [--time-limit T] [--json]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import pstats
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from privcore.attacks.gdpr_risks import gdpr_risks
from privcore.attacks.reconstruction import Schema, compare, pooled, reconstruct
from privcore.attacks.reconstruction.published import attack_table, domains, publications

RACES = ("White", "Black", "AIAN", "Asian", "NHPI", "Other")
RACE_SHARES = np.array([0.61, 0.13, 0.01, 0.06, 0.002, 0.188])
RELATIONSHIPS = ("householder", "spouse", "child", "other relative", "nonrelative")
TABLES = [
    ("sex", "age"),
    ("race", "sex", "age"),
    ("ethnicity", "sex", "age"),
    ("race", "ethnicity"),
    ("relationship", "age"),
]
COLUMNS = ["sex", "age", "race", "ethnicity", "relationship"]
CENSUS_COLUMNS = ["sex", "age", "race", "ethnicity"]  # with the block: what 46 % is of
QI = ["block", "sex", "age", "race", "ethnicity"]
EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0)
CENSUS_LEVEL = 0.46
MAX_AGE = 99
FULL_BLOCKS = 8  # blocks of exactly 100 people


def block_layout(people: int, rng: np.random.Generator) -> list[dict]:
    """Block sizes (log-normal, median ≈ 22, clipped to 5–100; a few of exactly 100)
    and each block's race mixture and Hispanic share, until ``people`` are placed."""
    sizes = [100] * FULL_BLOCKS
    while sum(sizes) < people:
        sizes.append(int(np.clip(round(rng.lognormal(math.log(22), 0.8)), 5, 100)))
    order = rng.permutation(len(sizes))
    blocks = []
    for n, i in enumerate(order):
        mixture = rng.dirichlet(RACE_SHARES * 2.0 + 0.01)
        hispanic = rng.beta(0.5, 2.5)
        blocks.append({"block": f"b{n:04d}", "size": sizes[i], "race": mixture, "hisp": hispanic})
    return blocks


def household(rng: np.random.Generator) -> list[tuple[str, int, str]]:
    """One household's members: (sex, age, relationship), householder first."""
    head_age = int(np.clip(rng.normal(48, 17), 18, MAX_AGE))
    head_sex = "F" if rng.random() < 0.5 else "M"
    members = [(head_sex, head_age, "householder")]
    kind = rng.choice(5, p=[0.28, 0.3, 0.2, 0.1, 0.12])
    if kind in (1, 2):  # a couple (2: with children)
        sex = ("M" if head_sex == "F" else "F") if rng.random() < 0.97 else head_sex
        members.append((sex, int(np.clip(head_age + rng.normal(-1, 4), 18, MAX_AGE)), "spouse"))
    if kind in (2, 3):  # children, 15–45 years younger than the householder
        for _ in range(1 + rng.poisson(0.9)):
            age = head_age - int(rng.integers(15, 46))
            if age >= 0:
                members.append(("F" if rng.random() < 0.49 else "M", age, "child"))
    if kind == 3 and rng.random() < 0.4:  # a parent or a grandchild of the householder
        older = rng.random() < 0.5
        age = head_age + int(rng.integers(20, 35)) if older else int(rng.integers(0, 15))
        members.append(("F" if rng.random() < 0.55 else "M", min(age, MAX_AGE), "other relative"))
    if kind == 4:  # housemates
        for _ in range(1 + rng.poisson(0.7)):
            age = int(np.clip(head_age + rng.normal(0, 8), 18, MAX_AGE))
            members.append(("F" if rng.random() < 0.5 else "M", age, "nonrelative"))
    return members


def population(layout: list[dict], rng: np.random.Generator) -> pd.DataFrame:
    """The people of each block of ``layout``: households until the block is full (the
    last one cut), each household one race and one ethnicity (a member differs 5 %)."""
    rows = []
    for block in layout:
        placed = 0
        while placed < block["size"]:
            race = RACES[rng.choice(len(RACES), p=block["race"])]
            hisp = "Hispanic" if rng.random() < block["hisp"] else "Not Hispanic"
            for sex, age, relationship in household(rng)[: block["size"] - placed]:
                own_race = race if rng.random() < 0.95 else RACES[rng.choice(6, p=RACE_SHARES)]
                rows.append((block["block"], sex, age, own_race, hisp, relationship))
                placed += 1
    frame = pd.DataFrame(rows, columns=["block", *COLUMNS])
    return frame.astype({"age": "int64"})


def shares_on(columns, truth, rebuilt) -> tuple[float, float]:
    """Exact and ± 1 year shares on ``columns`` (the block implicit), pooled."""
    schema = Schema({c: d for c, d in domains(pd.concat(truth.values()), columns).items()})
    accuracy = pooled(
        compare(truth[b][columns], rebuilt[b][columns], schema, {"age": 1.0}) for b in truth
    )
    return accuracy.exact_share, accuracy.within_tolerance_share


def interval(point: dict) -> str:
    if point["low"] is None:
        return f"{point['mean']:.4f}"
    return f"{point['mean']:.4f} [{point['low']:.4f}, {point['high']:.4f}]"


def profile_block(frame, block, max_solutions, time_limit) -> dict:
    """One block's attack under cProfile: seconds in each part (cumulative)."""
    part = frame[frame["block"] == block]
    schema = Schema(domains(frame, COLUMNS))
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    publication = publications(schema, {block: part[COLUMNS]}, TABLES)[0]
    published = time.perf_counter() - started
    result = reconstruct(publication, max_solutions=max_solutions, time_limit=time_limit)
    profiler.disable()
    total = time.perf_counter() - started
    stats = pstats.Stats(profiler).stats
    seconds = {}
    for (path, _, name), (_, _, _, cumulative, _) in stats.items():
        seconds[(path.rsplit("/", 1)[-1], name)] = max(
            cumulative, seconds.get((path.rsplit("/", 1)[-1], name), 0.0)
        )

    def cum(file: str, name: str) -> float:
        return seconds.get((file, name), 0.0)

    return {
        "block": block,
        "people": len(part),
        "solutions": result.solutions_text,
        "solves": result.solves,
        "total_s": total,
        "publish_s": published,
        "program_s": cum("program.py", "__init__"),
        "solve_s": cum("program.py", "solve"),
        "milp_s": cum("_milp.py", "milp"),
        "highs_s": max(
            (v for (f, n), v in seconds.items() if n.endswith("_highspy._core.run>")), default=0.0
        ),
        "enumerate_s": cum("solver.py", "enumerate"),
        "verify_s": cum("solver.py", "verify"),
        "profiled": True,
    }


def exact_attack(frame, sizes, args) -> tuple[dict, object]:
    """The attack on the exact tables of every block, timed."""
    started = time.perf_counter()
    attack = attack_table(
        frame, TABLES, block="block", max_solutions=args.max_solutions, time_limit=args.time_limit
    )
    total = time.perf_counter() - started
    summary = attack.summary()
    seconds = pd.Series({b: r.seconds for b, r in attack.results.items()})
    full = [b for b in sizes.index if sizes[b] == 100]
    near = [b for b in sizes.index if sizes[b] >= 90]
    rebuilt = {
        name: result.table if result.table is not None else attack.truth[name][:0]
        for name, result in attack.results.items()
    }
    census_exact, census_close = shares_on(CENSUS_COLUMNS, attack.truth, rebuilt)
    people = int(sizes.sum())
    out = {
        "exact_share": summary["exact_share"],
        "within_1_share": summary["within_tolerance_share"],
        "census_exact_share": census_exact,
        "census_within_1_share": census_close,
        "certain": summary["certain"],
        "certain_share": summary["certain"] / people,
        "certain_unverified_blocks": summary["certain_unverified_blocks"],
        "unique_blocks": summary["unique_blocks"],
        "timed_out_blocks": summary["timed_out_blocks"],
        "records_rebuilt": summary["records_rebuilt"],
        "seconds_total": total,
        "seconds_solving": float(seconds.sum()),
        "seconds_per_block": float(seconds.mean()),
        "seconds_per_block_max": float(seconds.max()),
        "blocks_100": len(full),
        "seconds_block_100_mean": float(seconds[full].mean()),
        "seconds_block_100_max": float(seconds[full].max()),
        "blocks_90_100": len(near),
        "seconds_block_90_100_mean": float(seconds[near].mean()),
        "solves": int(sum(r.solves for r in attack.results.values())),
    }
    by_size = pd.DataFrame(
        {
            "size": sizes,
            "seconds": seconds[sizes.index],
            "solves": [attack.results[b].solves for b in sizes.index],
            "unique": [attack.results[b].unique for b in sizes.index],
            "certain": [
                0 if attack.results[b].certain is None else len(attack.results[b].certain)
                for b in sizes.index
            ],
        }
    )
    bands = pd.cut(by_size["size"], [4, 20, 40, 60, 80, 99, 100])
    grouped = by_size.groupby(bands, observed=True).agg(
        blocks=("size", "size"),
        people=("size", "sum"),
        seconds=("seconds", "mean"),
        seconds_max=("seconds", "max"),
        solves=("solves", "mean"),
        unique=("unique", "sum"),
        certain=("certain", "sum"),
    )
    out["by_size"] = [
        {"sizes": str(k), **{c: float(v) for c, v in row.items()}} for k, row in grouped.iterrows()
    ]
    return out, attack


def curve_point(subset: pd.DataFrame, epsilon: float, seeds: int, time_limit: float) -> dict:
    """One ε of the curve on ``subset`` (``attack_table``'s own curve and interval)."""
    started = time.perf_counter()
    noisy = attack_table(
        subset,
        TABLES,
        block="block",
        epsilons=(epsilon,),
        seed=0,
        seeds=seeds,
        max_solutions=1,
        time_limit=time_limit,
    )
    summary = noisy.summary()
    return {
        "point": noisy.curve[0],
        "exact_inf": summary["exact_share"],
        "within_inf": summary["within_tolerance_share"],
        "seconds": time.perf_counter() - started,
    }


def curve(frame, sizes, args) -> dict:
    """The curve on ``--curve-blocks`` blocks drawn at random (seed 7), the ε run in
    ``--jobs`` processes."""
    chosen = sizes.index.to_numpy()
    if args.curve_blocks < len(chosen):
        rng = np.random.default_rng(7)
        chosen = np.sort(rng.choice(chosen, args.curve_blocks, replace=False))
    subset = frame[frame["block"].isin(chosen)].reset_index(drop=True)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(curve_point, subset, e, args.seeds, args.time_limit) for e in EPSILONS
        ]
        points = [f.result() for f in futures]
    first = points[0]
    return {
        "blocks": [str(b) for b in chosen],
        "block_sizes": [int(sizes[b]) for b in chosen],
        "people": len(subset),
        "seeds": args.seeds,
        "jobs": args.jobs,
        "seconds": time.perf_counter() - started,
        "seconds_per_epsilon": [p["seconds"] for p in points],
        "points": [
            *(p["point"] for p in points),
            {
                "epsilon": math.inf,
                "seeds": 1,
                "exact": {"mean": first["exact_inf"], "low": None, "high": None},
                "within_tolerance": {"mean": first["within_inf"], "low": None, "high": None},
            },
        ],
    }


def side_by_side(frame, control, release) -> dict:
    """Singling out, linkability and inference of ``release`` (``privcore risk``'s
    ``gdpr_risks``), against the control people."""
    started = time.perf_counter()
    risks = gdpr_risks(frame, release, QI, ["relationship"], control=control, seed=0)
    seconds = time.perf_counter() - started
    return {
        "rows": len(release),
        "seconds": seconds,
        "singling_out": risks.singling_out.to_dict(),
        "linkability": risks.linkability.to_dict(),
        "inference": risks.inference["relationship"].to_dict(),
    }


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--curve-blocks", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-solutions", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    layout = block_layout(args.people, np.random.default_rng(2010))
    frame = population(layout, np.random.default_rng(1))
    control = population(layout, np.random.default_rng(2))
    sizes = frame.groupby("block").size()
    out: dict = {
        "people": len(frame),
        "blocks": len(sizes),
        "block_sizes": {
            "min": int(sizes.min()),
            "median": float(sizes.median()),
            "mean": float(sizes.mean()),
            "max": int(sizes.max()),
            "of_100": int((sizes == 100).sum()),
        },
        "record_types": math.prod(len(d) for d in domains(frame, COLUMNS).values()),
        "tables": [",".join(t) for t in TABLES],
        "max_solutions": args.max_solutions,
        "time_limit": args.time_limit,
    }
    b = out["block_sizes"]
    print(
        f"population: {out['people']:,} people in {out['blocks']} blocks (sizes {b['min']}–"
        f"{b['max']}, median {b['median']:g}, mean {b['mean']:.1f}, {b['of_100']} of 100), "
        f"{out['record_types']:,} record types"
    )
    print(
        f"tables per block: total; {'; '.join(out['tables'])}; max_solutions "
        f"{args.max_solutions}, time limit {args.time_limit:g} s per block"
    )

    e, attack = exact_attack(frame, sizes, args)
    out["exact"] = e
    print(
        f"ε = ∞: exact {e['exact_share']:.4f}, ± 1 year {e['within_1_share']:.4f} (five "
        f"columns); on block, sex, age, race, ethnicity exact {e['census_exact_share']:.4f}, "
        f"± 1 {e['census_within_1_share']:.4f} (Census Bureau 2010: {CENSUS_LEVEL:.2f})"
    )
    print(
        f"certain records {e['certain']:,} ({e['certain_share']:.4f} of the people; "
        f"{e['certain_unverified_blocks']} blocks unverified), unique blocks "
        f"{e['unique_blocks']} of {out['blocks']}, timed out {e['timed_out_blocks']}"
    )
    print(
        f"seconds: total {e['seconds_total']:.1f} (in reconstruct {e['seconds_solving']:.1f}, "
        f"{e['solves']:,} solves), per block {e['seconds_per_block']:.3f} (max "
        f"{e['seconds_per_block_max']:.2f}); blocks of 100 ({e['blocks_100']}): mean "
        f"{e['seconds_block_100_mean']:.3f}, max {e['seconds_block_100_max']:.3f}; blocks of "
        f"90–100 ({e['blocks_90_100']}): mean {e['seconds_block_90_100_mean']:.3f}"
    )
    for row in e["by_size"]:
        print(
            f"  blocks of {row['sizes']}: {row['blocks']:.0f} blocks, {row['people']:.0f} people, "
            f"{row['seconds']:.3f} s (max {row['seconds_max']:.2f}), {row['solves']:.1f} solves, "
            f"{row['unique']:.0f} unique, {row['certain']:.0f} certain"
        )

    full = [name for name in sizes.index if sizes[name] == 100]
    out["profile"] = p = profile_block(frame, full[0], args.max_solutions, args.time_limit)
    print(
        f"profile of block {p['block']} ({p['people']} people, {p['solutions']}, "
        f"{p['solves']} solves, under cProfile): total {p['total_s']:.3f} s — tables "
        f"{p['publish_s']:.3f}, program built {p['program_s']:.3f}, every solve "
        f"{p['solve_s']:.3f} (scipy's milp {p['milp_s']:.3f}, of it HiGHS {p['highs_s']:.3f}), "
        f"counting the tables {p['enumerate_s']:.3f}, verifying the certain records "
        f"{p['verify_s']:.3f}"
    )

    release = attack.records("block")
    out["gdpr"] = {
        "reconstruction": side_by_side(frame, control, release),
        "records": side_by_side(frame, control, frame),
        "control_rows": len(control),
    }
    print(
        f"Article 29 risks (500 attacks, control {len(control):,} other people of the same "
        "blocks), release = the reconstructed table | the true records:"
    )
    for name in ("singling_out", "linkability", "inference"):
        cells = []
        for which in ("reconstruction", "records"):
            r = out["gdpr"][which][name]
            cells.append(
                f"{r['risk']:.4f} [{r['ci'][0]:.4f}, {r['ci'][1]:.4f}] (attack "
                f"{r['attack_rate']:.4f}, control {r['control_rate']:.4f}, baseline "
                f"{r['baseline']:.4f})"
            )
        print(f"  {name}: {cells[0]} | {cells[1]}")
    print(
        f"  seconds: {out['gdpr']['reconstruction']['seconds']:.2f} | "
        f"{out['gdpr']['records']['seconds']:.2f}"
    )

    out["curve"] = c = curve(frame, sizes, args)
    print(
        f"curve on {len(c['blocks'])} blocks drawn at random ({c['people']:,} people, sizes "
        f"{sorted(c['block_sizes'])}), {c['seeds']} seeds per ε, {c['jobs']} processes, "
        f"{c['seconds']:.1f} s in all:"
    )
    for point in c["points"]:
        print(
            f"  ε = {point['epsilon']:g}: exact {interval(point['exact'])}, ± 1 year "
            f"{interval(point['within_tolerance'])}"
        )
    if args.json:
        print(json.dumps(out, default=float))
    return out


if __name__ == "__main__":
    main()
