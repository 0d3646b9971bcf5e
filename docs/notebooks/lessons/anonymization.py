"""Lessons 1–4 of the Learn page as notebooks: linkage, k-anonymity, l-diversity and
t-closeness, each on the table its lesson uses (the nine-patient worked example, or the
small table the lesson builds) with the functions its lesson calls."""

from __future__ import annotations

from cells import LessonNotebook


def linkage(book: LessonNotebook) -> None:
    """Lesson 1: a voter roll joined with the hospital table on ZIP and age."""
    book.title(
        1,
        book.words("learn.l1.story")
        + "\n\nThis notebook repeats the attack: it builds a synthetic voter roll around the "
        "nine patients and joins it with the hospital table on the quasi-identifiers.",
        book.words("learn.l1.story")
        + "\n\n本笔记本重演这次攻击：围绕九位患者生成一份合成的选民名册，"
        "再在准标识符上把它与医院数据连接起来。",
    )
    book.section("learn.l1.hospital_title", book.words("learn.l1.hospital_caption"))
    book.code(
        """
        from privcore.attacks import build_roll, linkage_attack
        from privcore.data import load_sample
        """,
        "",
        ("# ZIP code and age: the quasi-identifiers", "# 邮编和年龄：准标识符"),
        """
        QI = ["ZIP", "Age"]
        hospital = load_sample("hospital")[0].frame
        print(hospital.to_string(index=False))
        """,
    )
    book.section("learn.l1.roll_title", book.words("learn.l1.roll_caption", size=27))
    book.code(
        (
            "# 27 voters drawn with seed 0, as on the page; locale: the language of the names",
            '# 与页面一样，用种子 0 生成 27 位选民；locale 是姓名的语言（"zh" 生成中文姓名）',
        ),
        """
        roll = build_roll(hospital, QI, size=27, seed=0, locale="en")
        print(roll.frame[["name", "birth_date", *QI]].to_string(index=False))
        """,
    )
    book.section(
        "learn.l1.join_title",
        book.words("learn.l1.join_text"),
        more=(
            "`candidate_records` counts the hospital records that match the voter, "
            "`Disease values` lists their diagnoses and `correct` says whether the match is "
            "the voter's own record.",
            "`candidate_records` 是与该选民匹配的医院记录数，`Disease values` "
            "列出这些记录的诊断，`correct` 表示匹配到的是否正是本人的记录。",
        ),
    )
    book.code(
        """
        report = linkage_attack(hospital, roll.frame, QI, ["Disease"], truth=hospital)
        shown = ["name", *QI, "candidate_records", "Disease values", "correct"]
        print(report.targets[shown].to_string(index=False))
        print("false matches:", report.summary["false_matches"])
        """,
    )
    false_matches = book.words("learn.l1.false_matches", count=3)
    book.markdown(false_matches, false_matches)
    book.exercise(1)
    book.code(("# Your answer: a whole number", "# 你的答案：一个整数"), "answer = 9")
    book.code(
        ("# The patients the join re-identifies", "# 连接重识别出的患者人数"),
        """
        truth = int(report.summary["reidentified"])
        assert answer == truth, answer
        print("✓", truth)
        """,
    )


def k_anonymity(book: LessonNotebook) -> None:
    """Lesson 2: hierarchies, Datafly and Samarati on the hospital table, and their
    information loss."""
    book.title(
        2,
        book.words("learn.l2.intro")
        + "\n\nThis notebook generalizes the hospital table with Datafly and Samarati, "
        "compares what they cost, and asks you for a 3-anonymous generalization.",
        book.words("learn.l2.intro")
        + "\n\n本笔记本用 Datafly 和 Samarati 泛化医院数据，比较它们的代价，"
        "最后请你找出一种 3-匿名的泛化。",
    )
    book.section("learn.l2.hierarchies_title", book.words("learn.l2.hierarchies_caption"))
    book.code(
        """
        import numpy as np
        import pandas as pd

        from privcore.anonymize import anonymize
        from privcore.classes import equivalence_classes
        from privcore.data import load_sample
        from privcore.measure import gcp, ncp, precision
        from privcore.models import KAnonymity

        QI = ["ZIP", "Age"]
        dataset, schema = load_sample("hospital")
        hospital = dataset.frame
        hierarchies = {column: schema.hierarchies[column] for column in QI}
        for column, hierarchy in hierarchies.items():
            first = hospital[column].head(1)
            labels = [
                str(hierarchy.generalize_values(first, level).iloc[0])
                for level in range(hierarchy.height + 1)
            ]
            print(column, " → ".join(labels))
        """,
    )
    book.section(
        "learn.l2.datafly_title",
        book.words("learn.l2.datafly_text"),
        more=(
            "Each row below is one step: the QI Datafly raised, and how many distinct values "
            "it had then.",
            "下面每一行是一步：Datafly 提升的准标识符，以及它当时有多少个不同取值。",
        ),
    )
    book.code(
        ("# k = 3, no row suppressed", "# k = 3，不抑制任何行"),
        """
        datafly = anonymize(hospital, schema, [KAnonymity(3)], algorithm="datafly")
        print(pd.DataFrame(datafly.params["steps"]).to_string())
        print("node:", datafly.node, " suppressed:", datafly.n_suppressed)
        print(datafly.frame.to_string(index=False))
        """,
    )
    book.section(
        "learn.l2.samarati_title",
        more=(
            "Every choice of levels is a node of a **lattice**; its height is the sum of the "
            "levels. Generalizing further never breaks k-anonymity, so Samarati (2001) "
            "binary-searches the lowest height that works, and keeps the node of that height "
            "that loses the least information.",
            "每一种层级组合都是**格**上的一个节点，它的高度是各层级之和。进一步泛化不会破坏 "
            "k-匿名，所以 Samarati（2001）对高度做二分查找，找到可行的最低高度，"
            "再在这一高度上保留信息损失最小的节点。",
        ),
    )
    book.code(
        """
        samarati = anonymize(hospital, schema, [KAnonymity(3)], algorithm="samarati")
        searched = ("height", "candidates", "evaluated_nodes", "lattice_size")
        print({key: samarati.params[key] for key in searched})
        print("node:", samarati.node)
        """,
    )
    k_anonymity_cost(book)


def k_anonymity_cost(book: LessonNotebook) -> None:
    """Lesson 2's information loss of the two releases, and its exercise: a
    3-anonymous generalization checked with privcore's classes and losses."""
    book.section(
        "learn.l2.cost_title",
        book.words("learn.l2.cost_text"),
        r"$$\mathrm{GCP} = \frac{1}{n\,|QI|}\sum_{q \in QI}\sum_{r} \mathrm{NCP}_q(r),"
        r"\qquad \mathrm{Prec} = 1 - \frac{1}{n\,|QI|}\sum_{q \in QI}\sum_{r}"
        r"\frac{\mathrm{level}_q(r)}{\mathrm{height}_q}$$",
    )
    book.code(
        """
        releases = {"Datafly": datafly, "Samarati": samarati}
        costs = pd.DataFrame(
            {
                name: {"GCP": release.loss["gcp"], "precision": release.loss["precision"]}
                for name, release in releases.items()
            }
        )
        print(costs.round(3))
        """,
    )
    book.exercise(2, zip_top=5, age_top=3)
    book.code(
        ("# Your answer: (ZIP level, Age level)", "# 你的答案：(ZIP 层级, Age 层级)"),
        "answer = (1, 2)",
    )
    book.code(
        """
        release = hospital.copy()
        levels = {}
        for column, level in zip(QI, answer, strict=True):
            release[column] = hierarchies[column].generalize_values(hospital[column], level)
            levels[column] = np.full(len(hospital), level)
        """,
        (
            "# Nothing is suppressed: rows at * in every QI are a class too",
            "# 没有行被抑制：所有准标识符都是 * 的行也构成一个等价类",
        ),
        """
        classes = equivalence_classes(release, QI, blanked=np.zeros(len(release), dtype=bool))
        penalties = {q: ncp(hospital[q], levels[q], hierarchies[q]) for q in QI}
        print("smallest class:", int(classes.sizes.min()), " height:", sum(answer))
        print("GCP:", round(gcp(penalties), 3))
        print("precision:", round(precision(levels, hierarchies), 3))
        assert KAnonymity(3).satisfied(classes), answer
        print("✓ Samarati:", samarati.node, " height:", sum(samarati.node))
        """,
    )


def l_diversity(book: LessonNotebook) -> None:
    """Lesson 3: the homogeneity and background-knowledge attacks on a 3-anonymous
    release, and the three forms of l-diversity."""
    book.title(
        3,
        book.words("learn.l3.intro").rstrip(":：")
        + ".\n\nThis notebook attacks that release, then measures it with the three forms of "
        "l-diversity.",
        book.words("learn.l3.intro").rstrip(":：")
        + "。\n\n本笔记本先攻击这份发布，再用 l-多样性的三种形式度量它。",
    )
    book.code(
        """
        import numpy as np
        import pandas as pd

        from privcore.attacks import background_attack, homogeneity_attack
        from privcore.classes import equivalence_classes
        from privcore.models import (
            DistinctLDiversity,
            EntropyLDiversity,
            RecursiveCLDiversity,
            distinct_values,
            entropy_l,
            recursive_c,
        )

        QI = ["ZIP", "Age"]
        """,
        ("# A 3-anonymous release of ten patients", "# 十位患者的一份 3-匿名发布"),
        """
        release = pd.DataFrame(
            {
                "ZIP": ["476**"] * 3 + ["4790*"] * 3 + ["476**"] * 4,
                "Age": ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 4,
                "Disease": [
                    "gastric ulcer",
                    "gastritis",
                    "stomach cancer",
                    "stomach cancer",
                    "stomach cancer",
                    "stomach cancer",
                    "bronchitis",
                    "bronchitis",
                    "pneumonia",
                    "flu",
                ],
            }
        )
        print(release.to_string(index=False))
        classes = equivalence_classes(release, QI, ["Disease"])
        keys = classes.class_keys(release).itertuples(index=False)
        names = [f"({zip_code}, {age})" for zip_code, age in keys]
        """,
    )
    book.section("learn.l3.homogeneity_title", book.words("learn.l3.homogeneity_text", records=3))
    book.code(
        """
        homogeneity = homogeneity_attack(release, QI, "Disease")
        print(homogeneity.targets[["ZIP", "Age", "size", "value"]].to_string(index=False))
        print("records exposed:", homogeneity.summary["records_exposed"])
        """,
    )
    book.section(
        "learn.l3.background_title",
        more=(
            "A class with several values can still betray its members to an attacker who "
            "knows something extra, for instance that a target has no respiratory infection. "
            "With m values of the class ruled out (worst case: its most frequent wrong values "
            "first), the attacker's confidence in the true value v is\n\n"
            r"$$P(v) = \frac{c(v)}{n - \sum_{u \in R} c(u)}$$"
            "\n\nwhere c counts the values in the class of n rows and R holds the values ruled "
            "out. The cell counts, for m = 0 to 3, the records whose true value reaches 80 %.",
            "即使一个等价类里有多个取值，只要攻击者多知道一点，例如目标没有呼吸道感染，"
            "其成员仍可能暴露。排除等价类中的 m 个取值（最坏情况：先排除最常见的错误取值）后，"
            "攻击者对真实取值 v 的置信度为\n\n"
            r"$$P(v) = \frac{c(v)}{n - \sum_{u \in R} c(u)}$$"
            "\n\n其中 c 是 n 行的等价类中各取值的计数，R 是被排除的取值。"
            "下面的单元对 m = 0 到 3 数出真实取值的置信度达到 80% 的记录。",
        ),
    )
    book.code(
        """
        for m in range(4):
            summary = background_attack(release, QI, "Disease", m=m, tau=0.8).summary
            at_risk, mean = summary["records_at_risk"], summary["mean_posterior"]
            print(f"m = {m}: {at_risk} of {summary['records']} at ≥ 80 %, mean {mean:.2f}")
        one = background_attack(release, QI, "Disease", m=1, tau=0.8).targets
        print(one.assign(record=one["row"] + 1)[["record", "value", "posterior"]].round(2))
        """,
    )
    l_diversity_forms(book)


def l_diversity_forms(book: LessonNotebook) -> None:
    """Lesson 3's three forms of l-diversity on the release, and its exercise: the
    entropy l of one class."""
    book.section(
        "learn.l3.forms_title",
        more=(
            "**Distinct**: at least l different values per class. **Entropy**: the class's "
            "distribution is at least as spread out as l equally frequent values. "
            "**Recursive (c, l)**: with the counts sorted r₁ ≥ r₂ ≥ … ≥ rₘ, the most frequent "
            "value does not outweigh the tail.",
            "**可区分**：每个等价类至少有 l 个不同取值。**熵**：等价类的分布至少与 l 个等频取值"
            "一样分散。**递归 (c, l)**：把计数排序为 r₁ ≥ r₂ ≥ … ≥ rₘ，最常见的取值不能压过尾部。",
        ),
    )
    book.markdown(
        r"$$|\{s\}| \ge l,\qquad -\sum_s p(s)\ln p(s) \ge \ln l,"
        r"\qquad r_1 < c\,(r_l + r_{l+1} + \dots + r_m)$$",
        r"$$|\{s\}| \ge l,\qquad -\sum_s p(s)\ln p(s) \ge \ln l,"
        r"\qquad r_1 < c\,(r_l + r_{l+1} + \dots + r_m)$$",
    )
    book.code(
        ("# Try other values of l and c", "# 试试其他的 l 和 c"),
        """
        l_value, c_value = 2, 2.0
        models = {
            "distinct": DistinctLDiversity(l_value),
            "entropy": EntropyLDiversity(float(l_value)),
            "recursive": RecursiveCLDiversity(c_value, l_value),
        }
        table = pd.DataFrame(
            {
                "class": names,
                "distinct l": distinct_values(classes, "Disease"),
                "entropy l": np.round(entropy_l(classes, "Disease"), 3),
                "recursive c": np.round(recursive_c(classes, "Disease", l_value), 3),
            }
        )
        for name, model in models.items():
            table[name] = np.where(model.class_pass(classes), "✓", "✗")
        print(table.to_string(index=False))
        for model in models.values():
            print(model.requirement(), "→", "pass" if model.satisfied(classes) else "fail")
        """,
    )
    book.exercise(3)
    book.code(
        """
        quiz = pd.DataFrame({"Class": "X", "Disease": ["flu", "flu", "flu", "cold", "covid"]})
        print(quiz.to_string(index=False))
        """,
    )
    book.code(("# Your answer, to two decimals", "# 你的答案，保留两位小数"), "answer = 2.59")
    book.code(
        """
        truth = float(entropy_l(equivalence_classes(quiz, ["Class"], ["Disease"]), "Disease")[0])
        assert abs(answer - truth) <= 0.005, answer
        print(f"✓ l = {truth:.2f}")
        """,
    )


def t_closeness(book: LessonNotebook) -> None:
    """Lesson 4: the ordered distance on salaries, the equal and hierarchical distances
    on diseases."""
    book.title(
        4,
        book.words("learn.l4.intro")
        + "\n\nThis notebook computes the three distances of privcore on the worked example's "
        "release, and the ordered one by hand beside it.",
        book.words("learn.l4.intro")
        + "\n\n本笔记本在示例发布上计算 privcore 的三种距离，并在旁边手工算出有序距离。",
    )
    book.code(
        """
        import numpy as np
        import pandas as pd

        from privcore.classes import equivalence_classes
        from privcore.data import load_sample
        from privcore.models import t_distance

        QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
        release = load_sample("hospital_release")[0].frame
        hierarchy = load_sample("hospital")[1].hierarchies["Disease"]
        classes = equivalence_classes(release, QI, SA, hierarchies={"Disease": hierarchy})
        keys = classes.class_keys(release).itertuples(index=False)
        names = [f"({zip_code}, {age})" for zip_code, age in keys]
        print(release.to_string(index=False))
        """,
    )
    book.section(
        "learn.l4.ordered_title",
        r"$$D_{\text{ordered}}(P,Q) = \frac{1}{m-1}\sum_{i=1}^{m}"
        r"\Bigl|\sum_{j\le i}(p_j-q_j)\Bigr|$$",
        more=(
            "p holds the class's shares of the m salaries in rank order, q the whole table's. "
            "The cell takes the class farthest from the table and adds up its running "
            "differences by hand.",
            "p 是等价类中按大小排列的 m 个薪资各自的占比，q 是整表的占比。"
            "下面的单元取离整表最远的等价类，手工把它的累计差加起来。",
        ),
    )
    book.code(
        """
        salary_t = t_distance(classes, "Salary", "ordered")
        worst = int(np.argmax(salary_t))
        values = np.sort(release["Salary"].unique())
        q = release["Salary"].value_counts(normalize=True).reindex(values, fill_value=0.0)
        members = release["Salary"][classes.ids == worst]
        p = members.value_counts(normalize=True).reindex(values, fill_value=0.0)
        steps = pd.DataFrame({"salary": values, "p": p.to_numpy(), "q": q.to_numpy()})
        steps["running difference"] = np.cumsum(steps["p"] - steps["q"])
        print(names[worst])
        print(steps.round(3).to_string(index=False))
        by_hand = steps["running difference"].abs().sum() / (len(steps) - 1)
        print("by hand:", round(by_hand, 3), " privcore:", round(float(salary_t[worst]), 3))
        assert abs(by_hand - salary_t[worst]) < 1e-9
        """,
    )
    book.markdown(
        "Some course notes quote 0.167 for this table. That figure belongs to another "
        "grouping in the original paper (rows 1, 3, 8 / 4, 5, 6 / 2, 7, 9):",
        "有些课程讲义对这张表给出 0.167。这个数字属于原论文中的另一种分组"
        "（第 1、3、8 / 4、5、6 / 2、7、9 行）：",
    )
    book.code(
        """
        hospital = load_sample("hospital")[0].frame.assign(group=[1, 2, 1, 3, 3, 3, 2, 1, 2])
        other = equivalence_classes(hospital, ["group"], ["Salary"])
        print(round(float(t_distance(other, "Salary", "ordered").max()), 4))
        """,
    )
    book.section(
        "learn.l4.disease_title",
        book.words("learn.l4.disease_text"),
        r"$$D_{\text{equal}}(P,Q) = \tfrac12\sum_i |p_i-q_i|$$",
    )
    book.code(
        """
        print(hierarchy.to_frame().to_string(index=False))
        distances = pd.DataFrame(
            {
                "class": names,
                "t Salary (ordered)": salary_t,
                "t Disease (equal)": t_distance(classes, "Disease", "equal"),
                "t Disease (hierarchical)": t_distance(classes, "Disease", "hierarchical"),
            }
        )
        print(distances.round(3).to_string(index=False))
        """,
    )
    after = book.words("learn.l4.disease_after")
    book.markdown(after, after)
    book.exercise(4)
    book.code(
        """
        tiny = pd.DataFrame(
            {
                "Class": ["A"] * 6 + ["B"] * 4,
                "Disease": ["flu"] * 4 + ["cold"] * 2 + ["cold", "covid", "covid", "flu"],
            }
        )
        print(tiny.to_string(index=False))
        """,
    )
    book.code(("# Your answer, to two decimals", "# 你的答案，保留两位小数"), "answer = 0.30")
    book.code(
        ("# Class B is the second class", "# 等价类 B 是第二个等价类"),
        """
        tiny_classes = equivalence_classes(tiny, ["Class"], ["Disease"])
        truth = float(t_distance(tiny_classes, "Disease", "equal")[1])
        assert abs(answer - truth) <= 0.005, answer
        print(f"✓ t = {truth:.2f}")
        """,
    )
