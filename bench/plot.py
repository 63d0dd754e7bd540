#!/usr/bin/python3
"""Turns the Google Benchmark JSON of bench/run.sh into plots and tables.

    bench/plot.py bench/results docs/bench

Writes, per benchmark program, PNGs into the output folder (time vs size log-log with min-max
bars; Loom/handwritten ratio vs size with a line at 1; throughput vs size with the measured copy
bandwidth; fused-over-unfused speedup; the geometry comparison; transfers) and the summary
tables (Markdown) into <results>/summary.md, which bench/README.md quotes.

Benchmark names are workload/variant/size; a new bench program's results are picked up as they
are (time and throughput plots), and get ratio plots as soon as a `handwritten` variant exists.
"""
import json
import math
import pathlib
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LOOM_VARIANTS = ("loom_expr", "loom_contract", "loom_stmts", "loom_unfused", "loom", "loom_fused")
STYLE = {
    "loom_expr": ("tab:blue", "o", "Loom, one expression"),
    "loom_contract": ("tab:purple", "D", "Loom, one expression, fp_contract on"),
    "loom_stmts": ("tab:cyan", "s", "Loom, statements fused"),
    "loom_unfused": ("tab:red", "v", "Loom, fusion off"),
    "handwritten": ("black", "x", "handwritten (tuned geometry)"),
    "boost_compute": ("tab:green", "^", "Boost.Compute"),
    "copybuffer": ("tab:gray", "+", "device-to-device copy (clEnqueueCopyBuffer; cudaMemcpyAsync in bench_cuda)"),
    "interleaved": ("tab:orange", "*", "Loom, one expression, run by run with handwritten"),
    "interleaved_stmts": ("tab:brown", "P", "Loom, statements fused, run by run with handwritten"),
    "interleaved_contract": ("tab:pink", "d", "Loom, one expression, fp_contract on, run by run with handwritten"),
    # bench_random and bench_sort name Loom's one variant "loom"; bench_sort's host peers.
    "loom": ("tab:blue", "o", "Loom"),
    "std_sort": ("tab:olive", "s", "std::sort (host, one thread)"),
    "std_sort_par": ("tab:red", "v", "std::sort(std::execution::par) (host, TBB)"),
}
RUN_BY_RUN = ("interleaved", "interleaved_stmts", "interleaved_contract")
ROW_SUFFIX = {"interleaved": "", "interleaved_stmts": ", statements", "interleaved_contract": ", fp_contract on"}
UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def load(results):
    """{program: {(workload, variant, n): {median, min, max, counters..., label}}}, contexts, errors."""
    programs, contexts, errors = {}, {}, []
    for path in sorted(results.glob("bench_*.json")):
        try:
            data = json.loads(path.read_text())
        except (json.JSONDecodeError, OSError) as e:
            errors.append((path.name, f"unreadable: {e}"))
            continue
        contexts[path.stem] = data.get("context", {})
        recs = programs.setdefault(path.stem, {})
        for b in data.get("benchmarks", []):
            parts = b.get("run_name", b["name"]).split("/")
            if len(parts) < 2:
                continue
            n = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 0
            key = (parts[0], parts[1], n)
            if b.get("error_occurred"):
                errors.append((b["name"], b.get("error_message", "")))
                continue
            if b.get("run_type") != "aggregate":
                continue
            r = recs.setdefault(key, {})
            agg = b["aggregate_name"]
            r[agg] = b["real_time"] * UNIT[b.get("time_unit", "ns")]
            for counter in ("ratio", "device_ratio"):
                if agg in ("min", "max") and counter in b:
                    r[counter + "_" + agg] = b[counter]
            if agg == "median":
                skip = {"name", "run_name", "run_type", "aggregate_name", "aggregate_unit", "family_index",
                        "per_family_instance_index", "repetitions", "threads", "iterations", "real_time",
                        "cpu_time", "time_unit", "repetition_index"}
                for k, v in b.items():
                    if k not in skip:
                        r[k] = v
    return programs, contexts, errors


def series(recs, workload, variant, field="median"):
    pts = sorted((n, r[field]) for (w, v, n), r in recs.items() if w == workload and v == variant and field in r)
    return [p[0] for p in pts], [p[1] for p in pts]


def workloads_of(recs):
    seen = []
    for (w, _, _) in recs:
        if w not in seen:
            seen.append(w)
    return seen


def variants_of(recs, workload):
    seen = []
    for (w, v, _) in recs:
        if w == workload and v not in seen:
            seen.append(v)
    return seen


def style(variant):
    return STYLE.get(variant, (None, ".", variant))


def grid(count):
    cols = min(4, count)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def finish(fig, title, path):
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)
    # The PNGs are committed: a 64-colour palette keeps each a few tens of KB.
    try:
        from PIL import Image
        Image.open(path).convert("RGB").quantize(colors=64).save(path, optimize=True)
    except ImportError:
        pass
    print(f"wrote {path}")


def log2_label(n):
    return f"2^{int(round(math.log2(n)))}" if n > 0 else "-"


def plot_times(recs, name, device, out):
    ws = workloads_of(recs)
    fig, axes = grid(len(ws))
    for ax, w in zip(axes, ws):
        for v in variants_of(recs, w):
            xs, med = series(recs, w, v)
            _, lo = series(recs, w, v, "min")
            _, hi = series(recs, w, v, "max")
            if not xs or xs == [0]:
                continue
            color, marker, label = style(v)
            err = [[m - a for m, a in zip(med, lo)], [b - m for m, b in zip(med, hi)]] if len(lo) == len(med) == len(hi) else None
            ax.errorbar(xs, med, yerr=err, color=color, marker=marker, ms=3, lw=1, capsize=2, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("elements")
        ax.set_ylabel("time per run (us), median, min-max")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    finish(fig, f"{name}: time vs size on {device}", out / f"{name}_time.png")


# The two clocks a time is read from: host time after a finish (the manual time), and the
# kernels' own time from the device's profiling events (the device_us counter).
CLOCKS = {"host": ("median", "ratio"), "device": ("device_us", "device_ratio")}


def ratio(recs, w, v, n, base="handwritten", clock="host"):
    """Median time ratio v / base; for a run-by-run pair, the median of its repetitions' own ratios."""
    field, pair_ratio = CLOCKS[clock]
    if v in RUN_BY_RUN and base == "handwritten":
        return recs.get((w, v, n), {}).get(pair_ratio)
    a, b = recs.get((w, v, n)), recs.get((w, base, n))
    if a and b and a.get(field) and b.get(field):
        return a[field] / b[field]
    return None


def plot_ratios(recs, name, device, out, baseline="OpenCL", clock="host"):
    ws = [w for w in workloads_of(recs) if "handwritten" in variants_of(recs, w)
          and any(v in LOOM_VARIANTS or v == "boost_compute" for v in variants_of(recs, w))]
    if clock == "device":  # only where the program read the device's time (not bench_cuda)
        ws = [w for w in ws if any(r.get("device_us") for (ww, _, _), r in recs.items() if ww == w)]
    if not ws:
        return
    fig, axes = grid(len(ws))
    for ax, w in zip(axes, ws):
        for v in variants_of(recs, w):
            if v == "handwritten" or (v not in LOOM_VARIANTS and v != "boost_compute" and v not in RUN_BY_RUN):
                continue
            pts = [(n, ratio(recs, w, v, n, clock=clock)) for (ww, vv, n) in sorted(recs) if ww == w and vv == v]
            pts = [p for p in pts if p[1] is not None]
            if not pts:
                continue
            color, marker, label = style(v)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker=marker, ms=3, lw=1, label=label)
        ax.axhline(1.0, color="black", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("elements")
        ax.set_ylabel("time / tuned handwritten" if clock == "host" else "device time / tuned handwritten")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    if clock == "host":
        finish(fig, f"{name}: ratio to the tuned handwritten {baseline} kernel on {device} (1 = parity, below = faster)",
               out / f"{name}_ratio.png")
    else:
        finish(fig, f"{name}: kernel time from profiling events, ratio to the tuned handwritten {baseline} kernel "
               f"on {device} (1 = parity, below = faster)", out / f"{name}_device_ratio.png")


def copy_bandwidth(recs):
    """Per-size device copy bandwidth (best of clEnqueueCopyBuffer and the tuned copy kernel) and its peak."""
    per_n = {}
    for (w, v, n), r in recs.items():
        if w == "copy" and v in ("copybuffer", "handwritten") and "GB/s" in r:
            per_n[n] = max(per_n.get(n, 0), r["GB/s"] / 1e9 if r["GB/s"] > 1e6 else r["GB/s"])
    return per_n, (max(per_n.values()) if per_n else None)


def gbps(r):
    if "bytes" in r and r.get("median"):
        return r["bytes"] / (r["median"] * 1e-6) / 1e9
    return None


def plot_throughput(recs, name, device, out, copy_per_n, copy_peak):
    ws = [w for w in workloads_of(recs) if any("bytes" in r for (ww, _, _), r in recs.items() if ww == w)]
    if not ws:
        return
    fig, axes = grid(len(ws))
    for ax, w in zip(axes, ws):
        for v in variants_of(recs, w):
            pts = sorted((n, gbps(r)) for (ww, vv, n), r in recs.items() if ww == w and vv == v and gbps(r))
            if not pts:
                continue
            color, marker, label = style(v)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker=marker, ms=3, lw=1, label=label)
        if copy_per_n:
            xs = sorted(copy_per_n)
            ax.plot(xs, [copy_per_n[x] for x in xs], color="gray", ls="--", lw=1, label="device copy bandwidth")
        if copy_peak:
            ax.axhline(copy_peak, color="gray", ls=":", lw=1, label=f"peak copy {copy_peak:.1f} GB/s")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("elements")
        ax.set_ylabel("effective GB/s (least bytes moved)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    finish(fig, f"{name}: throughput vs size on {device}", out / f"{name}_throughput.png")


def plot_fusion(recs, name, device, out):
    ws = [w for w in workloads_of(recs) if {"loom_unfused", "loom_stmts"} <= set(variants_of(recs, w))]
    if not ws:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for w in ws:
        pts = [(n, ratio(recs, w, "loom_unfused", n, "loom_stmts")) for (ww, vv, n) in sorted(recs) if ww == w and vv == "loom_stmts"]
        pts = [p for p in pts if p[1]]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, lw=1, label=w)
    ax.axhline(1.0, color="black", lw=1)
    ax.axhline(2.5, color="gray", ls=":", lw=1, label="issue 4 target 2.5x")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("elements")
    ax.set_ylabel("fusion off time / statements fused time")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    finish(fig, f"{name}: speedup of fusion on {device}", out / f"{name}_fusion_speedup.png")


def plot_geometry(recs, name, device, out):
    bodies = workloads_of(recs)
    sizes = sorted({n for (_, _, n) in recs})
    fig, axes = plt.subplots(len(bodies), len(sizes), figsize=(3.6 * len(sizes), 3.4 * len(bodies)), squeeze=False)
    groups = ["wgNULL", "wg16", "wg64", "wg128", "wg256", "wg1024", "wg4096", "capped256"]
    for row, b in zip(axes, bodies):
        forms = []
        for v in variants_of(recs, b):
            f = v.rsplit("_", 1)[0]
            if v != "loom" and f not in forms:
                forms.append(f)
        for ax, n in zip(row, sizes):
            best = min((r["median"] for (w, v, nn), r in recs.items() if w == b and nn == n and "median" in r), default=None)
            if not best:
                ax.set_visible(False)
                continue
            for f in forms:
                pts = [(i, recs[(b, f + "_" + g, n)]["median"] / best) for i, g in enumerate(groups) if (b, f + "_" + g, n) in recs]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, lw=1, label=f)
            if (b, "loom", n) in recs:
                ax.axhline(recs[(b, "loom", n)]["median"] / best, color="tab:blue", ls="--", lw=1, label="Loom today")
            ax.set_xticks(range(len(groups)))
            ax.set_xticklabels([g.replace("wg", "") for g in groups], rotation=45, fontsize=7)
            ax.set_yscale("log")
            ax.set_title(f"{b} n={log2_label(n)}", fontsize=9)
            ax.set_ylabel("time / best")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6)
    finish(fig, f"launch geometry on {device}: work-group size (NULL = runtime's choice) per kernel form",
           out / f"{name}.png")


# ---- tables ---------------------------------------------------------------------------------------

def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def fmt_us(us):
    if us is None:
        return "-"
    if us >= 1e5:
        return f"{us / 1e3:.0f} ms"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    return f"{us:.1f} us"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def med(recs, w, v, n):
    r = recs.get((w, v, n))
    return r.get("median") if r else None


def interleaved_cell(recs, w, n, v="interleaved", counter="ratio"):
    r = recs.get((w, v, n))
    if not r or r.get(counter) is None:
        return "-"
    lo, hi = counter + "_min", counter + "_max"
    spread = f" ({fmt(r[lo])}-{fmt(r[hi])})" if lo in r and hi in r else ""
    return fmt(r[counter]) + spread


def inverse_cell(recs, w, n):
    """interleaved_cell for targets written handwritten / Loom."""
    r = recs.get((w, "interleaved", n))
    if not r or not r.get("ratio"):
        return "-"
    spread = (f" ({fmt(1 / r['ratio_max'])}-{fmt(1 / r['ratio_min'])})"
              if r.get("ratio_min") and r.get("ratio_max") else "")
    return fmt(1 / r["ratio"]) + spread


def elementwise_tables(recs, copy_peak, baseline="OpenCL"):
    out = []
    ws = workloads_of(recs)
    sizes = sorted({n for (_, _, n) in recs})
    shown = [n for n in sizes if int(round(math.log2(n))) % 4 == 0 or n == sizes[-1]] if sizes else []
    rows = [[w + ROW_SUFFIX[v]] + [interleaved_cell(recs, w, n, v) for n in shown]
            for w in ws for v in RUN_BY_RUN if v in variants_of(recs, w)]
    if rows:
        out.append(f"**Loom, one expression / tuned handwritten {baseline}, run by run** (`interleaved`: the two alternate "
                   "run by run; median of the 10 repetitions' ratios, their min-max in parentheses; 1.00 = parity, "
                   "< 1 = faster; rows marked statements pair Loom's separate statements fused, "
                   "`interleaved_stmts`; rows marked fp_contract on pair Loom's expression with the rounding the "
                   "handwritten kernel has, OpenCL's default FP_CONTRACT ON, `interleaved_contract`)\n\n" + table(["workload"] + [log2_label(n) for n in shown], rows))
    for v, title in (("loom_expr", "Loom, one expression"),
                     ("loom_contract", "Loom, one expression with fp_contract on"),
                     ("loom_stmts", "Loom, separate statements fused"),
                     ("loom_unfused", "Loom, fusion off"), ("boost_compute", "Boost.Compute")):
        rows = []
        for w in ws:
            if v not in variants_of(recs, w):
                continue
            rows.append([w] + [fmt(ratio(recs, w, v, n)) for n in shown])
        if rows:
            out.append(f"**{title} / tuned handwritten {baseline}** (median time ratio, each variant timed on its own; "
                       "1.00 = parity, < 1 = faster)\n\n" +
                       table(["workload"] + [log2_label(n) for n in shown], rows))
    rows = [[w + ROW_SUFFIX[v]] +
            [interleaved_cell(recs, w, n, v, "device_ratio") for n in shown]
            for w in ws for v in RUN_BY_RUN if v in variants_of(recs, w)]
    rows = [r for r in rows if any(c != "-" for c in r[1:])]
    if rows:
        out.append(f"**Kernel time from the device's profiling events: Loom / tuned handwritten {baseline}, run by run** "
                   "(`device_ratio` of the same pairs: the kernels alone, without host work or launch latency; "
                   "median of the repetitions' ratios, min-max)\n\n" +
                   table(["workload"] + [log2_label(n) for n in shown], rows))
    rows = [[w + {"loom_expr": "", "loom_stmts": ", statements"}[v]] +
            [fmt(ratio(recs, w, v, n, clock="device")) for n in shown]
            for w in ws for v in ("loom_expr", "loom_stmts") if v in variants_of(recs, w)
            and any(ratio(recs, w, v, n, clock="device") for n in shown)]
    if rows:
        out.append(f"**Kernel time from profiling events, each variant timed on its own: Loom / tuned handwritten "
                   f"{baseline}** (median `device_us` over median `device_us`)\n\n" +
                   table(["workload"] + [log2_label(n) for n in shown], rows))
    rows = []
    for w in ws:
        if {"loom_unfused", "loom_stmts"} <= set(variants_of(recs, w)):
            rows.append([w] + [fmt(ratio(recs, w, "loom_unfused", n, "loom_stmts")) for n in shown])
    if rows:
        out.append("**Fused over unfused speedup** (fusion-off time / statements-fused time)\n\n" +
                   table(["workload"] + [log2_label(n) for n in shown], rows))
    top = max((n for n in sizes if n <= 1 << 24), default=None)
    if top:
        rows = []
        for w in ws:
            row = [w]
            for v in ("loom_expr", "loom_contract", "loom_stmts", "handwritten", "boost_compute"):
                r = recs.get((w, v, top))
                g = gbps(r) if r else None
                row.append("-" if g is None else f"{g:.1f} ({g / copy_peak:.0%})" if copy_peak else f"{g:.1f}")
            iv = recs.get((w, "interleaved", top))
            for g in ((gbps(iv), iv["bytes"] / (iv["handwritten_us"] * 1e-6) / 1e9)
                      if iv and iv.get("handwritten_us") and gbps(iv) else (None, None)):
                row.append("-" if g is None else f"{g:.1f} ({g / copy_peak:.0%})" if copy_peak else f"{g:.1f}")
            hw = recs.get((w, "handwritten", top))
            row.append(hw.get("label", "").split("->")[-1].strip() if hw else "-")
            rows.append(row)
        out.append(f"**Effective GB/s at n = {log2_label(top)}** (least bytes moved / median time; in parentheses the "
                   f"fraction of the peak measured copy bandwidth, {fmt(copy_peak, 1)} GB/s)\n\n" +
                   table(["workload", "Loom expr", "Loom fp_contract", "Loom stmts", "handwritten", "Boost.Compute",
                          "Loom expr, run by run", "handwritten, run by run", "tuned wg"], rows))
    return out


def dispatch_table(recs):
    rows = []
    for w in workloads_of(recs):
        for v in variants_of(recs, w):
            r = recs[(w, v, 1024)] if (w, v, 1024) in recs else None
            if not r:
                continue
            per = r.get("us_per_statement", r.get("median"))
            rows.append([w, v, fmt_us(r.get("median")), fmt_us(r.get("min")), fmt_us(r.get("max")), fmt_us(per),
                         fmt(r.get("kernels_per_batch"), 0) if "kernels_per_batch" in r else "-"])
    return table(["benchmark", "variant", "median / iteration", "min", "max", "per statement", "kernels"], rows)


def loop_table(recs):
    rows = []
    for (w, v, n), r in sorted(recs.items()):
        it = r.get("loop_iterations") or 1
        rows.append([w, v, fmt_us(r.get("median")), fmt_us(r.get("min")), fmt_us(r.get("max")),
                     fmt_us(r["median"] / it) if r.get("median") else "-", fmt(r.get("loop_iterations"), 0),
                     fmt(r.get("kernels_per_iteration"), 2), fmt(r.get("host_syncs_per_iteration"), 3)])
    return table(["benchmark", "variant", "median", "min", "max", "per iteration", "iterations", "kernels / iteration",
                  "host syncs / iteration"], rows)


def phases_tables(recs):
    rows, trows = [], []
    for (w, v, n), r in sorted(recs.items()):
        if w.startswith("first_call") or w.startswith("second_call"):
            rows.append([f"{w}/{v}", fmt_us(r.get("median")), fmt_us(r.get("min")), fmt_us(r.get("max")),
                         fmt(r.get("compile_ms"), 0), fmt(r.get("context_ms"), 0), fmt(r.get("process_ms"), 0),
                         fmt(r.get("disk_hits"), 0), r.get("label", "")])
    sizes = sorted({n for (w, _, n) in recs if w.startswith("transfer")})
    for w in [w for w in workloads_of(recs) if w.startswith("transfer")]:
        for v in variants_of(recs, w):
            trows.append([w, v] + [fmt(gbps(recs[(w, v, n)]) if (w, v, n) in recs else None) for n in sizes])
    out = []
    if rows:
        out.append(table(["phase (n = 1024, y = a*x + y)", "median", "min", "max", "compile ms (log)", "context ms",
                          "process ms", "disk hits", "note"], rows))
    if trows:
        out.append("**Transfers, GB/s**\n\n" + table(["direction", "variant"] + [log2_label(n) for n in sizes], trows))
    return out


def geometry_table(recs):
    rows = []
    for b in workloads_of(recs):
        for n in sorted({n for (w, _, n) in recs if w == b}):
            cands = {v: r["median"] for (w, v, nn), r in recs.items() if w == b and nn == n and "median" in r}
            if not cands:
                continue
            best_v = min(cands, key=cands.get)
            best = cands[best_v]
            forms = sorted({v.rsplit("_", 1)[0] for v in cands if v != "loom"})
            cells = []
            for f in ["loom"] + forms:
                if f == "loom":
                    cells.append(fmt(cands.get("loom", math.nan) / best))
                    continue
                mine = {v: t for v, t in cands.items() if v.rsplit("_", 1)[0] == f}
                fb = min(mine, key=mine.get)
                null = mine.get(f + "_wgNULL")
                cells.append(f"{fmt(null / best if null else None)} / {fmt(mine[fb] / best)} ({fb.rsplit('_', 1)[1]})")
            rows.append([b, log2_label(n), fmt_us(best), best_v] + cells)
        header_forms = sorted({v.rsplit("_", 1)[0] for (w, v, _) in recs if w == b and v != "loom"})
    if not rows:
        return ""
    return ("Each cell: time at NULL / time at the form's best work-group size (that size), both relative to the "
            "fastest variant of the row (1.00 = fastest).\n\n" +
            table(["kernel", "n", "fastest", "fastest variant", "Loom today"] + header_forms, rows))


def issue_targets(programs, results):
    ew = programs.get("bench_elementwise", {})
    dp = programs.get("bench_dispatch", {})
    ph = programs.get("bench_phases", {})
    n24 = 1 << 24
    rows = []

    def add(issue, what, value, target, ok):
        rows.append([issue, what, value, target, "-" if ok is None else ("yes" if ok else "**no**")])

    r = ratio(ew, "saxpy", "loom_expr", n24)
    add("2", "saxpy 2^24: Loom / best handwritten", fmt(r), "<= 1.05", None if r is None else r <= 1.05)
    r = ratio(ew, "saxpy", "interleaved", n24)
    add("2", "saxpy 2^24: Loom / best handwritten, run by run (interleaved)", interleaved_cell(ew, "saxpy", n24),
        "<= 1.05", None if r is None else r <= 1.05)
    lo, hw = med(dp, "dispatch_sync", "loom", 1024), med(dp, "dispatch_sync", "handwritten", 1024)
    r = lo / hw if lo and hw else None
    add("2", f"dispatch, 1 cached statement + finish, n=1024: Loom {fmt_us(lo)} / handwritten {fmt_us(hw)}", fmt(r),
        "<= 1.2", None if r is None else r <= 1.2)
    lo, hw = med(dp, "dispatch_enqueue", "loom", 1024), med(dp, "dispatch_enqueue", "handwritten", 1024)
    r = lo / hw if lo and hw else None
    add("2", f"dispatch, host side only (record+flush vs setArg+enqueue): Loom {fmt_us(lo)} / handwritten {fmt_us(hw)}",
        fmt(r), "(<= 1.2)", None if r is None else r <= 1.2)
    fc = med(ph, "first_call", "loom_cold", 1024)
    hc = med(ph, "first_call", "handwritten_cold", 1024)
    add("2", f"first call, empty caches (POCL_KERNEL_CACHE=0); handwritten build+launch {fmt_us(hc)}", fmt_us(fc), "-", None)
    bt = results / "build_time.json"
    if bt.exists():
        b = json.loads(bt.read_text())
        add("2", f"test suite build from scratch, {b['jobs']} cores (commit {b['commit']})",
            f"{b['build_s']:.0f} s (+ configure {b['configure_s']:.0f} s)", "-", None)
    for w in ("issue4_chain4", "issue4_chain8"):
        st, ex, un = med(ew, w, "loom_stmts", n24), med(ew, w, "loom_expr", n24), med(ew, w, "loom_unfused", n24)
        r = st / ex if st and ex else None
        add("4", f"{w} 2^24: statements fused / one expression", fmt(r), "<= 1.1", None if r is None else r <= 1.1)
        rs, re = ratio(ew, w, "interleaved_stmts", n24), ratio(ew, w, "interleaved", n24)
        r = rs / re if rs and re else None
        add("4", f"{w} 2^24: statements fused / one expression, run by run (each against the handwritten kernel: "
            f"{fmt(rs)} / {fmt(re)})", fmt(r), "<= 1.1", None if r is None else r <= 1.1)
        r = un / st if st and un else None
        add("4", f"{w} 2^24: fusion off / fused (speedup)", fmt(r), ">= 2.5", None if r is None else r >= 2.5)
    f = dp.get(("dispatch_chain4_sync", "loom_fused", 1024), {}).get("us_per_statement")
    u = dp.get(("dispatch_chain4_sync", "loom_unfused", 1024), {}).get("us_per_statement")
    r = f / u if f and u else None
    add("4", f"chain4 n=1024 dispatch + finish per statement: fused {fmt_us(f)} / unfused {fmt_us(u)}", fmt(r), "<= 1.2",
        None if r is None else r <= 1.2)
    f = dp.get(("dispatch_chain4_enqueue", "loom_fused", 1024), {}).get("us_per_statement")
    u = dp.get(("dispatch_chain4_enqueue", "loom_unfused", 1024), {}).get("us_per_statement")
    r = f / u if f and u else None
    add("4", f"chain4 n=1024 host side per statement: fused {fmt_us(f)} / unfused {fmt_us(u)}", fmt(r), "<= 1.2",
        None if r is None else r <= 1.2)
    rd = programs.get("bench_reduce", {})
    lo, hw, bc = med(rd, "dot", "loom_expr", n24), med(rd, "dot", "handwritten", n24), med(rd, "dot", "boost_compute", n24)
    r = hw / lo if lo and hw else None
    add("5", f"dot 2^24: handwritten two-stage / Loom (Loom {fmt_us(lo)}, handwritten {fmt_us(hw)})", fmt(r), ">= 0.9",
        None if r is None else r >= 0.9)
    r = ratio(rd, "dot", "interleaved", n24)
    add("5", "dot 2^24: handwritten / Loom, run by run (interleaved)", inverse_cell(rd, "dot", n24), ">= 0.9",
        None if r is None else 1 / r >= 0.9)
    r = bc / lo if lo and bc else None
    add("5", f"dot 2^24: Boost.Compute inner_product / Loom (Boost.Compute {fmt_us(bc)})", fmt(r), "> 1",
        None if r is None else r > 1)
    sc = programs.get("bench_scan", {})
    for w in ("inclusive_scan", "exclusive_scan"):
        lo, hw = med(sc, w, "loom_expr", n24), med(sc, w, "handwritten", n24)
        r = hw / lo if lo and hw else None
        add("5", f"{w} 2^24: handwritten / Loom (Loom {fmt_us(lo)}, handwritten {fmt_us(hw)})", fmt(r),
            ">= 0.8" if w == "inclusive_scan" else "-", None if r is None or w != "inclusive_scan" else r >= 0.8)
        r = ratio(sc, w, "interleaved", n24)
        add("5", f"{w} 2^24: handwritten / Loom, run by run (interleaved)", inverse_cell(sc, w, n24),
            ">= 0.8" if w == "inclusive_scan" else "-", None if r is None or w != "inclusive_scan" else 1 / r >= 0.8)
    lp = programs.get("bench_loop", {})
    dev, host = lp.get(("stencil_loop", "device_loop", 4096)), lp.get(("stencil_loop", "host_loop", 4096))
    if dev and host:
        r = host["median"] / dev["median"]
        add("5", f"stencil loop, n=2^12, 1000 iterations: host-driven {fmt_us(host['median'])} / device "
            f"{fmt_us(dev['median'])}", fmt(r), ">= 2", r >= 2)
        syncs = dev.get("host_syncs_per_iteration")
        add("5", "stencil loop on the device: host synchronisations per iteration (counted)"
            + ("" if syncs is not None else " (counter not available in this build)"),
            fmt(syncs, 3), "0 (one per check_every at most)", None)
        hs = host.get("host_syncs_per_iteration")
        if hs is not None:
            add("5", "stencil loop driven from the host: host synchronisations per iteration", fmt(hs, 3), "-", None)
    issue19_targets(programs, add)
    return table(["issue", "measure", "value", "target", "met"], rows)


def issue19_targets(programs, add):
    """Issue 19: element-wise kernels at the speed of the fastest handwritten shape (the baselines are
    tuned over shapes: per element and a chunk per work-item), never slower than Boost.Compute;
    stencils within 1.1x; the ten-iteration stream within 1.1x of the fused handwritten kernel."""
    ew = programs.get("bench_elementwise", {})
    st = programs.get("bench_stencil", {})
    ph = programs.get("bench_phases", {})
    worst, worst_at, slower_than_boost = 0.0, "", []
    for w in ("copy", "scale", "saxpy", "triad", "chain1", "chain2", "chain4", "chain8", "transcendental",
              "blackscholes"):
        for log2 in (20, 24, 26):
            n = 1 << log2
            r = ratio(ew, w, "interleaved", n)
            if r is None:
                continue
            if r > worst:
                worst, worst_at = r, f"{w} 2^{log2}"
            lo, bc = med(ew, w, "loom_expr", n), med(ew, w, "boost_compute", n)
            if lo and bc and lo > bc:
                slower_than_boost.append(f"{w} 2^{log2} ({fmt(lo / bc)})")
    if worst_at:
        add("19", f"element-wise at 2^20, 2^24, 2^26, run by run: the worst Loom / fastest handwritten shape ({worst_at})",
            fmt(worst), "<= 1.05", worst <= 1.05)
    worst_c, worst_c_at = 0.0, ""
    for w in ("copy", "scale", "saxpy", "triad", "chain1", "chain2", "chain4", "chain8", "transcendental",
              "blackscholes"):
        for log2 in (20, 24, 26):
            v = "interleaved_contract" if (w, "interleaved_contract", 1 << log2) in ew else "interleaved"
            r = ratio(ew, w, v, 1 << log2)
            if r is not None and r > worst_c:
                worst_c, worst_c_at = r, f"{w} 2^{log2}"
    if worst_c_at:
        add("19", "the same with the handwritten kernels' rounding (fp_contract on where they multiply-add), worst "
            f"({worst_c_at})", fmt(worst_c), "<= 1.05", worst_c <= 1.05)
        add("19", "element-wise: cells where Loom (one expression) is slower than Boost.Compute",
            ", ".join(slower_than_boost) if slower_than_boost else "none", "none", not slower_than_boost)
    for w in ("stencil1d_3pt", "stencil2d_5pt"):
        sizes = sorted({n for (ww, v, n) in st if ww == w and v == "interleaved"})
        if sizes:
            n = sizes[-1]
            r = ratio(st, w, "interleaved", n)
            add("19", f"{w} 2^{n.bit_length() - 1}: Loom / fastest handwritten shape, run by run",
                interleaved_cell(st, w, n), "<= 1.1", None if r is None else r <= 1.1)
    n24 = 1 << 24
    one, each, hw = (med(ew, "issue19_stream", v, n24) for v in ("loom_stmts", "loom_finish_each", "handwritten"))
    if one and hw:
        add("19", f"ten-iteration stream 2^24, one finish: Loom {fmt_us(one)} / fused handwritten x10 {fmt_us(hw)}",
            fmt(one / hw), "<= 1.1", one / hw <= 1.1)
    if one and each:
        add("19", f"the same stream: one finish {fmt_us(one)} / a finish per iteration {fmt_us(each)}", fmt(one / each),
            "<= 1", one / each <= 1)
    together = med(ph, "first_call_20_kernels", "loom_cold", 1024)
    serial = med(ph, "first_call_20_kernels", "loom_cold_one_compile_thread", 1024)
    if together and serial:
        add("19", f"first run of one flush of 20 new kernels: compiled together / one at a time ({fmt_us(serial)})",
            fmt_us(together), "-", None)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py <results dir> <output dir for PNGs>")
    results, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    programs, contexts, errors = load(results)
    if not programs:
        sys.exit(f"plot.py: no bench_*.json in {results}")
    ctx = next(iter(contexts.values()))
    device = ctx.get("device", "?")
    copy_per_n, copy_peak = copy_bandwidth(programs.get("bench_elementwise", {}))

    md = [f"Device: **{device}** ({ctx.get('opencl_platform', '?')}; driver {ctx.get('driver', '?')}), "
          f"{ctx.get('num_cpus', '?')} host CPUs; compiler {ctx.get('compiler', '?')}; Loom {ctx.get('loom_version', '?')} "
          f"at commit {ctx.get('loom_commit', '?')}; run {ctx.get('date', '?')}; command `{ctx.get('command', '?')}`.",
          "### Issue targets\n\n" + issue_targets(programs, results)]
    for name, recs in programs.items():
        if name == "bench_geometry":
            plot_geometry(recs, "geometry", device, out)
            md.append("### Launch geometry (bench_geometry)\n\n" + geometry_table(recs))
            continue
        if name == "bench_phases":
            phase_recs = {k: v for k, v in recs.items() if k[0].startswith("transfer")}
            if phase_recs:
                plot_throughput(phase_recs, "transfers", device, out, None, None)
            md.append("### Phases (bench_phases)\n\n" + "\n\n".join(phases_tables(recs)))
            continue
        if name == "bench_dispatch":
            md.append("### Dispatch (bench_dispatch)\n\n" + dispatch_table(recs))
            continue
        short = name.replace("bench_", "")
        own_device, own_copy, own_peak, heading = device, copy_per_n, copy_peak, f"### {short} ({name})"
        baseline = "OpenCL"
        if name == "bench_cuda":  # its own GPU, against its own device-to-device copy
            c = contexts.get(name, {})
            own_device = c.get("device", "?")
            own_copy, own_peak = copy_bandwidth(recs)
            baseline = "CUDA"
            heading = (f"### CUDA: Loom's CUDA backend / handwritten CUDA ({name}) on **{own_device}** "
                       f"({c.get('cuda', '?')}; {c.get('compute_units', '?')} multiprocessors; run {c.get('date', '?')} "
                       f"at commit {c.get('loom_commit', '?')})")
        plot_times(recs, short, own_device, out)
        plot_ratios(recs, short, own_device, out, baseline)
        plot_ratios(recs, short, own_device, out, baseline, clock="device")
        plot_throughput(recs, short, own_device, out, own_copy, own_peak)
        plot_fusion(recs, short, own_device, out)
        if name == "bench_loop":
            md.append("### Device loop vs host loop (bench_loop)\n\n" + loop_table(recs))
        elif any(v == "handwritten" for (_, v, _) in recs):
            md.append(heading + "\n\n" + "\n\n".join(elementwise_tables(recs, own_peak, baseline)))
    if errors:
        md.append("### Errors\n\n" + "\n".join(f"- `{n}`: {m}" for n, m in errors))
    (results / "summary.md").write_text("\n\n".join(md) + "\n")
    print(f"wrote {results / 'summary.md'}")


if __name__ == "__main__":
    main()
