"""results.jsonl -> report.md (tables with ratios) and plot.png (log-scale bars).

usage: python benchmarks/report.py RESULTS_DIR
"""
import json
import pathlib
import statistics
import sys

TITLES = {
    "W0": "W0 dispatch: 10,000 x `z = z + y`, (1,) float32, eager (µs per op)",
    "W1a": "W1a rigid: 100 x `tanh(z @ y)`, (32, 32)",
    "W1b": "W1b rigid: 100 x `tanh(z @ y)`, (512, 512)",
    "W2a": "W2a chain: 50 x `tanh(x)*0.9 + sigmoid(x)*0.1`, (1024,)",
    "W2b": "W2b chain: same, (1024, 1024)",
    "W3": "W3 MLP train step: Dense(1024,1024)+ReLU, MSE, momentum SGD, batch 32",
    "W4": "W4 LeNet-5 train step, batch 32, sparse CE, momentum SGD",
    "W5": "W5 one-block ViT train step, (8,3,224,224), Adam",
    "W1a-grad": "W1a-grad: gradient of rigid_compute w.r.t. both inputs, (32, 32)",
    "W1b-grad": "W1b-grad: gradient of rigid_compute w.r.t. both inputs, (512, 512)",
    "import": "import: `import spore` in a fresh interpreter, bytecode cache warm (ms; first "
              "call = the first import; check = modules loaded)",
}
EAGER_REF = ("torch", "eager")
# Columns of the summary: (label, framework, mode).
SUMMARY_COLUMNS = [
    ("NumPy", "numpy", "numpy"),
    ("PyTorch eager", "torch", "eager"),
    ("torch.compile", "torch", "compile"),
    ("JAX jit", "jax", "jit"),
    ("MindSpore PyNative", "mindspore", "pynative"),
    ("MindSpore jit", "mindspore", "jit"),
]
# W6 is the first call of a compiled function, taken from these workloads' rows.
COMPILE_TIME_WORKLOADS = ("W1a", "W3", "W4", "W5")
COMPILED_MODES = {("torch", "compile"), ("torch", "compile_model"), ("jax", "jit"),
                  ("mindspore", "jit"), ("spore", "jit"), ("spore", "jit_O1")}


def load(path):
    recs = []
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs


def merge_passes(recs):
    """One record per (workload, system, mode): with ``run.py --passes N`` each is measured
    N times; its median is the median of the passes' medians, min and max the extremes,
    and ``by_pass`` keeps each pass's median so ratios can pair measurements taken in
    the same pass (next to each other in time)."""
    groups = {}
    for r in recs:
        groups.setdefault((r["workload"], r["framework"], r["mode"]), []).append(r)
    merged = []
    for rs in groups.values():
        ok = [r for r in rs if "error" not in r]
        if len(rs) == 1 or not ok:
            merged.append(rs[0])
            continue
        rec = dict(ok[0])
        for key, pick in (("median_ms", statistics.median), ("min_ms", min), ("max_ms", max),
                          ("first_call_ms", statistics.median), ("other_load", max)):
            vals = [r[key] for r in ok if r.get(key) is not None]
            if vals:
                rec[key] = round(pick(vals), 4)
        rec["passes"] = len(ok)
        rec["by_pass"] = {r.get("pass", i): r["median_ms"] for i, r in enumerate(ok)}
        merged.append(rec)
    return merged


def pass_ratios(a, b):
    """a's time ÷ b's, pass by pass where both were measured in the same passes (else the
    ratio of their medians): a list of one or more ratios."""
    pa, pb = a.get("by_pass"), b.get("by_pass")
    common = sorted(set(pa) & set(pb)) if pa and pb else []
    if common:
        return [pa[p] / pb[p] for p in common]
    return [a["median_ms"] / b["median_ms"]]


def _fmt(v):
    if v is None:
        return "-"
    return f"{v:,.3f}" if v < 1 else f"{v:,.2f}" if v < 100 else f"{v:,.0f}"


def tables(recs):
    lines = []
    by_wl = {}
    for r in recs:
        by_wl.setdefault(r["workload"], []).append(r)
    for wl, rs in by_wl.items():
        lines += [f"### {TITLES.get(wl, wl)}", ""]
        spore = next((r for r in rs if r["framework"] == "spore" and r["mode"] == "pynative"
                      and "error" not in r), None)
        lines.append("| system | mode | median ms | min | max | first call ms | check | "
                     "Spore PyNative ÷ this | other load |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for r in rs:
            if "error" in r:
                lines.append(f"| {r['framework']} | {r['mode']} | {r['error']} |||||||")
                continue
            ratio = _pair(spore, r) if spore else "-"
            med = _fmt(r["median_ms"])
            if wl == "W0" and "us_per_op" in r:
                med += f" ({r['us_per_op']} µs/op)"
            if wl == "import" and "numpy_ms" in r:
                med += f" (CPU {_fmt(r.get('cpu_ms'))}; whole process " \
                       f"{_fmt(r['process_ms'])}; `import numpy` alone {_fmt(r['numpy_ms'])})"
            check = f"{r['check']:.6g}" if "check" in r else "-"
            lines.append(f"| {r['framework']} | {r['mode']} | {med} | {_fmt(r['min_ms'])} | "
                         f"{_fmt(r['max_ms'])} | {_fmt(r.get('first_call_ms'))} | {check} | "
                         f"{ratio} | {r.get('other_load', '-')} |")
        lines.append("")
    return lines


def _fmt_ratio(x):
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"


def _pair(a, b):
    """The median same-pass ratio of a to b, with its range when there were passes."""
    rs = pass_ratios(a, b)
    text = _fmt_ratio(statistics.median(rs))
    if len(rs) > 1:
        text += f" ({_fmt_ratio(min(rs))}–{_fmt_ratio(max(rs))})"
    return text


# The ratios the issues set targets on: (label, (framework, mode), (framework, mode)).
TARGET_RATIOS = [
    ("PyNative ÷ PyTorch eager", ("spore", "pynative"), ("torch", "eager")),
    ("O0 ÷ PyNative", ("spore", "jit"), ("spore", "pynative")),
    ("O1 ÷ O0", ("spore", "jit_O1"), ("spore", "jit")),
    ("O0 ÷ jax.jit", ("spore", "jit"), ("jax", "jit")),
    ("O1 ÷ jax.jit", ("spore", "jit_O1"), ("jax", "jit")),
    ("O1 ÷ PyTorch eager", ("spore", "jit_O1"), ("torch", "eager")),
    ("O1 ÷ torch.compile", ("spore", "jit_O1"), ("torch", "compile")),
]


def target_ratios(recs):
    """Per workload, the ratios above: the median over passes of the ratio within a pass,
    and its smallest and largest (below 1 = the first system faster)."""
    by_wl = {}
    for r in recs:
        if "error" not in r and "median_ms" in r:
            by_wl.setdefault(r["workload"], {})[(r["framework"], r["mode"])] = r
    cols = [(label, a, b) for label, a, b in TARGET_RATIOS
            if any(a in d and b in d for d in by_wl.values())]
    if not cols:
        return []
    lines = ["### Ratios the issues target (median of same-pass ratios; range over passes)",
             "", "| workload | " + " | ".join(label for label, _, _ in cols) + " |",
             "|---|" + "---|" * len(cols)]
    for wl, d in by_wl.items():
        cells = [_pair(d[a], d[b]) if a in d and b in d else "-" for _, a, b in cols]
        if any(c != "-" for c in cells):
            lines.append(f"| {wl} | " + " | ".join(cells) + " |")
    return lines + [""]


def _find(rs, fw, mode):
    return next((r for r in rs if r["framework"] == fw and r["mode"] == mode), None)


def summary(recs):
    """One row per workload: Spore PyNative's median and its ratio to each reference."""
    head = "| workload | Spore PyNative ms | " + " | ".join(
        f"÷ {label}" for label, _, _ in SUMMARY_COLUMNS) + " |"
    lines = ["### Summary: Spore PyNative median ÷ each reference's median "
             "(below 1 = Spore faster)", "", head,
             "|---|---|" + "---|" * len(SUMMARY_COLUMNS)]
    by_wl = {}
    for r in recs:
        by_wl.setdefault(r["workload"], []).append(r)
    for wl, rs in by_wl.items():
        spore = _find(rs, "spore", "pynative")
        if spore is None or "error" in spore:
            continue
        cells = []
        for _, fw, mode in SUMMARY_COLUMNS:
            ref = _find(rs, fw, mode)
            cells.append(_pair(spore, ref) if ref and "error" not in ref else "-")
        lines.append(f"| {wl} | {_fmt(spore['median_ms'])} | " + " | ".join(cells) + " |")
    return lines + [""]


def compile_times(recs):
    """W6: first-call time (ms) of each compiled mode on the workloads that have one."""
    rows = [r for r in recs if r["workload"] in COMPILE_TIME_WORKLOADS
            and (r["framework"], r["mode"]) in COMPILED_MODES]
    if not rows:
        return []
    series = list(dict.fromkeys((r["framework"], r["mode"]) for r in rows))
    lines = ["### W6 compile time: first call of the compiled function (ms; includes the "
             "first step)", "", "| system | mode | " +
             " | ".join(COMPILE_TIME_WORKLOADS) + " |",
             "|---|---|" + "---|" * len(COMPILE_TIME_WORKLOADS)]
    for fw, mode in series:
        cells = []
        for wl in COMPILE_TIME_WORKLOADS:
            r = next((r for r in rows if r["workload"] == wl and r["framework"] == fw
                      and r["mode"] == mode), None)
            cells.append("-" if r is None else "not yet available" if "error" in r
                         else _fmt(r.get("first_call_ms")))
        lines.append(f"| {fw} | {mode} | " + " | ".join(cells) + " |")
    return lines + [""]


def first_steps(recs):
    """Spore PyNative's first step with Numba's disk cache empty (a new machine) and warm."""
    lines = []
    for wl in dict.fromkeys(r["workload"] for r in recs):
        cold = _find([r for r in recs if r["workload"] == wl], "spore", "pynative_cold")
        later = _find([r for r in recs if r["workload"] == wl], "spore", "pynative")
        warm = _find([r for r in recs if r["workload"] == wl], "spore", "pynative_warm") \
            or later
        if any(r is None or "error" in r for r in (cold, warm, later)):
            continue
        lines.append(f"| {wl} | {_fmt(cold.get('first_call_ms'))} | "
                     f"{_fmt(warm.get('first_call_ms'))} | {_fmt(later['median_ms'])} |")
    if not lines:
        return []
    return ["### First PyNative step: Numba cache empty (cold) and warm (ms)", "",
            "| workload | first step, cold | first step, warm | later steps (median) |",
            "|---|---|---|---|"] + lines + [""]


def _label(fw, mode):
    return "NumPy by hand" if fw == "numpy" else f"{fw} {mode}"


def plot(recs, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ok = [r for r in recs if "error" not in r]
    wls = list(dict.fromkeys(r["workload"] for r in ok))
    series = list(dict.fromkeys((r["framework"], r["mode"]) for r in ok))
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(wls)), 5))
    width = 0.8 / max(len(series), 1)
    for i, (fw, mode) in enumerate(series):
        xs, ys = [], []
        for j, wl in enumerate(wls):
            r = next((r for r in ok if r["workload"] == wl and r["framework"] == fw
                      and r["mode"] == mode), None)
            if r:
                xs.append(j + i * width)
                ys.append(r["median_ms"])
        ax.bar(xs, ys, width, label=_label(fw, mode))
    ax.set_yscale("log")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(wls))])
    ax.set_xticklabels(wls)
    ax.set_ylabel("median time per call (ms, log scale)")
    ax.set_title("Spore vs reference systems (lower is better)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_report(out_dir):
    out_dir = pathlib.Path(out_dir)
    raw = load(out_dir / "results.jsonl")
    recs = merge_passes(raw)
    notes = (out_dir / "notes.txt").read_text().strip() if (out_dir / "notes.txt").exists() \
        else ""
    passes = max((r.get("pass", 0) for r in raw), default=0) + 1
    lines = ["# Benchmark results", ""]
    if passes > 1:
        lines += [f"{passes} passes: each system's figures are the median (and extremes) over "
                  "the passes; ratios pair the measurements of one pass.", ""]
    lines += summary(recs) + target_ratios(recs) + tables(recs) + compile_times(recs) \
        + first_steps(recs)
    if notes:
        lines += ["Notes:", ""] + [f"* {n}" for n in notes.splitlines()] + [""]
    if plot(recs, out_dir / "plot.png"):
        lines += ["![times](plot.png)", ""]
    (out_dir / "report.md").write_text("\n".join(lines))


if __name__ == "__main__":
    write_report(sys.argv[1])
