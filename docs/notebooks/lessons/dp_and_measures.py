"""Lessons 5–8 of the Learn page as notebooks: local differential privacy, measuring a
release, the differencing attack with the Laplace mechanism, and database reconstruction,
each with the data and the functions its lesson uses."""

from __future__ import annotations

from cells import LessonNotebook


def local_dp(book: LessonNotebook) -> None:
    """Lesson 5: randomized response, GRR and its ratio, and an audit that catches a
    broken GRR."""
    book.title(
        5,
        book.words("learn.l5.intro")
        + "\n\nThis notebook runs randomized response on a hundred respondents, shows what ε "
        "bounds in generalized randomized response, and audits a correct and a broken "
        "implementation.",
        book.words("learn.l5.intro")
        + "\n\n本笔记本对一百位受访者做随机化回答，展示 ε 在广义随机化回答中限制的是什么，"
        "再审计一个正确的实现和一个有缺陷的实现。",
    )
    book.code(
        """
        import math

        import numpy as np
        import pandas as pd

        from privcore.ldp.audit.bound import lower_bound
        from privcore.ldp.device import device, generator
        from privcore.ldp.mechanisms import make
        """,
    )
    book.section(
        "learn.l5.coin_title",
        book.words("learn.l5.coin_text"),
        r"$$\hat\pi = \frac{\lambda - \tfrac14}{\tfrac12} = 2\lambda - \tfrac12$$",
    )
    book.code(
        (
            "# 100 respondents, 30 % of whom would truly answer yes (1); seed 0",
            "# 100 位受访者，其中 30% 的真实答案是“是”（1）；种子 0",
        ),
        """
        coin = make("grr", math.log(3), d=2)
        share, n, seed = 0.3, 100, 0
        truth = np.zeros(n, dtype=np.int64)
        truth[: round(share * n)] = 1
        np.random.default_rng(seed).shuffle(truth)
        outputs = coin.perturb(truth, generator(seed, device()))
        reported = outputs.values.cpu().numpy()
        estimate = float(coin.estimate(outputs)[1].item())
        print(pd.DataFrame({"truth": truth[:10], "reported": reported[:10]}).T)
        print(f"true share {truth.mean():.1%}, yes {reported.mean():.1%}, estimate {estimate:.1%}")
        assert abs(estimate - (2 * reported.mean() - 0.5)) < 1e-6
        """,
    )
    book.section(
        "learn.l5.grr_title",
        r"$$p = \frac{e^\varepsilon}{e^\varepsilon + d - 1},\qquad"
        r" q = \frac{1}{e^\varepsilon + d - 1}$$",
        more=(
            "With d possible answers, GRR reports the true value with probability p and each "
            "of the d − 1 others with probability q. ε-LDP requires that for any two inputs "
            "and any output, the two probabilities of that output differ by a factor of at "
            "most e^ε. The table holds the output distribution for input 0 and for input 1.",
            "有 d 个可能的答案时，GRR 以概率 p 报告真实取值，以概率 q 报告其余 d − 1 个取值中的"
            "每一个。ε-LDP 要求对任意两个输入和任意输出，该输出的两个概率之比不超过 e^ε。"
            "下表给出输入 0 和输入 1 的输出分布。",
        ),
    )
    book.code(
        """
        epsilon, d = 1.0, 4
        grr = make("grr", epsilon, d=d)
        table = {f"input {v}": [grr.p if y == v else grr.q for y in range(d)] for v in (0, 1)}
        print(pd.DataFrame(table).round(3))
        p, q = grr.event_probabilities(0, 1)
        print(f"p / q = {p / q:.2f}, e^ε = {math.exp(epsilon):.2f}")
        assert abs(p / q - math.exp(epsilon)) < 1e-9
        """,
    )
    book.section("learn.l5.audit_title", book.words("learn.l5.audit_text"))
    book.code(
        """
        for name in ("broken_grr", "grr"):
            mechanism = make(name, 1.0, d=10)
            report = lower_bound(mechanism, n=200_000, seed=0)
            print(
                f"{name}: ε_LB = {report.epsilon_lb:.3f}, claimed ε = {report.epsilon_claimed}, "
                f"true ε = {mechanism.true_epsilon()} → {report.verdict}"
            )
        """,
    )
    caption = book.words("learn.l5.audit_caption")
    book.markdown(caption, caption)
    book.exercise(5)
    book.code(("# Your answer, to two decimals", "# 你的答案，保留两位小数"), "answer = 0.75")
    book.code(
        (
            "# The worked example: p = e^ε / (e^ε + 1) = 3 / 4",
            "# 示例：p = e^ε / (e^ε + 1) = 3 / 4",
        ),
        """
        truth = make("grr", math.log(3), d=2).p
        assert abs(truth - 3 / 4) < 1e-9
        assert abs(answer - truth) <= 0.005, answer
        print(f"✓ p = {truth:.2f}")
        """,
    )


def measuring(book: LessonNotebook) -> None:
    """Lesson 6: the discrimination rate, the privacy level and the utility loss of the
    hospital release."""
    book.title(
        6,
        book.words("learn.l6.intro")
        + "\n\nThis notebook computes the figures of the lesson with `privcore.measure`, and "
        "lets you try other targets and other knowledge.",
        book.words("learn.l6.intro")
        + "\n\n本笔记本用 `privcore.measure` 算出本课的各个数值，你也可以换别的目标和知识试试。",
    )
    book.code(
        """
        import math

        import pandas as pd

        from privcore.data import load_sample
        from privcore.measure import (
            conditional_entropy,
            discrimination_rate,
            entropy,
            local_privacy_level,
            privacy_level,
            utility_loss,
        )

        QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
        original = load_sample("hospital")[0].frame
        release = load_sample("hospital_release")[0].frame
        print(pd.concat({"original": original, "release": release}, axis=1).to_string(index=False))
        """,
    )
    book.section(
        "learn.l6.formulas_title",
        r"$$H(X) = -\sum_x p(x)\log_2 p(x)$$",
        r"$$DR(\overline{X}_{qd}, \overline{X}_{prv}) = "
        r"1 - \frac{H(\overline{X}_{prv}\mid \overline{X}_{qd})}{H(\overline{X}_{prv})}$$",
        r"$$PL(\overline{D}) = DR(\overline{X}_{qd}, \overline{X}_{prv})"
        r"\cdot\frac{I(X_{prv};\overline{X}_{prv})}{H(X_{prv})}$$",
        r"$$UL(\overline{D}) = "
        r"\frac{H(\overline{X}_{qd}) + H(\overline{X}_{prv})}{H(X_{qd}) + H(X_{prv})}$$",
        book.words("learn.l6.formulas_text"),
    )
    book.section("learn.l6.values_title")
    book.code(
        """
        figures = {
            "PL(D)": privacy_level(original, release, QI, SA).value,
            "PL(Salary)": local_privacy_level(original, release, ["Salary"], QI).value,
            "PL(Disease)": local_privacy_level(original, release, ["Disease"], QI).value,
            "PL_ZIP(Age)": local_privacy_level(original, release, ["Age"], ["ZIP"]).value,
            "UL": utility_loss(original, release, QI, SA),
        }
        print(pd.Series(figures).round(3).to_string())
        """,
    )
    values = book.words("learn.l6.values_text")
    book.markdown(values, values)
    book.section(
        "learn.l6.explore_title",
        more=(
            "Change `target` (what the attacker wants) and `known` (the columns they know), "
            "then run the cell again.",
            "修改 `target`（攻击者想知道的列）和 `known`（攻击者已知的列），再运行这个单元。",
        ),
    )
    book.code(
        """
        target, known = ["Age"], ["ZIP"]
        level = local_privacy_level(original, release, target, known)
        print(f"DR {level.dr:.3f}, I/H {level.information:.3f}, PL {level.value:.3f}")
        print(f"H(X̄) = {entropy(release, target):.3f} bits")
        print(f"H(X̄ | Ȳ) = {conditional_entropy(release, target, known):.3f} bits")
        """,
    )
    book.exercise(6)
    book.code(("# Your answer, to two decimals", "# 你的答案，保留两位小数"), "answer = 0.50")
    book.code(
        (
            "# The worked example: DR = 1 − log₂ 3 / log₂ 9",
            "# 示例：DR = 1 − log₂ 3 / log₂ 9",
        ),
        """
        truth = discrimination_rate(release, QI, ["Salary"])
        assert abs(truth - (1 - math.log2(3) / math.log2(9))) < 1e-9
        assert abs(answer - truth) <= 0.005, answer
        print(f"✓ DR = {truth:.2f}")
        """,
    )


def differencing(book: LessonNotebook) -> None:
    """Lesson 7: the differencing attack on a dinner's count of singles, the noise that
    bounds it, and the accuracy of a noisy count."""
    book.title(
        7,
        book.words("learn.l7.intro")
        + "\n\nThis notebook replays the dinner of ten friends: the exact counts, the noisy "
        "counts, the bound on what an attacker learns, and what the noise costs.",
        book.words("learn.l7.intro")
        + "\n\n本笔记本重演十位朋友的晚宴：准确的计数、加噪的计数、攻击者所能知道的上限，"
        "以及噪声的代价。",
    )
    book.code(
        """
        import math

        import numpy as np
        import pandas as pd

        from privcore.dp import count, dinner_story, dinner_table, posterior_bound
        from privcore.dp.mechanisms import (
            discrete_laplace_half_width,
            discrete_laplace_pmf,
            laplace_half_width,
            laplace_scale,
        )
        """,
    )
    book.section(
        "learn.l7.story_title",
        book.words("learn.l7.story_text", diners=10, couples=8, singles=2),
        more=(
            "The guests carry pinyin names; the one who leaves is the first single guest.",
            "客人的名字用拼音书写（Zhang San 即张三）；离席的是第一位单身客人。",
        ),
    )
    book.code(
        """
        table = dinner_table()
        print(table.to_string(index=False))
        leaver = table.loc[table["status"] == "single", "name"].iloc[0]
        epsilon, prior, seed = 1.0, 0.5, 0
        story = dinner_story(epsilon, prior=prior, leaver=leaver, mechanism="geometric", seed=seed)
        print(leaver, "is", story.leaver_status)
        print("diners:", story.diners_before, "→", story.diners_after)
        print("singles:", story.singles_before, "→", story.singles_after)
        print("belief after exact answers:", story.posterior_exact_answers)
        """,
    )
    book.section(
        "learn.l7.noise_title",
        book.words("learn.l7.noise_text"),
        more=(
            "The table gives the probability of each noisy count with and without the guest "
            "who leaves; ε-DP bounds the ratio of the two by e^ε.",
            "下表给出有无离席客人两种情况下每个加噪计数的概率；ε-DP 把两者之比限制在 e^ε 以内。",
        ),
    )
    book.code(
        """
        attack = story.attack
        print("noisy counts:", int(attack.noisy_with[0]), int(attack.noisy_without[0]))
        reach = discrete_laplace_half_width(1, epsilon, beta=0.01) + 1
        outputs = np.arange(story.singles_after - reach, story.singles_before + reach + 1)
        probabilities = pd.DataFrame(
            {
                "output": outputs,
                "with": discrete_laplace_pmf(outputs - story.singles_before, 1, epsilon),
                "without": discrete_laplace_pmf(outputs - story.singles_after, 1, epsilon),
            }
        )
        print(probabilities.round(4).to_string(index=False))
        ratio = probabilities["with"] / probabilities["without"]
        largest = float(np.maximum(ratio, 1 / ratio).max())
        print(f"largest ratio {largest:.3f}, e^ε = {math.exp(epsilon):.3f}")
        assert largest <= math.exp(epsilon) + 1e-9
        """,
    )
    book.section(
        "learn.l7.bound_title",
        book.words("learn.l7.bound_text"),
        r"$$\Pr[\text{single} \mid \text{answers}] \le "
        r"\frac{p\,e^{\varepsilon}}{p\,e^{\varepsilon} + 1 - p}$$",
    )
    book.code(
        """
        print("bound:", round(posterior_bound(epsilon, prior), 3))
        print("this draw:", round(float(attack.posteriors[0]), 3))
        print("every draw:", round(attack.posterior_min, 3), "to", round(attack.posterior_max, 3))
        """,
    )
    worked = book.words("learn.l7.worked", value="0.75")
    book.markdown(worked, worked)
    book.code("assert abs(posterior_bound(math.log(3), 0.5) - 0.75) < 1e-9")
    book.section(
        "learn.l7.accuracy_title",
        book.words("learn.l7.accuracy_text", sensitivity=1),
        r"$$b = \frac{\Delta}{\varepsilon},\qquad \Pr\bigl[|Z| > t\bigr] = e^{-t/b}"
        r"\;\Rightarrow\; t_{95\%} = \frac{\Delta}{\varepsilon}\,\ln 20$$",
    )
    book.code(
        """
        sensitivity = count(table, {"status": "single"}).sensitivity_l1
        scale = laplace_scale(sensitivity, epsilon)
        half_width = laplace_half_width(sensitivity, epsilon, beta=0.05)
        discrete = discrete_laplace_half_width(int(sensitivity), epsilon, beta=0.05)
        print(f"Δ = {sensitivity:g}, b = {scale:.2f}, 95 % half-width {half_width:.2f}")
        print("discrete Laplace, 95 % half-width:", discrete)
        assert abs(half_width - scale * math.log(20)) < 1e-9
        """,
    )
    book.exercise(7, epsilon="0.25")
    book.code(("# Your answer, to two decimals", "# 你的答案，保留两位小数"), "answer = 4.00")
    book.code(
        """
        truth = laplace_scale(sensitivity, 0.25)
        assert abs(answer - truth) <= 0.005, answer
        print(f"✓ b = {truth:.2f}")
        """,
    )


def reconstruction(book: LessonNotebook) -> None:
    """Lesson 8: the census block of seven people rebuilt from its published table, and
    the same tables published with noise."""
    book.title(
        8,
        book.words("learn.l8.intro")
        + "\n\nThis notebook writes the article's published table as statistics, runs "
        "privcore's reconstruction attack on them stage by stage, then on noisy counts.",
        book.words("learn.l8.intro")
        + "\n\n本笔记本把文章中发布的统计表写成统计量，分阶段对它们运行 privcore 的重建攻击，"
        "再对加噪的计数运行一次。",
    )
    book.section(
        "learn.l8.block_title",
        book.words("learn.l8.block_text", people=7, threshold=3),
        published_table(book),
    )
    book.code(
        """
        import math

        import numpy as np
        import pandas as pd

        from privcore.attacks.reconstruction import (
            Between,
            Count,
            Mean,
            Median,
            Noise,
            Publication,
            Schema,
            reconstruct,
        )
        from privcore.dp.mechanisms import DiscreteLaplace

        OLDEST = 115
        THRESHOLD = 3
        MAX_SOLUTIONS = 10
        SCHEMA = Schema(
            {"age": range(OLDEST + 1), "sex": ("F", "M"), "race": ("B", "W"), "marital": ("S", "M")}
        )
        ADULTS = Between(18, OLDEST)
        """,
        (
            "# The census rule: no one under 15 is married",
            "# 普查规则：15 岁以下没有人已婚",
        ),
        'MARRIED_CHILDREN = {"marital": "M", "age": Between(0, 14)}',
        (
            "# Each line: its group, count, median age, mean age (None: withheld), and the "
            "rounding of the mean",
            "# 每一行：群体、人数、年龄中位数、平均年龄（None：不公布），以及平均数的舍入精度",
        ),
        """
        PUBLISHED = [
            ("1A", {}, 7, 30, 38, 0.0),
            ("2A", {"sex": "F"}, 4, 30, 33.5, 0.0),
            ("2B", {"sex": "M"}, 3, 30, 44, 0.0),
            ("2C", {"race": "B"}, 4, 51, 48.5, 0.0),
            ("2D", {"race": "W"}, 3, 24, 24, 0.0),
            ("3A", {"marital": "S", "age": ADULTS}, None, None, None, 0.0),
            ("3B", {"marital": "M", "age": ADULTS}, 4, 51, 54, 0.0),
            ("4A", {"race": "B", "sex": "F"}, 3, 36, 36.7, 0.1),
            ("4B", {"race": "B", "sex": "M"}, None, None, None, 0.0),
            ("4C", {"race": "W", "sex": "M"}, None, None, None, 0.0),
            ("4D", {"race": "W", "sex": "F"}, None, None, None, 0.0),
        ]
        """,
        (
            "# The seven people of the block (the article's Table 2): only to score the attack",
            "# 街区的七个人（文章的表 2）：只用来给攻击打分",
        ),
        """
        BLOCK = pd.DataFrame(
            {
                "age": [8, 18, 24, 30, 36, 66, 84],
                "sex": ["F", "M", "F", "M", "F", "F", "M"],
                "race": ["B", "W", "W", "W", "B", "B", "B"],
                "marital": ["S", "S", "S", "M", "M", "M", "M"],
            }
        )
        """,
        "",
        "",
        (
            "# The published statistics of some lines, with the census rule when asked",
            "# 若干行公布的统计量；需要时加上普查规则",
        ),
        """
        def statistics(line_ids, structural_zero=False):
            out = []
            for line, where, people, median, mean, rounded_to in PUBLISHED:
                if line not in line_ids:
                    continue
                if people is None:
                    out.append(Count(where, None, suppressed_below=THRESHOLD, name=line))
                    continue
                out += [
                    Count(where, people, name=f"{line} count"),
                    Median("age", median, where, name=f"{line} median"),
                    Mean("age", mean, where, rounded_to=rounded_to, name=f"{line} mean"),
                ]
            if structural_zero:
                out.append(Count(MARRIED_CHILDREN, 0, name="married under 15"))
            return out
        """,
    )
    reconstruction_attack(book)
    reconstruction_noise(book)
    reconstruction_exercise(book)


def published_table(book: LessonNotebook) -> str:
    """The article's Table 1 as a Markdown table in the notebook's language."""
    lines = [
        ("1A", "all", "7", "30", "38"),
        ("2A", "female", "4", "30", "33.5"),
        ("2B", "male", "3", "30", "44"),
        ("2C", "black", "4", "51", "48.5"),
        ("2D", "white", "3", "24", "24"),
        ("3A", "single_adults", None, None, None),
        ("3B", "married_adults", "4", "51", "54"),
        ("4A", "black_female", "3", "36", "36.7"),
        ("4B", "black_male", None, None, None),
        ("4C", "white_male", None, None, None),
        ("4D", "white_female", None, None, None),
    ]
    withheld = book.words("learn.l8.withheld")
    headings = [
        book.words(f"learn.l8.col_{name}")
        for name in ("statistic", "group", "count", "median", "mean")
    ]
    rows = [
        [line, book.words(f"learn.l8.group.{group}"), *(v or withheld for v in figures)]
        for line, group, *figures in lines
    ]
    table = [headings, ["---"] * len(headings), *rows]
    return "\n".join("| " + " | ".join(row) + " |" for row in table)


def reconstruction_attack(book: LessonNotebook) -> None:
    """Lesson 8's count of the possible ages of the men, the attack stage by stage and
    the rebuilt table."""
    book.section(
        "learn.l8.combos_title",
        more=(
            "Start with line 2B alone: 3 men, median age 30, mean age 44. Ages are whole "
            "numbers from 0 to 115 and a table does not say which man is which, so a possible "
            "answer is a multiset of 3 ages. The cell counts them all, then those with the "
            "published median and mean: the middle man is 30, the other two share the rest "
            "of the 3 × 44 years.",
            "先只看 2B 行：3 名男性，年龄中位数 30，平均年龄 44。年龄是 0 到 115 的整数，"
            "统计表也不说明哪位男性是哪一个，所以一个可能的答案是 3 个年龄组成的多重集。"
            "下面的单元先数出全部多重集，再数出符合公布的中位数和平均数的那些："
            "居中的男性是 30 岁，另外两人分享 3 × 44 年中其余的年岁。",
        ),
    )
    book.code(
        """
        every = math.comb(OLDEST + 3, 3)
        youngest_ages = [young for young in range(31) if 30 <= 3 * 44 - 30 - young <= OLDEST]
        print(every, "multisets,", len(youngest_ages), "fit")
        """,
    )
    stages = "\n".join(
        f"{number}. {book.words(f'learn.l8.stage{number}')}" for number in range(1, 6)
    )
    book.section(
        "learn.l8.stages_title",
        book.words("learn.l8.stages_text", threshold=3, cap=10, more=11),
        stages,
    )
    book.code(
        """
        everything = [line[0] for line in PUBLISHED]
        STAGES = [
            (["1A"], False),
            (["1A", "2A", "2B"], False),
            (["1A", "2A", "2B", "2C", "2D", "4A", "4B", "4C", "4D"], False),
            (everything, False),
            (everything, True),
        ]
        results = []
        for line_ids, structural_zero in STAGES:
            publication = Publication(SCHEMA, statistics(line_ids, structural_zero))
            results.append(reconstruct(publication, truth=BLOCK, max_solutions=MAX_SOLUTIONS))
        summary = pd.DataFrame(
            {
                "stage": range(1, len(STAGES) + 1),
                "tables": [len(r.solutions) if r.complete else f">= {r.at_least}" for r in results],
                "certain records": [0 if r.certain is None else len(r.certain) for r in results],
            }
        )
        print(summary.to_string(index=False))
        """,
    )
    book.section("learn.l8.rebuilt_title")
    book.code(
        """
        final = results[-1]
        rebuilt = final.table.sort_values(["age", "sex"]).reset_index(drop=True)
        print(pd.concat({"rebuilt": rebuilt, "true": BLOCK}, axis=1).to_string(index=False))
        print("one table:", final.unique, " exact records:", final.accuracy.exact, "of", len(BLOCK))
        assert final.unique and final.accuracy.exact == len(BLOCK)
        """,
    )


def reconstruction_noise(book: LessonNotebook) -> None:
    """Lesson 8's counts published with discrete Laplace noise, and the attack on them."""
    book.section("learn.l8.noise_title", book.words("learn.l8.noise_text", tables=5))
    book.code(
        (
            "# ε split equally among the five tables the counts belong to",
            "# ε 在计数所属的五张表之间平均分配",
        ),
        """
        TABLES = ("total", "sex", "race", "marital", "race_sex")
        epsilon, seed = 4.0, 0
        records = SCHEMA.codes()[SCHEMA.type_of(BLOCK)]
        true_counts = np.array([int(SCHEMA.mask(line[1], records).sum()) for line in PUBLISHED])
        mechanism = DiscreteLaplace(1, epsilon / len(TABLES))
        noisy = np.asarray(mechanism.release(true_counts, rng=np.random.default_rng(seed)))
        """,
        (
            "# The attacker knows the law of the noise",
            "# 攻击者知道噪声的分布",
        ),
        """
        noise = Noise("discrete_laplace", mechanism.scale, 1e-6)
        counts = [
            Count(line[1], int(value), noise=noise, name=line[0])
            for line, value in zip(PUBLISHED, noisy, strict=True)
        ]
        counts.append(Count(MARRIED_CHILDREN, 0, name="married under 15"))
        guess = reconstruct(Publication(SCHEMA, counts), truth=BLOCK, max_solutions=MAX_SOLUTIONS)
        line_ids = [line[0] for line in PUBLISHED]
        shown = pd.DataFrame({"line": line_ids, "true": true_counts, "noisy": noisy})
        print(shown.to_string(index=False))
        print("exact records:", guess.accuracy.exact, "of", len(BLOCK))
        print("records rebuilt:", len(guess.table))
        """,
    )
    why = book.words("learn.l8.noise_why")
    book.markdown(why, why)


def reconstruction_exercise(book: LessonNotebook) -> None:
    """Lesson 8's exercise: the oldest man's age from line 2B and the youngest man's."""
    book.exercise(8, count=3, median=30, mean=44, youngest=18)
    book.code(("# Your answer: an age", "# 你的答案：一个年龄"), "answer = 84")
    book.code(
        (
            "# The men of the table the attack rebuilt, and the worked example",
            "# 攻击重建出的表中的男性，以及示例的算法",
        ),
        """
        men = final.table.loc[final.table["sex"] == "M", "age"]
        assert int(men.min()) == 18
        assert int(men.max()) == 3 * 44 - 30 - 18
        assert answer == int(men.max()), answer
        print("✓", int(men.max()))
        """,
    )
