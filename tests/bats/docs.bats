#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the documentation: README.md, docs/ and results/README.md.
# They read the project's files and write nothing.
#
#   bats tests/bats/docs.bats

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

@test "docs: every relative link and every named repository file exists" {
	# Markdown links [text](path) and `harness/...`, `docs/...`,
	# `results/...` paths in backquotes; brace and glob patterns must
	# match at least one file.
	python3 - "$ROOT" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
sys.path.insert(0, f"{root}/tests/bats")
from docs_lib import expand
docs = ["README.md", "results/README.md"] + sorted(
    os.path.relpath(p, root) for p in glob.glob(f"{root}/docs/*.md"))
bad = []
for d in docs:
    text = open(f"{root}/{d}").read()
    base = os.path.dirname(d)
    for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in link:
            continue
        if not os.path.exists(os.path.normpath(f"{root}/{base}/{link}")):
            bad.append((d, link))
    for path in re.findall(r"`((?:harness|docs|results|patches|guest|tests|Kconfig\.fragments)/[^`\s]*)`", text):
        path = path.rstrip(".,")
        if d == "results/README.md" and not path.startswith(("harness/", "docs/", "tests/")):
            continue  # its own table names its files relative to results/
        for p in expand(path):
            if not glob.glob(f"{root}/{p}"):
                bad.append((d, p))
assert not bad, bad
print(len(docs), "files")
PY
}

@test "results/: every file is in results/README.md's table, and the table names no missing file" {
	python3 - "$ROOT" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
sys.path.insert(0, f"{root}/tests/bats")
from docs_lib import expand
text = open(f"{root}/results/README.md").read()
rows = [l for l in text.splitlines() if l.startswith("| `")]
named = set()
missing = []
for row in rows:
    cell = row.split("|")[1]
    prev = None
    for name in re.findall(r"`([^`]+)`", cell):
        if name.startswith("."):  # `x.json`, `.txt`: x.txt
            name = prev.rsplit(".", 1)[0] + name
        prev = name
        for p in expand(name):
            hits = glob.glob(f"{root}/results/{p}") + glob.glob(f"{root}/results/{p}.*")
            if not hits:
                missing.append(p)
            named.update(os.path.basename(h) for h in hits)
files = {f for f in os.listdir(f"{root}/results") if f != "README.md"}
assert not missing, ("named in the table, not in results/", missing)
assert files <= named, ("in results/, not in the table", sorted(files - named))
print(len(files), "files")
PY
}

@test "results/: at most 20,000 lines, the benchmark JSON one record a line" {
	n=$(cat "$ROOT"/results/* | wc -l)
	[ "$n" -le 20000 ] || { echo "results/ has $n lines: summarise or move runs to git history (results/README.md)"; false; }
	# A run's binds, one line each: no line of a benchmark JSON is a
	# bare number, as indent=2 writes every sample.
	bare=$(grep -lE '^ *-?[0-9][0-9.]*,?$' "$ROOT"/results/bench-*.json || true)
	[ -z "$bare" ] || { echo "one number a line in: $bare"; false; }
}

@test "results/: every results file the cover letters name exists" {
	python3 - "$ROOT" <<'PY'
import glob, re, sys
root = sys.argv[1]
bad = []
for f in glob.glob(f"{root}/patches/**/0000-cover-letter.patch", recursive=True):
    text = re.sub(r"\n\s*", " ", open(f).read())
    for p in re.findall(r"results/([A-Za-z0-9_.*{},-]+[A-Za-z0-9*])", text):
        if not glob.glob(f"{root}/results/{p}") and not glob.glob(f"{root}/results/{p}.*"):
            bad.append((f, p))
assert not bad, bad
PY
}

@test "docs/matrix.md: its cell table is harness/matrix/matrix-cells.txt, row for row" {
	python3 - "$ROOT" <<'PY'
import re, sys
root = sys.argv[1]
want = []
for line in open(f"{root}/harness/matrix/matrix-cells.txt"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    c, says, app, runs, vm, nd, chk, dbg = line.split("\t")
    want.append([c, app, runs, vm, nd, chk, dbg])
doc = open(f"{root}/docs/matrix.md").read()
i = doc.index("| cell | kernel command line |")
got = []
for line in doc[i:].splitlines()[2:]:
    if not line.startswith("|"):
        break
    cells = [x.strip().strip("`") for x in line.strip("|").split("|")]
    cells[5] = cells[5].replace(", ", ",")
    cells[6] = cells[6].replace(", ", ",")
    got.append(cells)
assert got == want, (got, want)
print(len(got), "cells")
PY
}

@test "docs: the harness table in docs/developing.md lists every file of every harness folder" {
	python3 - "$ROOT" <<'PY'
import subprocess, sys
root = sys.argv[1]
sys.path.insert(0, f"{root}/tests/bats")
from docs_lib import harness_floors
doc = harness_floors(root)
tracked = subprocess.check_output(["git", "-C", root, "ls-files", "harness"], text=True).split()
real = {}
for path in tracked:
    parts = path.split("/")
    if len(parts) == 2:
        real.setdefault("harness", set()).add(parts[1])
    else:  # a floor's file, or the folder holding it
        real.setdefault("/".join(parts[:2]), set()).add(parts[2] + ("/" if len(parts) > 3 else ""))
assert doc == real, {"in the table only": {k: sorted(doc.get(k, set()) - real.get(k, set())) for k in set(doc) | set(real)},
                     "in harness/ only": {k: sorted(real.get(k, set()) - doc.get(k, set())) for k in set(doc) | set(real)}}
print(sorted(doc))
PY
}

@test "patches/: every harness script the cover letters name exists" {
	python3 - "$ROOT" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
bad = []
for f in glob.glob(f"{root}/patches/**/0000-cover-letter.patch", recursive=True):
    for p in re.findall(r"harness/[A-Za-z0-9_./-]*[A-Za-z0-9_]", open(f).read()):
        if not os.path.exists(f"{root}/{p}"):
            bad.append((os.path.relpath(f, root), p))
assert not bad, bad
PY
}
