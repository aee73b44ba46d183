#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""codegen-loops.py: check the shape of the template fill loops in x86-64 code.

usage: codegen-loops.py [--asm FILE] [--words N] OBJECT FUNCTION[:KIND]...

The series' template fast path writes each struct page with the stores of
the template's words, held in registers, and nothing else.  For every
FUNCTION of OBJECT (objdump -d), this finds the loops (a jump back to an
address of the same function) whose body stores N (default 8) consecutive
words (offsets X, X + 8, ..., X + 8 * (N - 1) from one base register), and
classifies each one as "plain" (MOV stores) or "streaming" (MOVNTI).  A
fill loop is clean when its body has:

  * exactly those N stores and no other memory access (no load: the
    template is not re-read per page);
  * no call and no string instruction;
  * one conditional jump, the loop's own (no per-page test).

For each such group of N stores, the loop checked is the smallest one that
holds the whole group.  It prints one line per fill loop and fails (exit
1) when a FUNCTION has no clean plain loop, no clean streaming loop (with
:plain or :streaming, only that KIND is required), or a fill loop that is
not clean.  FUNCTION:none is a caller that must leave the copying to the
fill function: it fails on any MOVNTI, string copy or memcpy() call of
its own (the once-per-range seed copies of a template are plain stores,
which it does not count).  A FUNCTION that OBJECT does not have is an
error (exit 1): the check would otherwise pass on nothing.  With --asm FILE it reads objdump's
output from FILE instead of running objdump (the harness's tests); exit 2
on usage errors.
"""
import re
import subprocess
import sys

MEM = re.compile(r"(-?0x[0-9a-f]+|-?\d+)?\(%[a-z0-9]+(,%[a-z0-9]+(,\d)?)?\)")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
JUMP = re.compile(r"^(j[a-z]+)\s+([0-9a-f]+)\b")


def usage(msg):
    print(f"codegen-loops.py: {msg}", file=sys.stderr)
    print("usage: codegen-loops.py [--asm FILE] [--words N] OBJECT FUNCTION[:KIND]...", file=sys.stderr)
    sys.exit(2)


def functions(text):
    """{name: [(addr, insn)]} from objdump -d output."""
    out, cur = {}, None
    for line in text.splitlines():
        m = FUNC.match(line.strip())
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if not line.strip():
            cur = None
            continue
        m = INSN.match(line)
        if m and cur is not None:
            insn = re.sub(r"\s+", " ", m.group(2).split("#")[0]).strip()
            if insn:
                cur.append((int(m.group(1), 16), insn))
    return out


def operands(insn):
    """(mnemonic, [operands]) of an AT&T instruction."""
    parts = insn.split(" ", 1)
    if len(parts) == 1:
        return parts[0], []
    ops, depth, cur = [], 0, ""
    for ch in parts[1]:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    ops.append(cur.strip())
    return parts[0], ops


def classify(insn):
    """'store' (offset, base, kind), 'load', 'call', 'string', 'cjump', 'jump' or None."""
    mn, ops = operands(insn)
    if mn.startswith("call"):
        return ("call",)
    if mn.startswith("rep") or re.match(r"(movs|stos|lods|cmps|scas)[bwlq]?$", mn):
        return ("string",)
    if mn.startswith("j"):
        return ("jump",) if mn.startswith("jmp") else ("cjump",)
    if mn.startswith("lea") or mn.startswith("nop"):
        return None
    mem = [i for i, o in enumerate(ops) if MEM.search(o)]
    if not mem:
        return None
    if mn in ("mov", "movq", "movnti", "movntiq") and mem == [len(ops) - 1] and ops[0].startswith("%r"):
        m = re.match(r"(-?0x[0-9a-f]+|-?\d+)?\((%[a-z0-9]+)\)$", ops[-1])
        if m:
            off = int(m.group(1), 0) if m.group(1) else 0
            return ("store", off, m.group(2), "streaming" if mn.startswith("movnti") else "plain")
    return ("load",)


def loops(body):
    """(start index, end index) of every backward jump's loop within body."""
    index = {a: i for i, (a, _) in enumerate(body)}
    out = []
    for i, (addr, insn) in enumerate(body):
        m = JUMP.match(insn)
        if m:
            target = int(m.group(2), 16)
            if target <= addr and target in index:
                out.append((index[target], i))
    return out


def store_groups(cls, words):
    """Index lists of the store groups in cls: N stores to consecutive words
    from one base register, of one kind."""
    by_base = {}
    for i, c in enumerate(cls):
        if c and c[0] == "store":
            by_base.setdefault((c[2], c[3]), []).append(i)
    groups = []
    for (base, kind), idx in by_base.items():
        offs = {cls[i][1]: i for i in idx}
        for o in sorted(offs):
            want = range(o, o + 8 * words, 8)
            if all(x in offs for x in want):
                groups.append((kind, [offs[x] for x in want]))
    return groups


def check(funcs, names, words):
    bad = False
    for spec in names:
        name, _, want = spec.partition(":")
        kinds = {"": ["plain", "streaming"]}.get(want, [want])
        body = funcs.get(name)
        if body is None:
            print(f"FAIL {name}: not in the object", file=sys.stderr)
            bad = True
            continue
        cls = [classify(insn) for _, insn in body]
        if want == "none":
            nt = sum(1 for c in cls if c and c[0] == "store" and c[3] == "streaming")
            copy = [insn for _, insn in body
                    if re.match(r"(rep[a-z]* )?movs[bwlq]?\b", insn) or
                    re.search(r"call.*<_*memcpy", insn)]
            if nt or copy:
                print(f"FAIL {name}: {nt} MOVNTI, {len(copy)} string or memcpy() copies "
                      "of its own (the fill function must do the copying)")
                bad = True
            else:
                print(f"ok   {name}: no MOVNTI, no string or memcpy() copy of its own")
            continue
        all_loops = loops(body)
        clean = {"plain": 0, "streaming": 0}
        seen = set()
        for kind, idx in store_groups(cls, words):
            inside = [(s, e) for s, e in all_loops if s <= min(idx) and max(idx) <= e]
            if not inside:
                continue
            s, e = min(inside, key=lambda x: x[1] - x[0])
            if (s, e) in seen:
                continue
            seen.add((s, e))
            lc = cls[s:e + 1]
            stores = [c for c in lc if c and c[0] == "store"]
            problems = []
            n_load = sum(1 for c in lc if c and c[0] == "load")
            if n_load:
                problems.append(f"{n_load} load(s)")
            if any(c and c[0] == "call" for c in lc):
                problems.append("a call")
            if any(c and c[0] == "string" for c in lc):
                problems.append("a string instruction")
            if len(stores) != words:
                problems.append(f"{len(stores)} stores, not {words}")
            n_j = sum(1 for c in lc if c and c[0] in ("cjump", "jump"))
            if n_j != 1:
                problems.append(f"{n_j} jumps, not the loop's one")
            where = f"{name}+{body[s][0] - body[0][0]:#x}"
            desc = f"{kind} fill loop at {where}: {e - s + 1} instructions, {len(stores)} stores"
            if problems:
                print(f"FAIL {desc}: {', '.join(problems)}")
                for _, insn in body[s:e + 1]:
                    print(f"       {insn}")
                bad = True
            else:
                print(f"ok   {desc}, no load, no call, one jump")
                clean[kind] += 1
        for kind in kinds:
            if not clean[kind]:
                print(f"FAIL {name}: no clean {kind} fill loop of {words} word stores")
                bad = True
    return not bad


def main(argv):
    asm, words, args = None, 8, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--asm", "--words"):
            if i + 1 >= len(argv):
                usage(f"{a} needs a value")
            if a == "--asm":
                asm = argv[i + 1]
            else:
                try:
                    words = int(argv[i + 1])
                except ValueError:
                    usage(f"--words {argv[i + 1]}: not a number")
                if not 1 <= words <= 32:
                    usage(f"--words {words}: must be 1..32")
            i += 2
            continue
        if a.startswith("-"):
            usage(f"unknown option {a}")
        args.append(a)
        i += 1
    if len(args) < 2:
        usage("an object and at least one function are needed")
    obj, names = args[0], args[1:]
    for spec in names:
        if spec.partition(":")[2] not in ("", "plain", "streaming", "none"):
            usage(f"{spec}: KIND is plain, streaming or none")
    if asm is not None:
        try:
            text = open(asm).read()
        except OSError as e:
            usage(f"cannot read {asm}: {e.strerror}")
    else:
        try:
            text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], check=True,
                                  capture_output=True, text=True).stdout
        except FileNotFoundError:
            print("codegen-loops.py: objdump not found (install binutils)", file=sys.stderr)
            return 1
        except subprocess.CalledProcessError as e:
            print(f"codegen-loops.py: objdump {obj} failed: {e.stderr.strip()}", file=sys.stderr)
            return 1
    return 0 if check(functions(text), names, words) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
