# SPDX-License-Identifier: GPL-2.0
"""The text table, at most 72 columns wide: a part per series, the
verdicts, the whole bind, and the breakdown of the enable."""

import collections
import statistics
import textwrap

from .lines import (BACKENDS, BACKEND_OF, BASE_CPUS, BUSY, BUSY_COMPARISONS, CONFIDENCE, FIRST,
    HOTPLUG, HOTPLUG_INIT, HOTPLUG_RUNS, MULTI, NVDIMM_MEMORY, ONLINE_FUNC, PROBE_FUNCS_OF,
    ReportError, THREADED, THREAD_COMPARISONS, WIDTH, hotplug_run)
from .stats import find, run_labels, single_comparisons


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
    if b in BUSY.values():
        return f"{BACKEND_OF[b]}, one vCPU, busy host"
    if b in MULTI:
        t = r["threads"]
        return (f"{BACKEND_OF[b]}, {t} thread{'' if t == 1 else 's'}"
                + (", busy host" if b in BUSY else ""))
    if b == BASE_CPUS:
        return "base, all CPUs"
    return b


def threads_cell(rs):
    """The thread counts of rows rs: one number, or a/b when they differ."""
    ts = [str(r["threads"]) for r in rs]
    return ts[0] if len(set(ts)) == 1 else "/".join(ts)


def list_kernels(kern):
    """The kernels as a mailing list reads them, not by this lab's release
    names: (base, first, patched)."""
    upstream = kern.get("base", {}).get("build", "").startswith("upstream")
    on = "v11 and " if upstream else ""
    return ("v11 on 7.3.4" if upstream else "7.3.4",
            f"7.3.4 with {on}the first series", f"7.3.4 with {on}this series")


def hotplug_kernels(kern, for_list=False):
    """A memory hotplug run's kernels in words, by run (HOTPLUG_RUNS): what
    each holds, then its release (none for_list)."""
    base, first, this = list_kernels(kern)
    words = {"base": base,
             FIRST: (f"{first}, no hot-add change" if for_list else
                     "first series (patches/), no hot-add change"),
             "template": this if for_list else "with patches/hotplug/"}
    names = {"base": "base", FIRST: "first", "template": "patched"}
    return {r: (w, None if for_list else kern.get(names[r], {}).get("release"))
            for r, w in words.items()}


def table(doc, for_list=False):
    """The report.  for_list: as a cover letter carries it, naming the
    kernels by what they hold and nothing of this repository."""
    out = []
    accel = doc.get("accel", "unknown")
    devices, rebinds, results = doc["devices"], doc["rebinds"], doc["results"]
    sizes = doc["sizes"]["list_bytes"]
    kern = doc.get("kernels", {})
    first_rel = kern.get("first", {}).get("release")
    patched_rel = kern.get("patched", {}).get("release") or "?"
    base_rel = kern.get("base", {}).get("release") or "?"
    if for_list:
        base_rel, first_list, patched_rel = list_kernels(kern)
        first_rel = first_rel and first_list
    # A memory hotplug run (its devices alone): base, the first series'
    # kernel as a control and the kernel with the hot-add change.
    hot_run = hotplug_run(devices)
    kernels = (f"the first series {first_rel} and both series {patched_rel}"
               if first_rel else f"patched {patched_rel}")
    if hot_run:
        kernels = ((f"the first series {first_rel} (no hot-add change) and " if first_rel
                    else "") + f"{patched_rel} with the hot-add change")
    out += wrap(f"{HOTPLUG_INIT if hot_run else 'memmap_init_zone_device'}(): "
                f"base {base_rel} vs {kernels}; "
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
    if doc.get("series_commit") and not for_list:
        facts.append(f"series {doc['series_commit'][:12]}")
    if facts:
        out += wrap("Host: " + "; ".join(facts) + ".")
    if doc.get("host", {}).get("busy"):
        out += wrap(f"WARNING: {doc['host']['busy']}: timings are noisy.")
    if doc.get("threads_skipped"):
        out += wrap(f"{'Streaming and threaded' if hot_run else 'Threaded'} boots skipped "
                    f"({doc['threads_skipped']}): one thread only.")
    labels = run_labels({r["backend"] for r in results})
    threaded = [b for b in labels if b in THREADED]
    busy = [b for b in labels if b in BUSY]
    # Older results have no base with every vCPU online.
    have_cpus = BASE_CPUS in labels
    single = [b for b in labels if b in (HOTPLUG_RUNS if hot_run else BACKENDS)]
    # The patched runs on one thread, and their columns' headings.
    single1 = single[1:]
    head = {"template+streaming": "+streaming"}
    comps1 = single_comparisons(devices, labels)
    many = ([BASE_CPUS] if have_cpus else []) + [
        x for b in BACKENDS[1:] for x in (b, b + "-threads") if x in labels]
    any_slow_floor = []

    def init_blocks(runs, comps, speedup, where=""):
        """Per size and device, the memmap init rows of runs, the verdicts
        of comps and, with speedup ({run on N threads: its run on one}),
        the speedup line, its host described by where."""
        res = []
        for size in sizes:
            for d in devices:
                rows = {b: find(results, d, size >> 20, b, "memmap_init_ns")
                        for b in set(runs) | {"base", "floor"}}
                big = max(rows[b]["max"] for b in runs)
                dec = 3 if big < 100e6 else 2
                res.append("")
                fn = rows["base"].get("function")
                res.append(f"{d}, {human_bytes(size)} ({rows['base']['nr_pages']} pages"
                           + (f", {fn}()" if fn else "") + ")")
                res.append(f"  {'run' if hot_run else 'backend':<18} {'median':>8} "
                           f"{'min-max':>17} {'first':>8} "
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
                    if ((c["device"], c["size_bytes"]) != (d, size) or (c["a"], c["b"]) not in comps
                            or c.get("metric", "memmap_init_ns") != "memmap_init_ns"):
                        continue
                    lab = f"{run_name(rows[c['a']])} vs {run_name(rows[c['b']])}:"
                    line = f"  {lab:<32} {c['verdict']}"
                    if len(line) > WIDTH:
                        res.append(f"  {lab}")
                        line = f"  {'':<32} {c['verdict']}"
                    res.append(line)
                if speedup:
                    ts = {rows[b]["threads"] for b in speedup}
                    n = f"{min(ts)} thread{'' if ts == {1} else 's'}" if len(ts) == 1 else "N threads"
                    parts = []
                    for b, b1 in speedup.items():
                        one, mt = rows[b1], rows[b]
                        x = f"{one['median'] / mt['median']:.2f}x" if mt["median"] > 0 else "n/a"
                        parts.append(f"{BACKEND_OF[b]} {x}" + ("" if len(ts) == 1 else
                                                               f" (N={mt['threads']})"))
                    res += wrap(f"speedup of {n} over 1{where} (ratio of medians): "
                                + ", ".join(parts), "  ")
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
    whole = [(head.get(b, b), 14) for b in single1]
    # The threaded runs' whole bind against the base kernel with the same
    # vCPUs online, when the run has it.
    nbase = BASE_CPUS if have_cpus else "base"
    base_col = ("base", 9, lambda base, rs: fmt_ms(base["median"], 2))
    # The hot-added devices (memory hotplug) of the run.
    hot = [d for d in devices if d in HOTPLUG]
    probe_hot = "; ".join(f"{d}: " + ", ".join(f"{f}()" for f in PROBE_FUNCS_OF.get(d, ()))
                          for d in hot)
    probe_what = (f"{probe_hot}, function_graph" if hot_run else
                  "nd_pmem_probe() and dax_pmem_probe(), function_graph; devprivate: "
                  "memremap_pages()" + ("; cxl-devdax: dev_dax_probe()"
                                        if "cxl-devdax" in devices else ""))
    # The device column: as wide as the longest name (cxl-fsdax-dev).
    dw = max([11] + [len(d) for d in devices])
    blocks1 = [
        ("Whole bind, median ms and x base ("
         + ("".join(f"{d}: daxctl reconfigure-device --mode=system-ram, " for d in hot)
            + "bash EPOCHREALTIME; " if hot_run else
            "ndctl enable-namespace, bash EPOCHREALTIME; devprivate: memremap_pages(), ktime; "
            + ("cxl-devdax: daxctl enable-device; " if "cxl-devdax" in devices else ""))
         + "every vCPU but the first offline):", "size",
         single1, "enable_ns", "  ", "base", base_col, whole, ms_x_base),
        (f"The kernel's part of the whole bind, median ms and x base ({probe_what}; the "
         f"rest is {'daxctl' if hot_run else 'ndctl'}, sysfs and the driver core):", "size",
         single1, "probe_ns", "  ", "base", base_col, whole, ms_x_base),
        ("Cost per page, ns (median memmap init time / pages):", "device",
         single1 + ["floor"], "memmap_init_ns", " ", "base",
         ("base", 9, lambda base, rs: per_page(base)),
         [(h, max(9, len(h))) for h in [head.get(b, b) for b in single1] + ["floor"]], per_page),
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

    one_busy = ("1 thread", 9, lambda base, rs: fmt_ms(base["median"], 2))
    blocks3 = [
        ("Whole bind on the busy host, median ms and x the bind held to one thread "
         "(the same instruments):", "size", busy, "enable_ns", "  ", "template-busy",
         one_busy, [("N threads", 14)], ms_x_base),
        (f"The kernel's part of the whole bind on the busy host, median ms and x the bind "
         f"held to one thread ({probe_what}):", "size", busy, "probe_ns", "  ",
         "template-busy", one_busy, [("N threads", 14)], ms_x_base),
    ]

    def hotplug_blocks(runs, base_run, comps):
        """Per size and hot-added device, where daxctl's command goes
        (doc["hotplug"]) for base_run and runs, each as x base_run, and
        the verdicts of comps on the onlining and the whole command."""
        hp = doc.get("hotplug") or []
        # The command, its parts, and the onlining's.
        parts = [("whole command", "enable_ns"),
                 (" daxctl, hot-add, rest", "outside_online_ns"),
                 (" onlining, online_pages()", "online_ns"),
                 ("  memmap init", "memmap_init_ns"),
                 ("  rest of onlining", "online_rest_ns")]
        names = {"online_ns": "onlining", "enable_ns": "whole command"}
        res = []
        for size in sizes:
            for d in devices:
                ent = {e["run"]: e for e in hp if (e["device"], e["size_bytes"]) == (d, size)}
                if not runs or any(r not in ent for r in [base_run] + runs):
                    continue
                base = ent[base_run]
                bname = run_name(find(results, d, size >> 20, base_run, "enable_ns"))
                res.append("")
                res += wrap(f"{d}, {human_bytes(size)}, memory hotplug: daxctl reconfigure-device "
                            f"--mode=system-ram of {base['nr_pages']} pages in {base['calls']} "
                            f"memory block(s), a memmap_init_range() in an online_pages() per "
                            f"block; median ms of the rebinds and x {bname}:")
                res.append(f"  {'part':<25} {'base':>8}  " + "  ".join(
                    f"{head.get(r, r):>14}" for r in runs))
                for label, key in parts:
                    cells = [f"{fmt_ms(base[key], 2):>8}"]
                    for r in runs:
                        v = ent[r][key]
                        x = "n/a" if base[key] <= 0 else f"{v / base[key]:.2f}x"
                        cells.append(f"{fmt_ms(v, 2):>8} {x:>5}")
                    res.append(f"  {label:<25} " + "  ".join(cells))
                verdicts = []
                for c in doc["comparisons"]:
                    if ((c["device"], c["size_bytes"]) != (d, size)
                            or (c["a"], c["b"]) not in comps or c.get("metric") not in names):
                        continue
                    a, b = (run_name(find(results, d, size >> 20, c[x], c["metric"]))
                            for x in ("a", "b"))
                    verdicts.append((f"{names[c['metric']]}, {a} vs {b}:", c["verdict"]))
                lw = max([32] + [len(lab) for lab, _ in verdicts])
                for lab, verdict in verdicts:
                    line = f"  {lab:<{lw}} {verdict}"
                    if len(line) > WIDTH:
                        res.append(f"  {lab}")
                        line = f"  {'':<32} {verdict}"
                    res.append(line)
        return res

    def tables(blocks):
        res = []
        for heading, outer, runs, metric, sep, base_run, first, cols, cell in blocks:
            if not runs or not has(metric, runs + [base_run]):
                continue
            res.append("")
            res += wrap(heading)
            res.append(f"  {'device':<{dw}} {'size':>7}{sep}" +
                       sep.join(f"{h:>{w}}" for h, w in [first[:2]] + cols))
            keys = ([(d, size) for size in sizes for d in devices] if outer == "size" else
                    [(d, size) for d in devices for size in sizes])
            for d, size in keys:
                base = find(results, d, size >> 20, base_run, metric)
                rs = [find(results, d, size >> 20, b, metric) for b in runs]
                cells = [f"{first[2](base, rs):>{first[1]}}"]
                cells += [f"{cell(r, base):>{w}}" for (_, w), r in zip(cols, rs)]
                res.append(f"  {d:<{dw}} {human_bytes(size):>7}{sep}" + sep.join(cells))
        return res

    # The notes, then a part per series: the first series' single thread
    # against base, then the follow-up's threads.
    out.append("")
    out += wrap("memmap init time in ms: median [min-max] of the rebinds, the first bind, "
                "and the median as a multiple of base and of the floor.")
    out += wrap(f"Verdicts: Welch's t-test on the rebinds at {CONFIDENCE * 100:.0f}%: the "
                "difference of the means in % of the second, +- the half-width of its "
                "confidence interval.")
    if hot_run:
        out += wrap(f"Instrument, every kernel: the function_graph tracer, in an instance of "
                    f"its own filtered to {HOTPLUG_INIT}() alone and in another to "
                    f"{ONLINE_FUNC}(), which calls it (set_ftrace_filter: entry and exit hooks, "
                    "no callee traced), each summed over the calls of daxctl's command (one "
                    "per memory block onlined); ns below 10 ms, 0.1 us below 1 s. Nothing on "
                    "that path names a backend.")
    else:
        out += wrap("Instrument, every kernel: the function_graph tracer filtered to "
                    "memmap_init_zone_device() alone (set_ftrace_filter: entry and exit hooks, "
                    "no callee traced); ns below 10 ms, 0.1 us below 1 s.")
    out += wrap("Floor: the fastest of eight movq per 64 B, memset(), rep stosq and MOVNTI "
                "writing the same pages' struct page bytes in the template guest "
                + ("(a test module)." if for_list else "(memremap_bench floor_pages=)."))
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
    if threaded:
        out.append("")
        out.append("== Part 1: the first series, one thread ==" if for_list else
                   "== Part 1: the first series (patches/), one thread ==")
        if for_list:
            out += wrap(f"Kernels: base {base_rel}; patched {first_rel or patched_rel}"
                        + ("" if first_rel else
                           ", which also carries the follow-up series, held to one thread")
                        + ".")
        else:
            out += wrap(f"Kernels: base {base_rel}, the first series {first_rel or patched_rel}"
                        + ("" if first_rel else " (with its follow-up: the same kernel as Part 2)")
                        + ".")
    if hot_run:
        # Which kernel each row is, in words.
        hk = hotplug_kernels(kern, for_list)
        out.append("")
        out += wrap("Memory hotplug, one thread (every vCPU but the first offline; no "
                    "streaming backend on this path). Rows: " + "; ".join(
                        f"{r}: {hk[r][0]}" + (f" ({hk[r][1]})" if hk[r][1] else "")
                        for r in single) + "."
                    + ("" if FIRST in single else
                       " No first series' control: one patched kernel ran every patched boot."))
    out += init_blocks(single + ["floor"], comps1, None)
    out += tables(blocks1)
    out += hotplug_blocks(single1, "base", comps1)
    out += breakdown_table(doc, devices, sizes, BREAKDOWN_GROUPS[:1] if have_cpus else None,
                           streaming=not hot_run)
    if threaded:
        out.append("")
        out.append("== Part 2: the follow-up series, N threads ==" if for_list else
                   "== Part 2: the follow-up series (patches/threads/), N threads ==")
        out += wrap(f"Kernels: one thread on {first_rel or patched_rel}, N threads on "
                    f"{patched_rel}" + ("" if first_rel else " (both series, one kernel)")
                    + (f"; base {base_rel} with every vCPU online as well" if have_cpus
                       else "") + ".")
        out += init_blocks(many, THREAD_COMPARISONS, {b: THREADED[b] for b in threaded})
        out += tables(blocks2)
        if have_cpus:
            out += breakdown_table(doc, devices, sizes, BREAKDOWN_GROUPS[1:], lead=False)
    if busy:
        out.append("")
        out.append("== Part 3: a busy host ==")
        out += wrap(f"Kernel {patched_rel}, memmap_streaming=off, every vCPU online and a nice-0 "
                    "task spinning on each vCPU but the first from before the first bind to "
                    "the last. \"one vCPU, busy host\": the binds held to the first vCPU (the "
                    "binding task, and the unbound workqueues' cpumask, which libnvdimm's "
                    "worker and its helpers follow), so the init runs on one thread where "
                    "nothing else runs; \"N threads, busy host\": not held, the helpers "
                    "sharing the busy vCPUs with the spinning tasks. The idle host's threaded "
                    "row (Part 2) for reference.")
        out += init_blocks(["template-busy", "template-threads-busy", "template-threads"],
                           BUSY_COMPARISONS, BUSY, " on the busy host")
        out += tables(blocks3)
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
        # Probes from before the copy-read cases have no such ratio.
        read = ("" if "nt_over_cached_cold_read" not in ratios else
                f", cold destination read back at once "
                f"{fmt(ratios['nt_over_cached_cold_read'])}")
        out += wrap(f"non-temporal / cached copy throughput: cold destination {fmt(cold)}, "
                    f"warm destination {fmt(warm)}{read}", "  ")
    elif "probe" in doc:
        out.append("")
        out.append("User-space store probe: not run (--no-probe).")
    long = [x for x in out if len(x) > WIDTH]
    if long:
        raise ReportError(f"table line wider than {WIDTH} columns: {long[0]!r}")
    return "\n".join(out) + "\n"


BREAKDOWN_RUNS = ["base", FIRST, "template", "template-threads"]


# With the base kernel's all-vCPU boot, two tables per device, each of
# runs with the same vCPUs online.
BREAKDOWN_GROUPS = [("one vCPU online", ["base", "template"]),
                    ("every vCPU online", [BASE_CPUS, "template-threads"])]


# Phases under this share of the enable in every run are folded into their
# parent's "rest" in the table (the JSON has them all).
BREAKDOWN_MIN_SHARE = 0.005


def breakdown_table(doc, devices, sizes, groups=None, lead=True, streaming=True):
    """The breakdown's lines at the largest size: per device, the phases as
    a tree, one column per run of BREAKDOWN_RUNS, or one table per group of
    groups (BREAKDOWN_GROUPS) when the results have base-cpus (the
    streaming runs and the other sizes are in the JSON).  lead: the
    explanation, else a line pointing to it; streaming: the run has
    streaming runs."""
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
                    "memory, is left out; "
                    + ("the streaming runs and every phase are" if streaming else
                       "every phase is") + " in the JSON.")
    for size in sizes[-1:]:
        for d in devices:
            entries = {e["run"]: e for e in bd
                       if (e["device"], e["size_bytes"]) == (d, size)}
            if BASE_CPUS in entries:
                tables = [(t, [r for r in rs if r in entries])
                          for t, rs in (groups or BREAKDOWN_GROUPS)]
            else:
                tables = [(None, [r for r in BREAKDOWN_RUNS if r in entries])]
            fn = next((r.get("function") for r in doc["results"]
                       if (r["device"], r["size_bytes"], r["metric"]) ==
                       (d, size, "memmap_init_ns") and r.get("function")),
                      "memmap_init_zone_device")
            for title, runs in tables:
                if runs:
                    out += breakdown_lines(d, size, title, runs, entries, fn)
    return out


def breakdown_lines(d, size, title, runs, entries, init_fn="memmap_init_zone_device"):
    """One device's breakdown table for runs (see breakdown_table); init_fn
    is the function of its memmap init."""
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
    # memmap init (init_fn) time, against the group's base.
    if len(runs) >= 2 and BACKEND_OF.get(runs[0], runs[0]) == "base" and enable[0]:
        for r, e, h in zip(runs[1:], enable[1:], heads[1:]):
            mi = sum(v for (r2, pth), v in val.items()
                     if r2 == r and pth.rsplit("/", 1)[-1] == init_fn)
            if mi and e > mi:
                out += wrap(f"Bound, {h.strip()}: the enable less its memmap init is "
                            f"{(e - mi) / 1e6:.2f} ms, so no faster memmap init makes this "
                            f"bind more than {enable[0] / (e - mi):.2f}x as fast as base's "
                            f"{enable[0] / 1e6:.2f} ms.", "  ")
    return out
