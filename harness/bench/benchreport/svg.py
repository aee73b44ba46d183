# SPDX-License-Identifier: GPL-2.0
"""The SVG chart of the medians."""

import math
from xml.sax.saxutils import escape

from .lines import BASE_CPUS, BUSY, COLORS, INIT_OF, THREADED
from .render import human_bytes, run_name
from .stats import find, run_labels


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
    # The function the devices' memmap init times (devices.txt's INIT).
    fns = sorted({INIT_OF[d] for d in devices})
    fn = f"{fns[0]}()" if len(fns) == 1 else "memmap init"
    # The base with every vCPU online initializes the memmap as base does:
    # the chart shows the memmap init, so one base bar.
    # The busy host's runs are in the table alone.
    bars = [b for b in run_labels({r["backend"] for r in results})
            if b != BASE_CPUS and b not in BUSY and b not in BUSY.values()] + ["floor"]
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
             f'font-weight="bold">{escape(fn)}: median of {doc["rebinds"]} rebinds, '
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
    notes = [f"every kernel: function_graph on {fn} alone; "
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
