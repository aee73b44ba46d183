#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.py: turn the output of the benchmark boots (guest/tests/bench,
# run by harness/bench.sh) into a table at most 72 columns wide, a JSON file
# and an SVG chart; or print the table again from a JSON file (--cover).
# Standard library only.
#
#   bench-report.py --run base=OUT --run template=OUT
#                   --run template+streaming=OUT [--run template-threads=OUT
#                   --run template+streaming-threads=OUT [--run base-cpus=OUT]]
#                   [--run RUN=OUT]...
#                   --devices LIST --rebinds N
#                   [--accel kvm|tcg] [--fact KEY=VALUE]... [--kernel NAME=DIR]...
#                   [--probe PROBE.json | --no-probe] [--json FILE] [--svg FILE]
#                   [--text FILE]
#   bench-report.py --cover RESULTS.json
#   bench-report.py --boot-summary RUN=OUT --devices LIST --rebinds N
#
# OUT is what vm.sh printed for one boot (the guest test's output).  Each
# boot measured one size (its "BENCH-INFO size_mb=M" line); give one --run
# per run and size.  The runs: base, template and template+streaming on one
# thread, and optionally (both or neither) template-threads and
# template+streaming-threads, the same backends with the threads the kernel
# picks (guest/tests/bench THREADS=auto), shown as "template, N threads"
# and "template+streaming, N threads" with N the threads the binds ran on;
# with them, optionally, base-cpus: the base kernel with every vCPU online
# as in the threaded boots (THREADS=auto; it still initializes on one
# thread), shown as "base, all CPUs", the base of the threaded runs' whole
# bind and of the breakdown's every-vCPU table.
# Read are the lines
#   BENCH device=D bind=K memmap_init_ns=T enable_ns=E backend=B events=C
#         nr_pages=P tp_ns=X [threads=N]
#   BENCH-FLOOR device=D phase=pick|run cand=C rep=K nr_pages=P bytes=B ns=T
#   BENCH-PHASE device=D bind=K path=F1/F2/F calls=N ns=T
#   BENCH-NDCTL device=D bind=K list_ns=T
#   BENCH-INFO key=value...
# Every device of LIST must have binds 0..N exactly once in every run, the
# floor's N+1 timed writes, and every line of a run must name the run's
# backend, and its thread count: a threaded run's lines must have threads=,
# a single-threaded run's must not exceed 1 (a missing threads=, from a
# guest test older than the threads, counts as 1).  Anything else is an
# error (exit 1), as the numbers would then not be what the table says
# they are.
#
# Bind 0 is the first bind ("first"); the median, min and max are over
# binds 1..N (the rebinds).  An even N takes the mean of the two middle
# values, rounded to the nearest ns.  Ratios are medians over the base
# median.  Each comparison (template vs base, template+streaming vs base,
# template+streaming vs template; with the threaded runs also each of them
# vs its single-threaded run and vs base) gets Welch's t-test on the
# rebinds at 95% confidence (as ministat does, but without assuming equal
# variances): the difference of the means in percent of the second one, +-
# the half-width of its 95% confidence interval, or "no difference proven
# at 95%".  The threads' speedup is the single-threaded median over the
# threaded one.  Every results row has "threads": 1 for the floor, base and
# the single-threaded runs, the most common threads= of the binds for a
# threaded run.
#
# The floor (backend "floor"): the fastest store candidate the guest's
# memremap_bench found, writing the device's pages' worth of struct page
# bytes, taken from the template boot (the guest that runs the path it
# bounds); its samples are the N timed writes after the first.  The floor
# must not be slower than the single-threaded template paths: if it is,
# the table and the JSON flag it.  It is one CPU's: the threaded rows may
# go under it.
#
# The breakdown: where the whole enable goes, from the BENCH-PHASE lines
# (a second function_graph instance hooked on the bind path's phase
# functions, nested by call path).  Per device and run, each path's
# median over the rebinds (a path missing from a rebind counts 0), its
# share of the enable's median, and what a phase leaves over beyond its
# traced callees ("rest"); "outside the traced functions" is the enable's
# median minus its outermost phases' (ndctl, sysfs and uevents, driver
# core; for devprivate the module's own timing, so nothing), with, where
# the guest timed it (BENCH-NDCTL), a read-only "ndctl list" of the
# namespace: ndctl's start-up and sysfs scan without a bind.  Phases that
# touch the emulated NVDIMM's memory through the pmem driver (the info
# block, the partition scan) are marked: under TCG their cost is QEMU's
# memory emulation.  A run without BENCH-PHASE lines (an older guest test)
# has no breakdown.  With base-cpus, each device gets two tables, one of
# the runs with one vCPU online (base, template), one of those with every
# vCPU online (base-cpus, template-threads), and under each a bound: the
# enable less its memmap_init_zone_device() time, so the largest ratio to
# base's enable that any faster memmap init could reach.
#
# The kernel's part of the whole bind (metric probe_ns): per bind, the
# summed outermost calls of nd_pmem_probe() and dax_pmem_probe() from the
# BENCH-PHASE lines (devprivate: of memremap_pages()), where every bind
# of the run has them; it leaves out ndctl, sysfs and the driver core,
# which enable_ns includes.
#
# The table has a part per series when there are threaded runs: Part 1,
# the first series (the single-threaded runs and the floor, against base)
# and Part 2, its follow-up (the threaded runs against their
# single-threaded ones, base-cpus as the whole bind's base).  With several
# sizes, the breakdown is printed for the largest.
#
# --fact KEY=VALUE adds host facts to the JSON (cpu_model, series_commit,
# guest_vcpus, ...); known numeric ones are stored as numbers.  --kernel
# NAME=DIR names a kernel build directory (base; first, the first series
# alone, which ran the single-threaded patched runs, when they had a
# kernel of their own; patched, the threaded runs' or every patched run's): its release
# (include/config/kernel.release) and the sha256 of its .config are
# recorded, the directory itself only by its last component.  --probe is
# store-probe's --json output, stored under "probe" and summarised.  The
# table goes to stdout (and to --text FILE).  Usage errors exit 2.

import argparse
import collections
import hashlib
import json
import math
import os
import re
import statistics
import sys
import textwrap
from xml.sax.saxutils import escape

PROG = os.path.basename(sys.argv[0])
BACKENDS = ["base", "template", "template+streaming"]
# The threaded runs: run label -> the backend their lines name.
THREADED = {"template-threads": "template",
            "template+streaming-threads": "template+streaming"}
# The base kernel booted as the threaded runs are, with every vCPU online
# (it still initializes on one thread): the base of their whole bind.
BASE_CPUS = "base-cpus"
# Run label -> the backend its lines name.
BACKEND_OF = dict(THREADED, **{BASE_CPUS: "base"})
# Every run, in the table's order: each threaded run next to its own.
RUNS = ["base", BASE_CPUS, "template", "template-threads", "template+streaming",
        "template+streaming-threads"]
METRICS = ["memmap_init_ns", "enable_ns"]
KNOWN_DEVICES = ["fsdax-dev", "fsdax-mem", "devdax-2m", "devprivate"]
COMPARISONS = [("template", "base"), ("template+streaming", "base"),
               ("template+streaming", "template")]
THREAD_COMPARISONS = [("template-threads", "template"),
                      ("template+streaming-threads", "template+streaming"),
                      ("template-threads", "base"), ("template+streaming-threads", "base")]
COLORS = {"base": "#7f7f7f", BASE_CPUS: "#c7c7c7", "template": "#1f77b4",
          "template+streaming": "#ff7f0e",
          "template-threads": "#9ecae1", "template+streaming-threads": "#fdd0a2",
          "floor": "#2ca02c"}
# What held the emulated NVDIMM's contents (bench.sh --nvdimm-memory).
NVDIMM_MEMORY = {
    "ram": "NVDIMM contents in QEMU's anonymous memory, as guest RAM",
    "file": "NVDIMM contents in a file on the host (map=dev binds pay for "
            "the host's file)",
}
NUMERIC_FACTS = {"wall_s", "nproc", "other_qemu_max", "other_busy_pct_max", "guest_ram_bytes",
                 "guest_vcpus", "hz"}
WIDTH = 72
CONFIDENCE = 0.95
FLOOR_INSTRUMENT = "memremap_bench floor (ktime_get_ns)"

LINE_RE = re.compile(
    r"^BENCH device=(?P<device>\S+) bind=(?P<bind>\d+) memmap_init_ns=(?P<memmap_init_ns>\d+)"
    r" enable_ns=(?P<enable_ns>\d+) backend=(?P<backend>\S+) events=(?P<events>\d+)"
    r" nr_pages=(?P<nr_pages>\d+) tp_ns=(?P<tp_ns>\d+|-)(?: threads=(?P<threads>\d+))?$")
NDCTL_RE = re.compile(
    r"^BENCH-NDCTL device=(?P<device>\S+) bind=(?P<bind>\d+) list_ns=(?P<ns>\d+)\s*$")
PHASE_RE = re.compile(
    r"^BENCH-PHASE device=(?P<device>\S+) bind=(?P<bind>\d+) path=(?P<path>[A-Za-z0-9_./]+) "
    r"calls=(?P<calls>\d+) ns=(?P<ns>\d+)\s*$")
# Phases whose time is the emulated NVDIMM's memory, read through the pmem
# driver (marked in the breakdown).
NVDIMM_PHASES = {"nd_pfn_validate", "nvdimm_setup_pfn", "disk_scan_partitions",
                 "device_add_disk"}
# The kernel's part of a whole bind (metric probe_ns): the outermost calls
# of the drivers' probes, or for devprivate of memremap_pages() (the
# module's own timing is its enable_ns), from the BENCH-PHASE lines.
PROBE_FUNCS = ("nd_pmem_probe", "dax_pmem_probe")
PROBE_FUNCS_PRIVATE = ("memremap_pages",)
FLOOR_RE = re.compile(
    r"^BENCH-FLOOR device=(?P<device>\S+) phase=(?P<phase>pick|run) cand=(?P<cand>[a-z0-9]+)"
    r" rep=(?P<rep>\d+) nr_pages=(?P<nr_pages>\d+) bytes=(?P<bytes>\d+) ns=(?P<ns>\d+)$")


class ReportError(Exception):
    pass


def usage_error(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


# --- statistics ---------------------------------------------------------------

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


# --- input --------------------------------------------------------------------

def parse_run(label, path, devices, rebinds):
    """Read one boot's output: (size_mb, binds, floors, info)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ReportError(f"run {label}: cannot read {path}: {e.strerror}")
    binds, floors, info = {}, {}, {}
    phases, ndctl = {}, {}
    done = False
    for n, raw in enumerate(lines, 1):
        line = raw.strip("\r")
        if line.startswith("BENCH-ERROR"):
            raise ReportError(f"run {label}: the guest failed: {line} ({path}:{n})")
        if line == "BENCH-DONE":
            done = True
            continue
        if line.startswith("BENCH-INFO "):
            for kv in line.split()[1:]:
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    info.setdefault(k, v)
            continue
        if line.startswith("BENCH-NDCTL "):
            m = NDCTL_RE.match(line)
            if not m:
                raise ReportError(f"run {label}: malformed line {path}:{n}: {line!r}")
            ndctl.setdefault(m.group("device"), {})[int(m.group("bind"))] = int(m.group("ns"))
            continue
        if line.startswith("BENCH-PHASE "):
            m = PHASE_RE.match(line)
            if not m:
                raise ReportError(f"run {label}: malformed line {path}:{n}: {line!r}")
            d, k, pth = m.group("device"), int(m.group("bind")), m.group("path")
            if d not in devices:
                raise ReportError(f"run {label}: phases of device {d} were not asked for ({path}:{n})")
            got = phases.setdefault(d, {}).setdefault(k, {})
            if pth in got:
                raise ReportError(f"run {label}: {d} bind {k} phase {pth} appears twice ({path}:{n})")
            got[pth] = (int(m.group("calls")), int(m.group("ns")))
            continue
        if line.startswith("BENCH-FLOOR "):
            m = FLOOR_RE.match(line)
            if not m:
                raise ReportError(f"run {label}: malformed line {path}:{n}: {line!r}")
            d = m.group("device")
            if d not in devices:
                raise ReportError(f"run {label}: floor of device {d} was not asked for ({path}:{n})")
            fl = floors.setdefault(d, {"pick": {}, "run": {}, "cand": None, "nr_pages": None,
                                       "bytes": None})
            ph, cand, rep = m.group("phase"), m.group("cand"), int(m.group("rep"))
            if ph == "run":
                if fl["cand"] not in (None, cand):
                    raise ReportError(f"run {label}: {d} floor runs two candidates ({path}:{n})")
                fl["cand"] = cand
                if rep in fl["run"]:
                    raise ReportError(f"run {label}: {d} floor rep {rep} appears twice ({path}:{n})")
                fl["run"][rep] = int(m.group("ns"))
            else:
                fl["pick"].setdefault(cand, []).append(int(m.group("ns")))
            fl["nr_pages"], fl["bytes"] = int(m.group("nr_pages")), int(m.group("bytes"))
            continue
        if not line.startswith("BENCH "):
            continue
        m = LINE_RE.match(line)
        if not m:
            raise ReportError(f"run {label}: malformed line {path}:{n}: {line!r}")
        d = m.group("device")
        k = int(m.group("bind"))
        want = BACKEND_OF.get(label, label)
        if m.group("backend") != want:
            raise ReportError(
                f"run {label}: WRONG BACKEND: {d} bind {k} used '{m.group('backend')}', "
                f"this run must measure '{want}' ({path}:{n})")
        threads = None if m.group("threads") is None else int(m.group("threads"))
        if label in THREADED and threads is None:
            raise ReportError(
                f"run {label}: {d} bind {k} has no threads= (a guest test from before the "
                f"threaded init?): a threaded run must say how many threads ran ({path}:{n})")
        if label not in THREADED and (threads or 0) > 1:
            raise ReportError(
                f"run {label}: WRONG THREADS: {d} bind {k} ran on {threads} threads, "
                f"this run must be single-threaded ({path}:{n})")
        if d not in devices:
            raise ReportError(f"run {label}: device {d} was not asked for ({path}:{n})")
        if k in binds.setdefault(d, {}):
            raise ReportError(f"run {label}: {d} bind {k} appears twice ({path}:{n})")
        b = {key: int(m.group(key)) for key in
             ("memmap_init_ns", "enable_ns", "events", "nr_pages")}
        b["tp_ns"] = None if m.group("tp_ns") == "-" else int(m.group("tp_ns"))
        b["threads"] = 1 if threads is None else threads
        binds[d][k] = b
    if not info.get("size_mb", "").isdigit():
        raise ReportError(f"run {label}: no 'BENCH-INFO size_mb=' line ({path})")
    if info.get("instrument") != "function_graph":
        raise ReportError(f"run {label}: memmap init not timed by function_graph "
                          f"(BENCH-INFO instrument={info.get('instrument')}) ({path})")
    for d in devices:
        got = binds.get(d, {})
        if not got:
            raise ReportError(f"run {label}: {d} has no lines, expected binds 0..{rebinds} ({path})")
        missing = [str(k) for k in range(rebinds + 1) if k not in got]
        extra = [str(k) for k in sorted(got) if k > rebinds]
        if missing or extra:
            what = (f"lacks bind(s) {', '.join(missing)}" if missing else
                    f"has extra bind(s) {', '.join(extra)}")
            raise ReportError(f"run {label}: {d} {what}, expected binds 0..{rebinds} ({path})")
        fl = floors.get(d)
        if not fl or sorted(fl["run"]) != list(range(rebinds + 1)):
            raise ReportError(f"run {label}: {d} lacks the floor's {rebinds + 1} timed writes "
                              f"(BENCH-FLOOR phase=run rep=0..{rebinds}) ({path})")
    for d, by_bind in phases.items():
        extra = [str(k) for k in sorted(by_bind) if k not in binds.get(d, {})]
        if extra:
            raise ReportError(f"run {label}: {d} has phases of bind(s) {', '.join(extra)} "
                              f"but no BENCH line for them ({path})")
    for d, by_bind in binds.items():
        for k, b in by_bind.items():
            b["phases"] = phases.get(d, {}).get(k)
            b["ndctl_list_ns"] = ndctl.get(d, {}).get(k)
    if not done:
        raise ReportError(f"run {label}: no BENCH-DONE line: the guest did not finish ({path})")
    return int(info["size_mb"]), binds, floors, info


# --- aggregation --------------------------------------------------------------

def probe_ns(device, bind):
    """The kernel's part of one bind (PROBE_FUNCS), None without phases."""
    ph = bind.get("phases")
    if ph is None:
        return None
    tops = PROBE_FUNCS_PRIVATE if device == "devprivate" else PROBE_FUNCS
    return sum(ns for pth, (_, ns) in ph.items() if pth in tops)


def probe_instrument(device):
    tops = PROBE_FUNCS_PRIVATE if device == "devprivate" else PROBE_FUNCS
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


def aggregate(runs, sizes, devices, rebinds):
    """runs: {(run label, size_mb): (binds, floors, info)}."""
    results, comparisons, crosscheck, floors, speedups = [], [], [], [], []
    labels = run_labels({b for b, _ in runs})
    threaded = [b for b in labels if b in THREADED]
    for size in sizes:
        for d in devices:
            enable_instr = ("memremap_bench ktime_get_ns around memremap_pages()"
                            if d == "devprivate" else "EPOCHREALTIME around ndctl")
            for b in labels:
                binds = runs[b, size][0][d]
                pages = binds[1]["nr_pages"]
                threads = common_threads(binds) if b in THREADED else 1
                for metric in METRICS:
                    instr = (runs[b, size][2].get("instrument") if metric == "memmap_init_ns"
                             else enable_instr)
                    rest = [binds[k][metric] for k in range(1, rebinds + 1)]
                    results.append(row(d, size, b, metric, instr, binds[0][metric], rest, pages,
                                       threads))
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
            above = [b for b in BACKENDS[1:]
                     if fr["median"] > find(results, d, size, b, "memmap_init_ns")["median"]]
            floors.append({"device": d, "size_bytes": size << 20, "from": src,
                           "candidate": fl["cand"], "bytes": fl["bytes"],
                           "slower_than": above, "by_boot": by_boot})
            for a, b in COMPARISONS + (THREAD_COMPARISONS if threaded else []):
                ra = find(results, d, size, a, "memmap_init_ns")
                rb = find(results, d, size, b, "memmap_init_ns")
                c = {"device": d, "size_bytes": size << 20, "metric": "memmap_init_ns",
                     "a": a, "b": b, "instrument": ra["instrument"]}
                if ra["instrument"] != rb["instrument"]:
                    raise ReportError(f"{d}: {a} and {b} were timed by different instruments "
                                      f"({ra['instrument']} vs {rb['instrument']})")
                c.update(welch(ra["samples"], rb["samples"]))
                comparisons.append(c)
            for b in threaded:
                one = find(results, d, size, THREADED[b], "memmap_init_ns")
                many = find(results, d, size, b, "memmap_init_ns")
                speedups.append({"device": d, "size_bytes": size << 20, "metric": "memmap_init_ns",
                                 "a": b, "b": THREADED[b], "threads": many["threads"],
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
                            "threads": common_threads(binds) if b in THREADED else 1,
                            "ndctl_list_median_ns": (median_int(lists) if len(lists) == len(rest)
                                                     else None),
                            "enable_median_ns": enable,
                            "enable_first_ns": binds[0]["enable_ns"], "phases": phases})
    return out


def find(results, device, size, backend, metric):
    for r in results:
        if (r["device"], r["size_bytes"] >> 20, r["backend"], r["metric"]) == \
                (device, size, backend, metric):
            return r
    raise KeyError((device, size, backend, metric))


# --- the table ----------------------------------------------------------------

def human_bytes(n):
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n / (1 << 20):.0f} MiB"


def wrap(text, indent=""):
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent or "  ",
                         break_on_hyphens=False)


def fmt_ms(ns, dec):
    return f"{ns / 1e6:.{dec}f}"


def run_name(r):
    """A results row's name in the table: its run, a threaded one with its
    thread count ("template, 2 threads"), the floor with its candidate."""
    b = r["backend"]
    if b == "floor":
        return f"floor ({r['candidate']})"
    if b in THREADED:
        t = r["threads"]
        return f"{THREADED[b]}, {t} thread{'' if t == 1 else 's'}"
    if b == BASE_CPUS:
        return "base, all CPUs"
    return b


def threads_cell(rs):
    """The thread counts of rows rs: one number, or a/b when they differ."""
    ts = [str(r["threads"]) for r in rs]
    return ts[0] if len(set(ts)) == 1 else "/".join(ts)


def table(doc):
    out = []
    accel = doc.get("accel", "unknown")
    devices, rebinds, results = doc["devices"], doc["rebinds"], doc["results"]
    sizes = doc["sizes"]["list_bytes"]
    kern = doc.get("kernels", {})
    kernels = (f"the first series {kern['first'].get('release') or '?'} and both series "
               f"{kern.get('patched', {}).get('release') or '?'}"
               if kern.get("first") else f"patched {kern.get('patched', {}).get('release') or '?'}")
    out += wrap(f"memmap_init_zone_device(): base {kern.get('base', {}).get('release') or '?'} "
                f"vs {kernels}; "
                f"{len(devices)} device(s) at {', '.join(human_bytes(s) for s in sizes)}; "
                f"{rebinds} rebinds per device and backend.")
    if accel == "tcg":
        out += wrap("Accelerator: TCG (QEMU emulation, no KVM). TCG timings measure emulated "
                    "instruction work, not the memory system; the store-type effect is "
                    "measured on the real CPU by the user-space probe (below).")
    elif accel == "kvm":
        out += wrap("Accelerator: KVM (-cpu host): guest stores run on the real CPU and memory.")
    else:
        out += wrap(f"Accelerator: {accel}")
    facts = []
    for k, label in (("cpu_model", "CPU"), ("guest_vcpus", "guest vCPUs"),
                     ("date", "date")):
        if doc.get(k) not in (None, ""):
            facts.append(f"{label} {doc[k]}")
    if doc["sizes"].get("guest_ram_bytes"):
        facts.append(f"guest RAM {human_bytes(doc['sizes']['guest_ram_bytes'])}")
    if doc.get("nvdimm_memory"):
        facts.append(NVDIMM_MEMORY.get(doc["nvdimm_memory"], f"NVDIMM memory {doc['nvdimm_memory']}"))
    if doc.get("series_commit"):
        facts.append(f"series {doc['series_commit'][:12]}")
    if facts:
        out += wrap("Host: " + "; ".join(facts) + ".")
    if doc.get("host", {}).get("busy"):
        out += wrap(f"WARNING: {doc['host']['busy']}: timings are noisy.")
    if doc.get("threads_skipped"):
        out += wrap(f"Threaded boots skipped ({doc['threads_skipped']}): one thread only.")
    labels = run_labels({r["backend"] for r in results})
    threaded = [b for b in labels if b in THREADED]
    # Older results have no base with every vCPU online.
    have_cpus = BASE_CPUS in labels
    single = [b for b in labels if b in BACKENDS]
    many = ([BASE_CPUS] if have_cpus else []) + [
        x for b in BACKENDS[1:] for x in (b, b + "-threads") if x in labels]
    any_slow_floor = []

    def init_blocks(runs, comps, speedup):
        """Per size and device, the memmap init rows of runs, the verdicts
        of comps and (threads) the speedup line."""
        res = []
        for size in sizes:
            for d in devices:
                rows = {b: find(results, d, size >> 20, b, "memmap_init_ns")
                        for b in set(runs) | {"base", "floor"}}
                big = max(rows[b]["max"] for b in runs)
                dec = 3 if big < 100e6 else 2
                res.append("")
                res.append(f"{d}, {human_bytes(size)} ({rows['base']['nr_pages']} pages)")
                res.append(f"  {'backend':<18} {'median':>8} {'min-max':>17} {'first':>8} "
                           f"{'x base':>6} {'x floor':>7}")
                base_med, floor_med = rows["base"]["median"], rows["floor"]["median"]
                for b in runs:
                    r = rows[b]
                    name = run_name(r)
                    xb = f"{r['median'] / base_med:.2f}" if base_med > 0 else "n/a"
                    xf = f"{r['median'] / floor_med:.2f}" if floor_med > 0 else "n/a"
                    rng = f"{fmt_ms(r['min'], dec)}-{fmt_ms(r['max'], dec)}"
                    if len(name) > 18:
                        # A long name ("template+streaming, 2 threads") on its own line.
                        res.append(f"  {name}")
                        name = ""
                    res.append(f"  {name:<18} {fmt_ms(r['median'], dec):>8} {rng:>17} "
                               f"{fmt_ms(r['first'], dec):>8} {xb:>6} {xf:>7}")
                for c in doc["comparisons"]:
                    if (c["device"], c["size_bytes"]) != (d, size) or (c["a"], c["b"]) not in comps:
                        continue
                    lab = f"{run_name(rows[c['a']])} vs {run_name(rows[c['b']])}:"
                    line = f"  {lab:<32} {c['verdict']}"
                    if len(line) > WIDTH:
                        res.append(f"  {lab}")
                        line = f"  {'':<32} {c['verdict']}"
                    res.append(line)
                if speedup:
                    ts = {rows[b]["threads"] for b in threaded}
                    n = f"{min(ts)} thread{'' if ts == {1} else 's'}" if len(ts) == 1 else "N threads"
                    parts = []
                    for b in threaded:
                        one, mt = rows[THREADED[b]], rows[b]
                        x = f"{one['median'] / mt['median']:.2f}x" if mt["median"] > 0 else "n/a"
                        parts.append(f"{THREADED[b]} {x}" + ("" if len(ts) == 1 else
                                                              f" (N={mt['threads']})"))
                    res += wrap(f"speedup of {n} over 1 (ratio of medians): " + ", ".join(parts),
                                "  ")
                if "floor" in runs:
                    for f in doc["floor"]:
                        if (f["device"], f["size_bytes"]) == (d, size) and f["slower_than"]:
                            any_slow_floor.append(f"{d} {human_bytes(size)}")
                            res.append("  FLAG: the floor is slower than "
                                       f"{', '.join(f['slower_than'])}")
        return res

    def ms_x_base(r, base):
        q = "n/a" if not base["median"] else f"{r['median'] / base['median']:.2f}x"
        return f"{fmt_ms(r['median'], 2):>8} {q:>5}"

    def per_page(r, base=None):
        return "n/a" if r.get("ns_per_page") is None else f"{r['ns_per_page']:.1f}"

    def threads_col(base, rs):
        return threads_cell(rs)

    def has(metric, runs):
        """Every device and size has a row of metric for each of runs (an
        older guest test timed no probes)."""
        got = {(r["device"], r["size_bytes"], r["backend"]) for r in results
               if r["metric"] == metric}
        return all((d, size, b) in got for d in devices for size in sizes for b in runs)

    # The whole bind (ndctl's command, then the kernel's probes) and the
    # cost per page, each for the single-threaded runs, then for the
    # threaded ones: heading, row order (size or device outermost), runs,
    # metric, column separator, the base run, the first column (header,
    # width, cell from the base row and the runs' rows), the runs' columns
    # (header, width) and their cell.
    whole = [("template", 14), ("+streaming", 14)]
    # The threaded runs' whole bind against the base kernel with the same
    # vCPUs online, when the run has it.
    nbase = BASE_CPUS if have_cpus else "base"
    base_col = ("base", 9, lambda base, rs: fmt_ms(base["median"], 2))
    probe_what = ("nd_pmem_probe() and dax_pmem_probe(), function_graph; devprivate: "
                  "memremap_pages()")
    blocks1 = [
        ("Whole bind, median ms and x base (ndctl enable-namespace, bash EPOCHREALTIME; "
         "devprivate: memremap_pages(), ktime; every vCPU but the first offline):", "size",
         BACKENDS[1:], "enable_ns", "  ", "base", base_col, whole, ms_x_base),
        (f"The kernel's part of the whole bind, median ms and x base ({probe_what}; the "
         "rest is ndctl, sysfs and the driver core):", "size",
         BACKENDS[1:], "probe_ns", "  ", "base", base_col, whole, ms_x_base),
        ("Cost per page, ns (median memmap init time / pages):", "device",
         BACKENDS[1:] + ["floor"], "memmap_init_ns", " ", "base",
         ("base", 9, lambda base, rs: per_page(base)),
         [("template", 9), ("+streaming", 10), ("floor", 9)], per_page),
    ]
    blocks2 = [
        ("Whole bind on N threads, median ms and x base with every vCPU online (the "
         "same instruments):" if have_cpus else
         "Whole bind on N threads, median ms and x base (the same instruments; base ran "
         "with one vCPU online, the threaded runs with all):", "size",
         threaded, "enable_ns", "  ", nbase,
         base_col if have_cpus else ("threads", 7, threads_col), whole, ms_x_base),
        ("The kernel's part of the whole bind on N threads, median ms and x base"
         + (" with every vCPU online" if have_cpus else "") + f" ({probe_what}):", "size",
         threaded, "probe_ns", "  ", nbase,
         base_col if have_cpus else ("threads", 7, threads_col), whole, ms_x_base),
        ("Cost per page on N threads, ns (median memmap init time / pages):", "device",
         threaded, "memmap_init_ns", " ", "base", ("threads", 7, threads_col),
         [("template", 9), ("+streaming", 10)], per_page),
    ]

    def tables(blocks):
        res = []
        for heading, outer, runs, metric, sep, base_run, first, cols, cell in blocks:
            if not runs or not has(metric, runs + [base_run]):
                continue
            res.append("")
            res += wrap(heading)
            res.append(f"  {'device':<11} {'size':>7}{sep}" +
                       sep.join(f"{h:>{w}}" for h, w in [first[:2]] + cols))
            keys = ([(d, size) for size in sizes for d in devices] if outer == "size" else
                    [(d, size) for d in devices for size in sizes])
            for d, size in keys:
                base = find(results, d, size >> 20, base_run, metric)
                rs = [find(results, d, size >> 20, b, metric) for b in runs]
                cells = [f"{first[2](base, rs):>{first[1]}}"]
                cells += [f"{cell(r, base):>{w}}" for (_, w), r in zip(cols, rs)]
                res.append(f"  {d:<11} {human_bytes(size):>7}{sep}" + sep.join(cells))
        return res

    # The notes, then a part per series: the first series' single thread
    # against base, then the follow-up's threads.
    out.append("")
    out += wrap("memmap init time in ms: median [min-max] of the rebinds, the first bind, "
                "and the median as a multiple of base and of the floor.")
    out += wrap(f"Verdicts: Welch's t-test on the rebinds at {CONFIDENCE * 100:.0f}%: the "
                "difference of the means in % of the second, +- the half-width of its "
                "confidence interval.")
    out += wrap("Instrument, every kernel: the function_graph tracer filtered to "
                "memmap_init_zone_device() alone (set_ftrace_filter: entry and exit hooks, "
                "no callee traced); ns below 10 ms, 0.1 us below 1 s.")
    out += wrap("Floor: the fastest of eight movq per 64 B, memset(), rep stosq and MOVNTI "
                "writing the same pages' struct page bytes in the template guest "
                "(memremap_bench floor_pages=).")
    if threaded:
        out += wrap("Threads: the \"N threads\" rows let the kernel split the init "
                    "(every vCPU online: one thread per housekeeping CPU of the device's "
                    "node; a range under two chunks of two sections stays on one), N the "
                    "most common count over the binds; the other rows, base included, ran "
                    "with every vCPU but the first offline, which holds the init to one "
                    "thread" + (", but \"base, all CPUs\", the base kernel with every vCPU "
                                "online as in the threaded boots" if have_cpus else "") +
                    ". The floor is one CPU's: it bounds the single-threaded rows, a "
                    "threaded row may go under it.")
    xc = doc.get("crosscheck") or []
    if xc:
        worst = max(xc, key=lambda x: x["max_abs_diff_ns"])
        meds = [x["median_diff_ns"] for x in xc]
        mpct = [x["median_diff_pct"] for x in xc if x.get("median_diff_pct") is not None]
        pct = max((x["max_abs_diff_pct"] or 0) for x in xc)
        mp = f" ({statistics.median(mpct):+.2f}%)" if mpct else ""
        out += wrap("Cross-check, patched kernels: function_graph minus the tracepoint's "
                    f"duration_ns, per bind: median {statistics.median(meds) / 1e3:+.1f} us"
                    f"{mp}; largest {worst['max_abs_diff_ns'] / 1e3:.1f} us; largest "
                    f"relative {pct:.2f}%.")
    if len(sizes) > 1:
        out += wrap(f"Breakdown of the whole bind at the largest size, {human_bytes(sizes[-1])} "
                    "(every size's is in the JSON).")
    first_rel = kern.get("first", {}).get("release")
    patched_rel = kern.get("patched", {}).get("release") or "?"
    base_rel = kern.get("base", {}).get("release") or "?"
    if threaded:
        out.append("")
        out.append("== Part 1: the first series (patches/), one thread ==")
        out += wrap(f"Kernels: base {base_rel}, the first series {first_rel or patched_rel}"
                    + ("" if first_rel else " (with its follow-up: the same kernel as Part 2)")
                    + ".")
    out += init_blocks(single + ["floor"], COMPARISONS, False)
    out += tables(blocks1)
    out += breakdown_table(doc, devices, sizes, BREAKDOWN_GROUPS[:1] if have_cpus else None)
    if threaded:
        out.append("")
        out.append("== Part 2: the follow-up series (patches/threads/), N threads ==")
        out += wrap(f"Kernels: one thread on {first_rel or patched_rel}, N threads on "
                    f"{patched_rel}" + ("" if first_rel else " (both series, one kernel)")
                    + (f"; base {base_rel} with every vCPU online as well" if have_cpus
                       else "") + ".")
        out += init_blocks(many, THREAD_COMPARISONS, True)
        out += tables(blocks2)
        if have_cpus:
            out += breakdown_table(doc, devices, sizes, BREAKDOWN_GROUPS[1:], lead=False)
    if any_slow_floor:
        out.append("")
        out += wrap("WARNING: the floor came out slower than a template path it should "
                    f"bound ({'; '.join(any_slow_floor)}): that floor is not a bound.")
    probe = doc.get("probe")
    if probe:
        out.append("")
        out += wrap(f"User-space store probe on the host CPU ({probe.get('cpu_model', '?')}, "
                    f"{human_bytes(int(probe.get('size_bytes', 0)))} buffer, median of "
                    f"{probe.get('repeat', '?')}; a model of the write pattern, not the "
                    "kernel):")
        for key, c in probe.get("cases", {}).items():
            med = c.get("median_gbps")
            val = "n/a" if med is None else f"{med:7.2f} GB/s"
            lo, hi = c.get("min_gbps"), c.get("max_gbps")
            rng = "" if lo is None or hi is None else f"  [{lo:.2f} - {hi:.2f}]"
            out.append(f"  {key:<18} {val}{rng}")
        ratios = probe.get("ratios", {})
        cold, warm = ratios.get("nt_over_cached_cold"), ratios.get("nt_over_cached_warm")
        fmt = (lambda v: "n/a" if v is None else f"{v:.2f}")
        out += wrap(f"non-temporal / cached copy throughput: cold destination {fmt(cold)}, "
                    f"warm destination {fmt(warm)}", "  ")
    elif "probe" in doc:
        out.append("")
        out.append("User-space store probe: not run (--no-probe).")
    long = [x for x in out if len(x) > WIDTH]
    if long:
        raise ReportError(f"table line wider than {WIDTH} columns: {long[0]!r}")
    return "\n".join(out) + "\n"


BREAKDOWN_RUNS = ["base", "template", "template-threads"]
# With the base kernel's all-vCPU boot, two tables per device, each of
# runs with the same vCPUs online.
BREAKDOWN_GROUPS = [("one vCPU online", ["base", "template"]),
                    ("every vCPU online", [BASE_CPUS, "template-threads"])]
# Phases under this share of the enable in every run are folded into their
# parent's "rest" in the table (the JSON has them all).
BREAKDOWN_MIN_SHARE = 0.005


def breakdown_table(doc, devices, sizes, groups=None, lead=True):
    """The breakdown's lines at the largest size: per device, the phases as
    a tree, one column per run of BREAKDOWN_RUNS, or one table per group of
    groups (BREAKDOWN_GROUPS) when the results have base-cpus (the
    streaming runs and the other sizes are in the JSON).  lead: the
    explanation, else a line pointing to it."""
    bd = doc.get("breakdown") or []
    if not bd:
        return []
    out = [""]
    if not lead:
        out += wrap("Where the whole enable goes, with every vCPU online (read as in "
                    "Part 1):")
    else:
        out += wrap("Where the whole enable goes: median ms of the rebinds and share of the "
                    "enable's median, per phase (function_graph on the phase functions, nested "
                    "by call path; \"rest\": a phase's time beyond its traced callees; * reads "
                    "the emulated NVDIMM through the pmem driver, QEMU's memory emulation under "
                    "TCG). Phases under 0.5% of the enable in every run are folded into "
                    "\"rest\". The first bind, the host's first touch of the NVDIMM's "
                    "memory, is left out; the streaming runs and every phase are in the JSON.")
    for size in sizes[-1:]:
        for d in devices:
            entries = {e["run"]: e for e in bd
                       if (e["device"], e["size_bytes"]) == (d, size)}
            if BASE_CPUS in entries:
                tables = [(t, [r for r in rs if r in entries])
                          for t, rs in (groups or BREAKDOWN_GROUPS)]
            else:
                tables = [(None, [r for r in BREAKDOWN_RUNS if r in entries])]
            for title, runs in tables:
                if runs:
                    out += breakdown_lines(d, size, title, runs, entries)
    return out


def breakdown_lines(d, size, title, runs, entries):
    """One device's breakdown table for runs (see breakdown_table)."""
    def cell(ns, enable):
        pct = f"{100.0 * ns / enable:3.0f}%" if enable else "  n/a"
        return f"{ns / 1e6:8.2f} {pct:>4}"

    out = []
    width = (WIDTH - 2) - 14 * len(runs)
    out.append("")
    heads = []
    for r in runs:
        t = entries[r]["threads"]
        h = ("base" if r == BASE_CPUS else
             r if r not in THREADED else f"{t} thread{'' if t == 1 else 's'}")
        heads.append(f"{h:>13}")
    name = d + ", " + human_bytes(size) + (f", {title}" if title else "")
    out.append(f"{name:<{width + 2}} " + " ".join(heads))
    order, val = [], {}
    for r in runs:
        for ph in entries[r]["phases"]:
            if ph["path"] not in order:
                order.append(ph["path"])
            val[r, ph["path"]] = ph["median_ns"]
    nvd = {ph["path"] for r in runs for ph in entries[r]["phases"] if ph.get("nvdimm")}
    kids = collections.defaultdict(list)
    for pth in order:
        parent = pth.rpartition("/")[0]
        if parent and parent not in order:
            parent = ""
        kids[parent].append(pth)

    def line(label, nss):
        label = label if len(label) <= width else label[:width - 1] + "~"
        return f"  {label:<{width}} " + " ".join(
            cell(ns, entries[r]["enable_median_ns"]) for r, ns in zip(runs, nss))

    enable = [entries[r]["enable_median_ns"] for r in runs]
    out.append(line("enable (whole bind)", enable))
    top = [sum(val.get((r, p), 0) for p in kids[""]) for r in runs]
    out.append(line(" outside traced functions",
                    [max(e - t, 0) for e, t in zip(enable, top)]))
    if all(entries[r].get("ndctl_list_median_ns") is not None for r in runs):
        out.append(line("  ndctl list, no bind",
                        [entries[r]["ndctl_list_median_ns"] for r in runs]))

    def shown(pth):
        return any(val.get((r, pth), 0) >= BREAKDOWN_MIN_SHARE * e
                   for r, e in zip(runs, enable))

    def walk(pth, depth):
        name = pth.rsplit("/", 1)[-1] + (" *" if pth in nvd else "")
        out.append(line(" " * depth + name, [val.get((r, pth), 0) for r in runs]))
        show = [c for c in kids[pth] if shown(c)]
        if show:
            for c in show:
                walk(c, depth + 1)
            out.append(line(" " * (depth + 1) + "rest",
                            [max(val.get((r, pth), 0) -
                                 sum(val.get((r, c), 0) for c in show), 0)
                             for r in runs]))
    for pth in kids[""]:
        if shown(pth):
            walk(pth, 1)
    # What no faster memmap init can remove: each run's enable less its
    # memmap_init_zone_device() time, against the group's base.
    if len(runs) >= 2 and BACKEND_OF.get(runs[0], runs[0]) == "base" and enable[0]:
        for r, e, h in zip(runs[1:], enable[1:], heads[1:]):
            mi = sum(v for (r2, pth), v in val.items()
                     if r2 == r and pth.rsplit("/", 1)[-1] == "memmap_init_zone_device")
            if mi and e > mi:
                out += wrap(f"Bound, {h.strip()}: the enable less its memmap init is "
                            f"{(e - mi) / 1e6:.2f} ms, so no faster memmap init makes this "
                            f"bind more than {enable[0] / (e - mi):.2f}x as fast as base's "
                            f"{enable[0] / 1e6:.2f} ms.", "  ")
    return out


# --- the chart ----------------------------------------------------------------

def nice_step(span, ticks=5):
    if span <= 0:
        return 1.0
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def svg_chart(doc):
    devices = doc["devices"]
    results = doc["results"]
    accel = doc.get("accel", "?")
    size = doc["sizes"]["list_bytes"][-1]
    sz = size >> 20
    width, height = 760, 456
    left, right, top, bottom = 70, 20, 78, 108
    pw, ph = width - left - right, height - top - bottom
    # The base with every vCPU online initializes the memmap as base does:
    # the chart shows the memmap init, so one base bar.
    bars = [b for b in run_labels({r["backend"] for r in results}) if b != BASE_CPUS] + ["floor"]
    vals = [find(results, d, sz, b, "memmap_init_ns")["max"] / 1e6
            for d in devices for b in bars]
    step = nice_step(max(vals + [1e-6]) * 1.08)
    ymax = step * math.ceil(max(vals + [1e-6]) * 1.08 / step)

    def y(v):
        return top + ph - ph * v / ymax

    s = []
    s.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
             f'font-size="12">')
    s.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    s.append(f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" '
             f'font-weight="bold">memmap_init_zone_device(): median of {doc["rebinds"]} rebinds, '
             f'{escape(human_bytes(size))} per device</text>')
    if accel == "tcg":
        sub = "QEMU TCG: emulated instruction work, not memory-system timing"
    elif accel == "kvm":
        sub = "QEMU KVM, -cpu host"
    else:
        sub = f"accel {accel}"
    s.append(f'<text x="{width / 2}" y="40" text-anchor="middle" fill="#444">'
             f'{escape(sub)}; whiskers: min-max; labels: x base median</text>')
    lx = left + 10
    # Six entries (the threaded runs) need a smaller legend to fit.
    pad, cw, lfont = (30, 8, "") if len(bars) <= 4 else (20, 6.2, ' font-size="11"')
    for b in bars:
        name = b
        if b in THREADED:
            ts = {r["threads"] for r in results if r["backend"] == b}
            name = f"{THREADED[b]}, {ts.pop() if len(ts) == 1 else 'N'} threads"
        s.append(f'<rect x="{lx}" y="52" width="12" height="12" fill="{COLORS[b]}"/>')
        s.append(f'<text x="{lx + 16}" y="62"{lfont}>{escape(name)}</text>')
        lx += pad + cw * len(name)
    v = 0.0
    while v <= ymax + 1e-9:
        yy = y(v)
        s.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" '
                 f'stroke="#ddd" stroke-width="1"/>')
        s.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{v:g}</text>')
        v += step
    s.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>')
    s.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>')
    s.append(f'<text x="18" y="{top + ph / 2}" text-anchor="middle" '
             f'transform="rotate(-90 18 {top + ph / 2})">memmap init time (ms)</text>')
    group = pw / len(devices)
    bar = min(48.0, group * 0.8 / len(bars))
    vfont = 11 if bar >= 30 else 9
    for i, d in enumerate(devices):
        gx = left + group * i + (group - bar * len(bars)) / 2
        base = find(results, d, sz, "base", "memmap_init_ns")["median"]
        for j, b in enumerate(bars):
            r = find(results, d, sz, b, "memmap_init_ns")
            x = gx + bar * j
            med, lo, hi = r["median"] / 1e6, r["min"] / 1e6, r["max"] / 1e6
            name = b if b == "floor" else run_name(r)
            s.append(f'<rect x="{x + 2:.1f}" y="{y(med):.1f}" width="{bar - 4:.1f}" '
                     f'height="{max(0.0, y(0) - y(med)):.1f}" fill="{COLORS[b]}">'
                     f'<title>{escape(d)} {escape(name)}: median {med:.3f} ms, '
                     f'min {lo:.3f}, max {hi:.3f}, first {r["first"] / 1e6:.3f}</title></rect>')
            cx = x + bar / 2
            s.append(f'<line x1="{cx:.1f}" y1="{y(lo):.1f}" x2="{cx:.1f}" y2="{y(hi):.1f}" '
                     f'stroke="black" stroke-width="1.2"/>')
            for yy in (y(lo), y(hi)):
                s.append(f'<line x1="{cx - 5:.1f}" y1="{yy:.1f}" x2="{cx + 5:.1f}" '
                         f'y2="{yy:.1f}" stroke="black" stroke-width="1.2"/>')
            if b != "base" and base > 0:
                s.append(f'<text x="{cx:.1f}" y="{y(hi) - 5:.1f}" text-anchor="middle" '
                         f'font-size="{vfont}">{r["median"] / base:.2f}x</text>')
        s.append(f'<text x="{left + group * (i + 0.5):.1f}" y="{top + ph + 18}" '
                 f'text-anchor="middle" font-weight="bold">{escape(d)}</text>')
    kern = doc.get("kernels", {})
    notes = ["both kernels: function_graph on memmap_init_zone_device() alone; "
             "floor: fastest store loop in the guest",
             "; ".join(x for x in (
                 "kernels " + " / ".join(kern.get(n, {}).get("release") or "?"
                                         for n in ("base", "first", "patched")
                                         if n != "first" or kern.get("first")),
                 doc.get("cpu_model"), doc.get("date")) if x)]
    if doc.get("host", {}).get("busy"):
        notes.append("host busy with other work during the run: noisy timings")
    for k, n in enumerate(notes):
        s.append(f'<text x="{left}" y="{top + ph + 46 + 16 * k}" fill="#444" '
                 f'font-size="11">{escape(n)}</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def write(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def kernel_facts(name, d):
    k = {"build": os.path.basename(os.path.normpath(d))}
    try:
        with open(os.path.join(d, "include/config/kernel.release"), encoding="utf-8") as f:
            k["release"] = f.read().strip()
    except OSError:
        k["release"] = None
    try:
        with open(os.path.join(d, ".config"), "rb") as f:
            k["config_sha256"] = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        k["config_sha256"] = None
    return k


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="Summarise bench.sh boots.")
    ap.add_argument("--run", action="append", default=[], metavar="RUN=OUT")
    ap.add_argument("--devices")
    ap.add_argument("--rebinds")
    ap.add_argument("--accel", default="unknown")
    ap.add_argument("--fact", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--kernel", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--probe")
    ap.add_argument("--no-probe", action="store_true",
                    help="record that the probe was skipped")
    ap.add_argument("--json")
    ap.add_argument("--svg")
    ap.add_argument("--text")
    ap.add_argument("--cover", metavar="RESULTS.json",
                    help="print the table of a results JSON (for the cover letter)")
    ap.add_argument("--boot-summary", metavar="RUN=OUT",
                    help="check one boot's output and print its binds and their "
                         "most common thread count (bench.sh, after each boot)")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)

    if a.cover:
        if a.run or a.json or a.svg or a.devices or a.rebinds:
            usage_error("--cover takes only the results JSON")
        try:
            with open(a.cover, encoding="utf-8") as f:
                doc = json.load(f)
            sys.stdout.write(table(doc))
        except (OSError, ValueError) as e:
            print(f"{PROG}: error: cannot read {a.cover}: {e}", file=sys.stderr)
            sys.exit(1)
        except (KeyError, TypeError, ReportError) as e:
            print(f"{PROG}: error: {a.cover} is not a bench-report.py results file ({e})",
                  file=sys.stderr)
            sys.exit(1)
        fail_unbounded_floor(doc)
        return

    if not a.devices or not a.rebinds:
        usage_error("--devices and --rebinds are required (or --cover FILE)")
    if a.boot_summary:
        if a.run or a.json or a.svg or a.text:
            usage_error("--boot-summary takes one RUN=OUT, --devices and --rebinds")
        label, sep, path = a.boot_summary.partition("=")
        if not sep or label not in RUNS or not path:
            usage_error(f"--boot-summary '{a.boot_summary}': need RUN=FILE with RUN one of "
                        f"{', '.join(RUNS)}")
        try:
            _, binds, _, _ = parse_run(label, path, a.devices.split(","), int(a.rebinds))
        except (ReportError, ValueError) as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            sys.exit(1)
        every = {(d, k): b for d, by in binds.items() for k, b in by.items()}
        print(f"{len(every)} binds, {common_threads(every)} thread(s)")
        return
    devices = a.devices.split(",")
    for d in devices:
        if d not in KNOWN_DEVICES:
            usage_error(f"--devices: unknown device '{d}' (known: {' '.join(KNOWN_DEVICES)})")
    if len(set(devices)) != len(devices):
        usage_error("--devices: a device is named twice")
    if not re.fullmatch(r"[1-9][0-9]*", a.rebinds):
        usage_error(f"--rebinds '{a.rebinds}': need a positive integer")
    rebinds = int(a.rebinds)
    paths = []
    for r in a.run:
        label, sep, path = r.partition("=")
        if not sep or label not in RUNS or not path:
            usage_error(f"--run '{r}': need RUN=FILE with RUN one of {', '.join(RUNS)}")
        paths.append((label, path))
    given = {x for x, _ in paths}
    if BASE_CPUS in given and not given & set(THREADED):
        usage_error(f"--run {BASE_CPUS}: the base with every vCPU online goes with the threaded runs")
    need = BACKENDS + (list(THREADED) if given & set(THREADED) else [])
    missing = [b for b in need if b not in given]
    if missing:
        usage_error(f"--run missing for {', '.join(missing)}"
                    + (" (the threaded runs come in pairs)" if given & set(THREADED) else ""))
    labels = run_labels(given)

    try:
        runs = {}
        for label, path in paths:
            size, binds, floors, info = parse_run(label, path, devices, rebinds)
            if (label, size) in runs:
                raise ReportError(f"two runs of {label} at size {size} MiB ({path})")
            runs[label, size] = (binds, floors, info)
        sizes = sorted({s for _, s in runs})
        for s in sizes:
            lack = [b for b in labels if (b, s) not in runs]
            if lack:
                raise ReportError(f"size {s} MiB has no run of {', '.join(lack)}")
        doc = {"accel": a.accel}
        for f in a.fact:
            k, sep, v = f.partition("=")
            if not sep or not k:
                usage_error(f"--fact '{f}': need KEY=VALUE")
            if k in NUMERIC_FACTS and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", v):
                doc[k] = float(v) if "." in v else int(v)
            else:
                doc[k] = v
        host = {}
        for k in ("nproc", "other_busy_pct_max", "other_qemu_max", "busy"):
            if k in doc:
                host[k] = doc.pop(k)
        doc["host"] = host
        doc["sizes"] = {"list_bytes": [s << 20 for s in sizes]}
        if "guest_ram_bytes" in doc:
            doc["sizes"]["guest_ram_bytes"] = doc.pop("guest_ram_bytes")
        doc["rebinds"] = rebinds
        doc["devices"] = devices
        kernels = {}
        for kv in a.kernel:
            name, sep, d = kv.partition("=")
            if not sep or name not in ("base", "first", "patched"):
                usage_error(f"--kernel '{kv}': need base=DIR, first=DIR or patched=DIR")
            kernels[name] = kernel_facts(name, d)
        patched = [b for b in labels if BACKEND_OF.get(b, b) != "base"]
        if BASE_CPUS in labels:
            cb = runs[BASE_CPUS, sizes[0]][2].get("cpus_online")
            if cb is not None:
                kernels.setdefault("base", {})["cpus_online"] = {
                    "base": runs["base", sizes[0]][2].get("cpus_online"), BASE_CPUS: cb}
        # The first series' kernel, when the single-threaded runs had their
        # own, ran template and template+streaming; the patched one the
        # threaded runs (or, without a first, every patched run).
        if "first" in kernels:
            patched = [b for b in patched if b in THREADED] or patched
        who = [("base", "base"), ("patched", (patched or ["template"])[0])]
        if "first" in kernels:
            who.insert(1, ("first", "template"))
        for name, label in who:
            info = runs[label, sizes[0]][2]
            k = kernels.setdefault(name, {})
            if not k.get("release"):
                k["release"] = info.get("release")
            k["version"] = info.get("version", "").replace("_", " ") or None
            k["memmap_init_source"] = info.get("memmap_init_source")
            if info.get("hz", "").isdigit():
                k["hz"] = int(info["hz"])
            if name != "base":
                runs_of = ([b for b in labels if b in BACKENDS[1:]] if name == "first" else
                           patched)
                k["policies"] = {b: runs[b, sizes[0]][2].get("policy") for b in runs_of}
                # The CPUs online during each patched boot's binds.
                ca = {b: runs[b, sizes[0]][2].get("cpus_online") for b in runs_of}
                if all(v is not None for v in ca.values()):
                    k["cpus_online"] = ca
                mc = {runs[b, sizes[0]][2].get("min_chunk_pages") for b in runs_of}
                mc = [v for v in mc if v is not None and v.isdigit()]
                if len(mc) == 1:
                    k["min_chunk_pages"] = int(mc[0])
        doc["kernels"] = kernels
        doc["kernel_config_sha256"] = {n: kernels[n].get("config_sha256") for n in kernels}
        (doc["results"], doc["comparisons"], doc["crosscheck"],
         doc["floor"], speedups) = aggregate(runs, sizes, devices, rebinds)
        if speedups:
            doc["speedup"] = speedups
        bd = breakdown(runs, sizes, devices, rebinds)
        if bd:
            doc["breakdown"] = bd
        if a.probe:
            try:
                with open(a.probe, encoding="utf-8") as f:
                    doc["probe"] = json.load(f)
            except (OSError, ValueError) as e:
                raise ReportError(f"cannot read the probe results {a.probe}: {e}")
        elif a.no_probe:
            doc["probe"] = None
        text = table(doc)
    except ReportError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(1)

    sys.stdout.write(text)
    if a.text:
        write(a.text, text)
    if a.json:
        write(a.json, json.dumps(doc, indent=2) + "\n")
    if a.svg:
        write(a.svg, svg_chart(doc))
    fail_unbounded_floor(doc)


def fail_unbounded_floor(doc):
    """Exit 3 when the floor does not bound the template paths: such a run
    measured something else (a busy host, a bad candidate)."""
    slow = [f"{f['device']} {human_bytes(f['size_bytes'])}"
            for f in doc.get("floor") or [] if f.get("slower_than")]
    if slow:
        print(f"{PROG}: error: the floor is slower than a template path on "
              f"{', '.join(slow)}; the results are written but are not a bound "
              "(rerun on a quieter host)", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
