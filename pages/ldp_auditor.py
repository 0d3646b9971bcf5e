"""LDP auditor: does a local-DP mechanism lose no more privacy than it claims?"""

from functools import partial

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.ldp import audit as ldp_audit
from privcore.ldp.device import device
from privcore.ldp.mechanisms import make
from privcore.runs import AuditRequest, Inputs, TaskRequest, tasks
from privcore.runs.registry import AUDIT_METHODS, DENSITIES, MECHANISMS
from ui import ldp_view as view
from ui.components import safe_bounds
from ui.errors import show_error
from ui.heavy import heavy_button, new_request, run_heavy
from ui.i18n import labels, t
from ui.shell import require_app
from ui.state import keep, load_upload
from ui.workspace import guard_run, result_header

require_app()

RESULT = "ldp_result"
PAGE = "ldp"


def audit(request_values: dict, inputs: Inputs, *, label: str):
    """One recorded audit run (every method's memory plan is checked before any work:
    :func:`privcore.runs.costs.check`)."""
    request = new_request(AuditRequest, request_values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=label, page=PAGE)


def samples_input(label: str, top: int, value: int, step: int, key: str) -> int:
    """Samples per input of one audit method: at most ``top`` and this installation's
    limit (``PRIVCORE_MAX_AUDIT_SAMPLES``), the default clamped to them."""
    cap = ldp_audit.max_samples()
    low, high, value = safe_bounds(min(1_000, cap), min(top, cap), value)
    return int(
        st.number_input(
            t(label), low, high, value, step, key=keep(key, valid=lambda v: low <= v <= high)
        )
    )


st.title(t("ldp.title"))
st.write(t("ldp.lead"))
try:
    where = device()
    st.badge(
        t("ldp.device_cuda") if where.startswith("cuda") else t("ldp.device_cpu"),
        icon=":material/memory:",
        color="green" if where.startswith("cuda") else "gray",
    )
except PrivcoreError as exc:
    show_error(exc)
    st.stop()

tabs = st.tabs(
    [
        t("ldp.tab_mechanism"),
        t("ldp.tab_samples"),
        t("ldp.tab_sweep"),
        t("ldp.tab_planner"),
        t("ldp.tab_reconstruction"),
    ]
)


with tabs[0]:
    left, right = st.columns([1, 2], gap="large")
    with left:
        names = list(MECHANISMS)
        name = st.selectbox(
            t("ldp.mechanism"),
            names,
            index=names.index("grr"),
            format_func=labels(names, view.mechanism_label),
            key=keep("ldp_mechanism"),
        )
        entry = MECHANISMS[name]
        st.caption(entry.source)
        epsilon = st.number_input("ε", 0.05, 10.0, 1.0, 0.25, key=keep("ldp_epsilon"))
        d = None
        if entry.family == "frequency":
            d = int(st.number_input(t("ldp.domain"), 2, 10_000, 20, key=keep("ldp_d")))
            st.caption(t("ldp.domain_values", top=d - 1))
        else:
            lo, hi = make(name, epsilon).input_range()
            st.caption(t("ldp.range", lo=f"{lo:g}", hi=f"{hi:g}"))
        inputs_text = st.text_input(
            t("ldp.inputs"), "", help=t("ldp.inputs_help"), key=keep("ldp_inputs")
        )
        methods = st.multiselect(
            t("ldp.methods"),
            list(AUDIT_METHODS),
            default=list(AUDIT_METHODS),
            format_func=labels(AUDIT_METHODS, lambda m: t(f"ldp.method_{m}")),
            key=keep("ldp_methods"),
        )
        n_ab = samples_input("ldp.n_ab", 5_000_000, 100_000, 50_000, "ldp_n_ab")
        n_ob = samples_input("ldp.n_ob", 1_000_000, 40_000, 10_000, "ldp_n_ob")
        n_lb = samples_input("ldp.n_lb", 5_000_000, 200_000, 100_000, "ldp_n_lb")
        density = st.radio(
            t("ldp.density_mode"),
            list(DENSITIES),
            horizontal=True,
            format_func=labels(DENSITIES, lambda m: t(f"ldp.density_{m}")),
            key=keep("ldp_density"),
        )
        seed = int(st.number_input(t("an.seed"), 0, 2**31 - 1, 0, key=keep("ldp_seed")))
        go = heavy_button(t("ldp.run"), key="ldp_run", cancel_key="ldp_cancel")
    order = [m for m in AUDIT_METHODS if m in methods]  # as they run
    sizes = {"ab": n_ab, "ob": n_ob, "lb": n_lb}
    values = {
        "mechanism": name,
        "epsilon": float(epsilon),
        "domain": d,
        "methods": order,
        "method_samples": {m: sizes[m] for m in order},
        "density": density,
        "seed": seed,
    }
    with right:
        if go:
            try:
                values["inputs"] = view.parse_inputs(inputs_text)
            except PrivcoreError as exc:
                show_error(exc)
            else:
                outcome = guard_run(lambda: audit(values, Inputs(), label=t("ldp.auditing")))
                if outcome is not None:
                    mechanism = make(name, epsilon, d=d)
                    st.session_state[RESULT] = {
                        "outcome": outcome,
                        "params": {k: v for k, v in values.items() if k != "inputs"},
                        "mechanism": mechanism.describe(),
                    }
        stored = st.session_state.get(RESULT)
        if stored and stored["outcome"].result:
            reports = stored["outcome"].result
            now = {k: v for k, v in values.items() if k != "inputs"}
            result_header(stored, None, now, run_id=stored["outcome"].run_id)
            st.caption(t("ldp.true_epsilon", true=view.fmt(stored["mechanism"]["true_epsilon"])))
            deciding = view.deciding_report(reports)
            view.verdict_banner(deciding)
            view.summary_metrics(reports)
            view.decision_note(deciding)
            if "ob" in reports:
                ob = reports["ob"]
                chart = view.distributions_chart(ob, ob.details["inputs"])
                if chart is not None:
                    st.altair_chart(chart, width="stretch")
                view.show_leakage(ob)
                st.caption(
                    t(
                        "ldp.ob_caption",
                        floor=view.fmt(ob.details.get("floor"), 5),
                        tau_d=ob.details.get("tau_d"),
                        tau_c=ob.details.get("tau_c"),
                    )
                )

with tabs[1]:
    st.caption(t("ldp.samples_help"))
    upload = st.file_uploader(
        t("ldp.samples_file"),
        type=["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "gz", "zip"],
        key="ldp_samples",
    )
    if upload is not None:
        try:
            samples = load_upload(upload.getvalue(), upload.name).frame
            columns = [str(c) for c in samples.columns]
            c1, c2, c3 = st.columns(3)
            input_col = c1.selectbox(
                t("ldp.input_col"), columns, key=keep("ldp_in", valid=lambda v: v in columns)
            )
            shape = c2.radio(
                t("ldp.output_shape"),
                ["one", "prefix"],
                horizontal=True,
                format_func=labels(["one", "prefix"], lambda s: t(f"ldp.output_{s}")),
                key=keep("ldp_shape"),
            )
            others = [c for c in columns if c != input_col]
            if shape == "one":
                outputs = [
                    c2.selectbox(
                        t("ldp.output_col"),
                        others,
                        key=keep("ldp_out", valid=lambda v: v in others),
                    )
                ]
            else:
                prefix = c2.text_input(t("ldp.output_prefix"), "y", key=keep("ldp_prefix"))
                outputs = [c for c in others if c.startswith(prefix)]
                c2.caption(t("ldp.prefix_columns", n=len(outputs)))
            claimed = c3.number_input(
                t("ldp.claimed"), 0.05, 20.0, 1.0, 0.25, key=keep("ldp_claim")
            )
            method = c3.radio(
                t("ldp.methods"),
                # logged samples have no mechanism to inspect: no white-box AB
                [m for m in AUDIT_METHODS if m != "ab"],
                horizontal=True,
                format_func=labels(AUDIT_METHODS, lambda m: t(f"ldp.method_{m}")),
                key=keep("ldp_s_method"),
            )
            if heavy_button(t("ldp.run_samples"), key="ldp_run_samples"):
                dataset = load_upload(upload.getvalue(), upload.name)
                outcome = guard_run(
                    lambda: audit(
                        {
                            "epsilon": float(claimed),
                            "methods": [method],
                            "input_column": input_col,
                            "output_columns": outputs,
                        },
                        Inputs(samples=dataset, names={"samples": upload.name}),
                        label=t("ldp.auditing"),
                    )
                )
                if outcome is not None:
                    report = outcome.result[method]
                    view.verdict_banner(report)
                    view.summary_metrics({method: report})
                    view.decision_note(report)
                    if method == "ob":  # what the implementation's outputs look like per input
                        chart = view.distributions_chart(report, report.details["inputs"])
                        if chart is not None:
                            st.altair_chart(chart, width="stretch")
                        view.show_leakage(report)
        except PrivcoreError as exc:
            show_error(exc)

with tabs[2]:
    st.caption(t("ldp.sweep_help"))
    c1, c2 = st.columns(2)
    sweep_name = c1.selectbox(
        t("ldp.mechanism"),
        list(MECHANISMS),
        format_func=labels(MECHANISMS, view.mechanism_label),
        key=keep("ldp_sweep_mechanism"),
    )
    eps_text = c2.text_input(t("ldp.sweep_list"), "0.5, 1, 2, 4", key=keep("ldp_sweep_list"))
    sweep_d = 20 if MECHANISMS[sweep_name].family == "frequency" else None
    if heavy_button(t("ldp.run_sweep"), key="ldp_run_sweep", primary=False):
        try:
            epsilons = [float(x) for x in eps_text.replace(";", ",").split(",") if x.strip()]
        except ValueError:
            st.error(t("hierarchy.bad_numbers", text=eps_text))
        else:
            sweep = partial(tasks.sweep_task, sweep_name, epsilons, sweep_d)
            request = TaskRequest(task="audit", params={"sweep": sweep_name, "epsilons": epsilons})
            outcome = guard_run(
                lambda: run_heavy(request, Inputs(work=sweep), label=t("ldp.sweeping"), page=PAGE)
            )
            if outcome is not None:
                st.altair_chart(view.sweep_chart(outcome.result), width="stretch")
                st.dataframe(outcome.result, hide_index=True)

with tabs[3]:
    st.caption(t("ldp.planner_help"))
    c1, c2, c3 = st.columns(3)
    p = c1.number_input(
        t("ldp.planner_p"), 0.0001, 0.9999, 0.01, 0.005, format="%.4f", key=keep("ldp_p")
    )
    margin = c2.number_input(
        t("ldp.planner_margin"), 0.00001, 0.5, 0.001, 0.0005, format="%.5f", key=keep("ldp_margin")
    )
    confidence = c3.number_input(
        t("ldp.planner_confidence"), 0.5, 0.9999, 0.95, 0.01, key=keep("ldp_conf")
    )
    try:
        st.metric(t("ldp.planner_n"), f"{ldp_audit.sample_size(p, margin, confidence):,}")
    except PrivcoreError as exc:
        show_error(exc)

with tabs[4]:
    st.caption(t("ldp.rc_help"))
    c1, c2, c3, c4 = st.columns(4)
    kind = c1.selectbox(
        t("ldp.rc_noise"),
        ["uniform", "gaussian"],
        format_func=labels(["uniform", "gaussian"], lambda k: t(f"ldp.rc_{k}")),
        key=keep("ldp_rc_kind"),
    )
    scale = c2.number_input(t("ldp.rc_scale"), 0.5, 200.0, 25.0, 5.0, key=keep("ldp_rc_scale"))
    n_rc = int(
        c3.number_input(t("ldp.rc_n"), 1_000, 1_000_000, 100_000, 10_000, key=keep("ldp_rc_n"))
    )
    method = c4.radio(
        t("ldp.rc_method"),
        ["bayes", "em"],
        horizontal=True,
        format_func=labels(["bayes", "em"], lambda m: t(f"ldp.rc_{m}")),
        key=keep("ldp_rc_method"),
    )
    if heavy_button(t("ldp.rc_run"), key="ldp_rc_run", primary=False):
        try:
            request = TaskRequest(task="ldp_reconstruction", params={"n": n_rc})
            work = partial(tasks.reconstruction_task, kind, float(scale), n_rc, method)
            outcome = run_heavy(
                request, Inputs(work=work), label=t("ldp.rc_run"), page=PAGE, record=False
            )
            (result, truth), summary = outcome.result, outcome.summary
            st.altair_chart(
                view.reconstruction_chart(result.edges, truth, result.perturbed, result.estimate),
                width="stretch",
            )
            st.metric(t("ldp.rc_tv"), view.fmt(summary["tv"]), help=t("ldp.rc_tv_help"))
            st.caption(
                t(
                    "ldp.rc_tv_perturbed",
                    tv=view.fmt(summary["tv_perturbed"]),
                    iterations=summary["iterations"],
                )
            )
        except PrivcoreError as exc:
            show_error(exc)
