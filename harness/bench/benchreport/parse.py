# SPDX-License-Identifier: GPL-2.0
"""Reading one boot's output (guest/tests/bench, printed by vm.sh) into
its binds, floor samples and facts, refusing anything that would make the
numbers other than what the table says they are."""

import re
import shlex

from .lines import (BACKEND_OF, BUSY, FLOOR_RE, GUEST_WORDS, HOTPLUG, INIT_OF, KNOWN_DEVICES,
                    LINE_RE, MULTI, NDCTL_RE, NO_BACKEND, ONLINE_FUNC, PHASE_RE, RUNS,
                    THREADS_OF, ReportError)


def read_plan(path):
    """Read bench.sh's plan: a line per boot of KEY=VALUE words, shell-
    quoted: run= and out= for the host, GUEST_WORDS for the guest.  Returns
    the boots, each a dict with "run", "out", "size_mib" and "words" (the
    guest's words, as the guest prints them back), and the devices and
    rebinds, which every boot shares."""
    boots, shared = [], None
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ReportError(f"cannot read the plan {path}: {e.strerror}")
    for n, line in enumerate(lines, 1):
        where = f"plan {path}:{n}"
        try:
            words = shlex.split(line)
        except ValueError as e:
            raise ReportError(f"{where}: {e}")
        kv = dict(w.split("=", 1) for w in words if "=" in w)
        if sorted(kv) != sorted(["run", "out"] + GUEST_WORDS) or len(kv) != len(words):
            raise ReportError(f"{where}: want run= out= {'= '.join(GUEST_WORDS)}=, not {line!r}")
        run = kv["run"]
        if run not in RUNS:
            raise ReportError(f"{where}: unknown run '{run}'")
        want = (BACKEND_OF.get(run, run), THREADS_OF.get(run, "1"))
        if (kv["expect"], kv["threads"]) != want:
            raise ReportError(f"{where}: run {run} is expect={want[0]} threads={want[1]}, "
                              f"not expect={kv['expect']} threads={kv['threads']}")
        devices = kv["devices"].split("+")
        unknown = [d for d in devices if d not in KNOWN_DEVICES]
        if unknown or len(set(devices)) != len(devices):
            raise ReportError(f"{where}: devices '{kv['devices']}' unknown or twice")
        if not re.fullmatch(r"[1-9][0-9]*", kv["rebinds"]):
            raise ReportError(f"{where}: rebinds '{kv['rebinds']}' is not a number, 1 or more")
        size = int(kv["size_bytes"]) if kv["size_bytes"].isdigit() else 0
        if size <= 0 or size % (1 << 20):
            raise ReportError(f"{where}: size_bytes '{kv['size_bytes']}' is not whole MiB")
        if shared is None:
            shared = (devices, int(kv["rebinds"]))
        elif shared != (devices, int(kv["rebinds"])):
            raise ReportError(f"{where}: every boot binds the same devices as often")
        boots.append({"run": run, "out": kv["out"], "size_mib": size >> 20,
                      "words": " ".join(w for w in words if not w.startswith(("run=", "out=")))})
    if not boots:
        raise ReportError(f"the plan {path} has no boot")
    return boots, shared[0], shared[1]


def parse_run(label, path, devices, rebinds, words):
    """Read one boot's output, whose guest was given WORDS: (binds, floors,
    info)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ReportError(f"run {label}: cannot read {path}: {e.strerror}")
    binds, floors, info = {}, {}, {}
    phases, ndctl = {}, {}
    done = False
    echo = None
    for n, raw in enumerate(lines, 1):
        line = raw.strip("\r")
        if line.startswith("BENCH-ERROR"):
            raise ReportError(f"run {label}: the guest failed: {line} ({path}:{n})")
        if line.startswith("BENCH-PLAN "):
            echo = line[len("BENCH-PLAN "):].strip()
            continue
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
        if d in NO_BACKEND:
            # Nothing on this device's path names a backend (devices.txt).
            if m.group("backend") != "-":
                raise ReportError(
                    f"run {label}: {d} bind {k} names backend '{m.group('backend')}', but "
                    f"nothing on its path names one (devices.txt: BACKEND -): want "
                    f"backend=- ({path}:{n})")
        else:
            want = BACKEND_OF.get(label, label)
            if m.group("backend") != want:
                raise ReportError(
                    f"run {label}: WRONG BACKEND: {d} bind {k} used '{m.group('backend')}', "
                    f"this run must measure '{want}' ({path}:{n})")
        threads = None if m.group("threads") is None else int(m.group("threads"))
        if label in MULTI and threads is None:
            raise ReportError(
                f"run {label}: {d} bind {k} has no threads= (a guest test from before the "
                f"threaded init?): a threaded run must say how many threads ran ({path}:{n})")
        if label not in MULTI and (threads or 0) > 1:
            raise ReportError(
                f"run {label}: WRONG THREADS: {d} bind {k} ran on {threads} threads, "
                f"this run must be single-threaded ({path}:{n})")
        if d not in devices:
            raise ReportError(f"run {label}: device {d} was not asked for ({path}:{n})")
        if k in binds.setdefault(d, {}):
            raise ReportError(f"run {label}: {d} bind {k} appears twice ({path}:{n})")
        b = {key: int(m.group(key)) for key in
             ("memmap_init_ns", "enable_ns", "events", "nr_pages")}
        init = INIT_OF.get(d, "the memmap init")
        if not b["events"] or not b["nr_pages"]:
            raise ReportError(
                f"run {label}: {d} bind {k}: {init}() was not traced (events={b['events']}, "
                f"nr_pages={b['nr_pages']}): no memmap init time ({path}:{n})")
        if (m.group("online_ns") is not None) != (d in HOTPLUG):
            raise ReportError(
                f"run {label}: {d} bind {k}: " + (
                    f"no online_ns= and online_events=: a hot-add must give its "
                    f"{ONLINE_FUNC}() time" if d in HOTPLUG else
                    "online_ns= on a device that is not hot-added") + f" ({path}:{n})")
        if d in HOTPLUG:
            b["online_ns"], b["online_events"] = (int(m.group("online_ns")),
                                                  int(m.group("online_events")))
            # online_pages() calls memmap_init_range() once per block, and
            # daxctl's command holds both.
            if (b["online_events"] != b["events"] or b["online_ns"] < b["memmap_init_ns"]
                    or b["enable_ns"] < b["online_ns"]):
                raise ReportError(
                    f"run {label}: {d} bind {k}: {b['events']} {init}() call(s) of "
                    f"{b['memmap_init_ns']} ns, {b['online_events']} {ONLINE_FUNC}() call(s) "
                    f"of {b['online_ns']} ns, in a command of {b['enable_ns']} ns: want one "
                    f"of each per block, each inside the next (a trace clock off against "
                    f"the wall clock: BENCH-INFO clocksource= tsc_detected_mhz=) ({path}:{n})")
        b["tp_ns"] = None if m.group("tp_ns") == "-" else int(m.group("tp_ns"))
        b["threads"] = 1 if threads is None else threads
        binds[d][k] = b
    if echo != words:
        raise ReportError(f"run {label}: the guest ran '{echo}', the plan says '{words}' ({path})"
                          if echo else f"run {label}: no 'BENCH-PLAN' line ({path})")
    busy = label in BUSY or label in BUSY.values()
    if busy != bool(info.get("busy_cpus")):
        raise ReportError(f"run {label}: " + (
            "not a busy-host boot (no 'BENCH-INFO busy_cpus=' line: THREADS busy or busy1)"
            if busy else f"a busy-host boot (busy_cpus={info['busy_cpus']}) in an idle run")
            + f" ({path})")
    if info.get("instrument") != "function_graph":
        raise ReportError(f"run {label}: memmap init not timed by function_graph "
                          f"(BENCH-INFO instrument={info.get('instrument')}) ({path})")
    if any(d in HOTPLUG for d in devices) and info.get("hotplug_instrument") != "function_graph":
        raise ReportError(f"run {label}: memory hotplug not timed by function_graph "
                          f"(BENCH-INFO hotplug_instrument={info.get('hotplug_instrument')}) "
                          f"({path})")
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
    return binds, floors, info
