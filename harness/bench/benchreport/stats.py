# SPDX-License-Identifier: GPL-2.0
"""Statistics: Welch's t-test (with its own incomplete beta function,
standard library only), medians, and the aggregation of parsed runs into
result rows, comparisons and the breakdown of the enable."""

import collections
import math
import statistics

from .lines import (BACKEND_OF, COMPARISONS, CONFIDENCE, ENABLE_INSTRUMENT,
    ENABLE_INSTRUMENT_OF, FLOOR_INSTRUMENT, HOTPLUG, HOTPLUG_COMPARISONS, INIT_OF, METRICS,
    NVDIMM_PHASES, ONLINE_FUNC, PROBE_FUNCS, PROBE_FUNCS_OF, MULTI, RUNS, ReportError, BUSY,
    BUSY_COMPARISONS, THREADED, THREAD_COMPARISONS, hotplug_run)


def _betacf(a, b, x):
    """Continued fraction of the regularized incomplete beta (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-14:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p, df):
    """The t with P(T <= t) = p (p > 0.5), by bisection."""
    target = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def welch(a, b, confidence=CONFIDENCE):
    """Welch's t-test of mean(a) - mean(b); percentages of mean(b)."""
    na, nb = len(a), len(b)
    out = {"test": "welch_t", "confidence": confidence, "n": [na, nb]}
    if na < 2 or nb < 2:
        out.update(significant=None, verdict="too few samples for a test")
        return out
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    va, vb = statistics.variance(a), statistics.variance(b)
    diff = ma - mb
    se2 = va / na + vb / nb
    out.update(mean=[ma, mb])
    if se2 == 0.0:
        half, df, p = 0.0, float(na + nb - 2), (1.0 if diff == 0 else 0.0)
    else:
        df = se2 * se2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
        half = t_quantile(1.0 - (1.0 - confidence) / 2.0, df) * math.sqrt(se2)
        p = t_two_sided_p(diff / math.sqrt(se2), df)
    significant = abs(diff) > half
    pct = 100.0 * diff / mb if mb else None
    half_pct = 100.0 * half / mb if mb else None
    out.update(df=round(df, 2), p=p, diff_ns=diff, ci_half_ns=half,
               diff_pct=pct, ci_half_pct=half_pct, significant=significant)
    if not significant:
        out["verdict"] = f"no difference proven at {confidence * 100:.0f}%"
    elif pct is None:
        out["verdict"] = f"{diff / 1e6:+.3f} ms +- {half / 1e6:.3f} ms"
    else:
        out["verdict"] = f"{pct:+.1f}% +- {half_pct:.1f}%"
    return out


def median_int(values):
    return int(math.floor(statistics.median(values) + 0.5))


def probe_ns(device, bind):
    """The kernel's part of one bind (PROBE_FUNCS), None without phases."""
    ph = bind.get("phases")
    if ph is None:
        return None
    tops = PROBE_FUNCS_OF.get(device, PROBE_FUNCS)
    return sum(ns for pth, (_, ns) in ph.items() if pth in tops)


def probe_instrument(device):
    tops = PROBE_FUNCS_OF.get(device, PROBE_FUNCS)
    return "function_graph on the outermost " + " and ".join(f"{f}()" for f in tops)


def row(device, size_mb, backend, metric, instrument, first, rest, nr_pages, threads=1):
    r = {"device": device, "size_bytes": size_mb << 20, "backend": backend, "metric": metric,
         "instrument": instrument, "first": first, "median": median_int(rest),
         "min": min(rest), "max": max(rest), "n": len(rest), "samples": rest,
         "nr_pages": nr_pages, "threads": threads}
    if metric == "memmap_init_ns" and nr_pages:
        r["ns_per_page"] = round(r["median"] / nr_pages, 3)
    return r


def common_threads(binds):
    """The most common thread count of the binds (the larger on a tie)."""
    counts = collections.Counter(b["threads"] for b in binds.values())
    return max(counts, key=lambda t: (counts[t], t))


def run_labels(labels):
    """The run labels present, in the table's order."""
    return [b for b in RUNS if b in labels]


def single_comparisons(devices, labels):
    """The one-thread comparisons of a run of these devices with these run
    labels: a memory hotplug run's (without FIRST when its kernel was not
    built apart), else the first series' against base."""
    comps = HOTPLUG_COMPARISONS if hotplug_run(devices) else COMPARISONS
    return [(a, b) for a, b in comps if a in labels and b in labels]


def single_patched(labels):
    """The patched runs on one thread that the floor must bound (not the
    busy host's)."""
    return [b for b in labels if BACKEND_OF.get(b, b) != "base" and b not in MULTI
            and b not in BUSY.values()]


def aggregate(runs, sizes, devices, rebinds):
    """runs: {(run label, size_mb): (binds, floors, info)}."""
    results, comparisons, crosscheck, floors, speedups = [], [], [], [], []
    labels = run_labels({b for b, _ in runs})
    threaded = [b for b in labels if b in THREADED]
    busy = [b for b in labels if b in BUSY]
    single = single_comparisons(devices, labels)
    for size in sizes:
        for d in devices:
            enable_instr = ENABLE_INSTRUMENT_OF.get(d, ENABLE_INSTRUMENT)
            for b in labels:
                binds = runs[b, size][0][d]
                pages = binds[1]["nr_pages"]
                threads = common_threads(binds) if b in MULTI else 1
                for metric in METRICS + (["online_ns"] if d in HOTPLUG else []):
                    instr = {"memmap_init_ns": runs[b, size][2].get("instrument"),
                             "online_ns": runs[b, size][2].get("hotplug_instrument")
                             }.get(metric, enable_instr)
                    rest = [binds[k][metric] for k in range(1, rebinds + 1)]
                    r = row(d, size, b, metric, instr, binds[0][metric], rest, pages, threads)
                    # A hot-add's rows name the function timed.
                    if d in HOTPLUG and metric != "enable_ns":
                        r["function"] = INIT_OF[d] if metric == "memmap_init_ns" else ONLINE_FUNC
                    results.append(r)
                probes = [probe_ns(d, binds[k]) for k in range(rebinds + 1)]
                if None not in probes:
                    results.append(row(d, size, b, "probe_ns", probe_instrument(d), probes[0],
                                       probes[1:], pages, threads))
            # The floor: the template boot's (the guest running the path it bounds).
            src = "template"
            fl = runs[src, size][1][d]
            rest = [fl["run"][k] for k in range(1, rebinds + 1)]
            fr = row(d, size, "floor", "memmap_init_ns", FLOOR_INSTRUMENT, fl["run"][0], rest,
                     fl["nr_pages"])
            fr["candidate"] = fl["cand"]
            fr["bytes"] = fl["bytes"]
            results.append(fr)
            by_boot = {}
            for b in labels:
                f2 = runs[b, size][1][d]
                by_boot[b] = {"fastest": f2["cand"],
                              "run_median": median_int([f2["run"][k] for k in
                                                        range(1, rebinds + 1)]),
                              "pick_min": {c: min(v) for c, v in sorted(f2["pick"].items())}}
            above = [b for b in single_patched(labels)
                     if fr["median"] > find(results, d, size, b, "memmap_init_ns")["median"]]
            floors.append({"device": d, "size_bytes": size << 20, "from": src,
                           "candidate": fl["cand"], "bytes": fl["bytes"],
                           "slower_than": above, "by_boot": by_boot})
            for a, b in (single + (THREAD_COMPARISONS if threaded else [])
                         + (BUSY_COMPARISONS if busy else [])):
                ra = find(results, d, size, a, "memmap_init_ns")
                rb = find(results, d, size, b, "memmap_init_ns")
                c = {"device": d, "size_bytes": size << 20, "metric": "memmap_init_ns",
                     "a": a, "b": b, "instrument": ra["instrument"]}
                if ra["instrument"] != rb["instrument"]:
                    raise ReportError(f"{d}: {a} and {b} were timed by different instruments "
                                      f"({ra['instrument']} vs {rb['instrument']})")
                c.update(welch(ra["samples"], rb["samples"]))
                comparisons.append(c)
            # A hot-add's onlining and whole command, compared as its memmap
            # init is (a memory hotplug run has one thread alone).
            if d in HOTPLUG:
                for a, b in single:
                    for metric in ("online_ns", "enable_ns"):
                        ra = find(results, d, size, a, metric)
                        rb = find(results, d, size, b, metric)
                        c = {"device": d, "size_bytes": size << 20, "metric": metric,
                             "a": a, "b": b, "instrument": ra["instrument"]}
                        c.update(welch(ra["samples"], rb["samples"]))
                        comparisons.append(c)
            for b in threaded + busy:
                b1 = THREADED.get(b) or BUSY[b]
                one = find(results, d, size, b1, "memmap_init_ns")
                many = find(results, d, size, b, "memmap_init_ns")
                speedups.append({"device": d, "size_bytes": size << 20, "metric": "memmap_init_ns",
                                 "a": b, "b": b1, "threads": many["threads"],
                                 "ratio": (round(one["median"] / many["median"], 4)
                                           if many["median"] else None)})
            for b in labels:
                if BACKEND_OF.get(b, b) == "base":
                    continue
                binds = runs[b, size][0][d]
                diffs = [(x["memmap_init_ns"] - x["tp_ns"], x["tp_ns"])
                         for x in binds.values() if x["tp_ns"] is not None]
                if not diffs:
                    continue
                crosscheck.append({
                    "device": d, "size_bytes": size << 20, "backend": b, "n": len(diffs),
                    "median_diff_ns": median_int([x for x, _ in diffs]),
                    "median_diff_pct": round(statistics.median(100.0 * x / t for x, t in diffs if t), 4)
                    if any(t for _, t in diffs) else None,
                    "max_abs_diff_ns": max(abs(x) for x, _ in diffs),
                    "max_abs_diff_pct": round(max(100.0 * abs(x) / t for x, t in diffs if t), 4)
                    if any(t for _, t in diffs) else None})
    return results, comparisons, crosscheck, floors, speedups


def breakdown(runs, sizes, devices, rebinds):
    """Where the enable goes, per size, device and run (see the header)."""
    out = []
    labels = run_labels({b for b, _ in runs})
    for size in sizes:
        for d in devices:
            for b in labels:
                binds = runs[b, size][0][d]
                rest = [binds[k] for k in range(1, rebinds + 1)]
                if any(x.get("phases") is None for x in rest):
                    continue
                order = []
                for x in [binds[0]] + rest:
                    for pth in x.get("phases") or {}:
                        if pth not in order:
                            order.append(pth)
                enable = median_int([x["enable_ns"] for x in rest])
                phases = []
                for pth in order:
                    med = median_int([x["phases"].get(pth, (0, 0))[1] for x in rest])
                    calls = statistics.median([x["phases"].get(pth, (0, 0))[0] for x in rest])
                    first = (binds[0].get("phases") or {}).get(pth, (0, 0))[1]
                    phases.append({"path": pth, "median_ns": med, "first_ns": first,
                                   "calls": calls,
                                   "share": round(med / enable, 4) if enable else None,
                                   "nvdimm": pth.split("/")[-1] in NVDIMM_PHASES})
                lists = [x["ndctl_list_ns"] for x in rest if x.get("ndctl_list_ns") is not None]
                out.append({"device": d, "size_bytes": size << 20, "run": b,
                            "threads": common_threads(binds) if b in MULTI else 1,
                            "ndctl_list_median_ns": (median_int(lists) if len(lists) == len(rest)
                                                     else None),
                            "enable_median_ns": enable,
                            "enable_first_ns": binds[0]["enable_ns"], "phases": phases})
    return out


def hotplug(runs, sizes, devices, rebinds):
    """Where a hot-add's command goes, per size, hot-added device and run:
    the medians over the rebinds of the memmap init, the rest of the
    onlining (online_pages() less its memmap init), the onlining, what
    is left of the command (daxctl, the hot-add, sysfs: the command less
    the onlining) and the command; the differences are taken per bind."""
    out = []
    labels = run_labels({b for b, _ in runs})
    for size in sizes:
        for d in devices:
            if d not in HOTPLUG:
                continue
            for b in labels:
                binds = runs[b, size][0][d]
                rest = [binds[k] for k in range(1, rebinds + 1)]
                out.append({
                    "device": d, "size_bytes": size << 20, "run": b,
                    "threads": common_threads(binds) if b in MULTI else 1,
                    "nr_pages": binds[1]["nr_pages"],
                    "calls": median_int([x["events"] for x in rest]),
                    "memmap_init_ns": median_int([x["memmap_init_ns"] for x in rest]),
                    "online_rest_ns": median_int([x["online_ns"] - x["memmap_init_ns"]
                                                  for x in rest]),
                    "online_ns": median_int([x["online_ns"] for x in rest]),
                    "outside_online_ns": median_int([x["enable_ns"] - x["online_ns"]
                                                     for x in rest]),
                    "enable_ns": median_int([x["enable_ns"] for x in rest]),
                    "first_enable_ns": binds[0]["enable_ns"]})
    return out


def find(results, device, size, backend, metric):
    for r in results:
        if (r["device"], r["size_bytes"] >> 20, r["backend"], r["metric"]) == \
                (device, size, backend, metric):
            return r
    raise KeyError((device, size, backend, metric))
