#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation testing of chosen source files with universalmutator.

For each file: universalmutator writes its mutants; each mutant is put in the file's place, only the
test binary that covers it is rebuilt (ninja rebuilds the one object and relinks), and only the tests
that cover it run. A mutant is
  killed      when the tests fail (or time out),
  survived    when they pass,
  equivalent  when its object file is byte for byte the original's (the compiler made the same code:
              trivial compiler equivalence; nothing a test could tell apart),
  invalid     when it does not compile.
A survivor reviewed by hand as equivalent (tests/mutate/equivalent.txt: it behaves as the original for
every input) is counted as equivalent too, and said to be.
The score is killed / (killed + survived). The original file is put back after every mutant, and on
any exit. Results go to build/mutants/<file>.txt and a table on stdout.

usage: mutate.py [--build DIR] [--minutes M] [--max-per-file N] [--only SUBSTRING]
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

# file → (test binary, gtest filter of the tests that cover it)
TARGETS = {
    "core/analysis/analysis.cpp": ("attnscope_core_tests", "Analysis.*:Roofline.*:KernelRoles.*:CostModel.*"),
    "core/analysis/op_cost.cpp": ("attnscope_core_tests", "CostModel.*:Analysis.*"),
    "core/analysis/kernel_role.cpp": ("attnscope_core_tests", "KernelRoles.*:Analysis.*"),
    "core/report/summary.cpp": ("attnscope_core_tests", "Summary.*:KernelStatsInRange.*:KernelCsv.*"),
    "core/report/diff.cpp": ("attnscope_core_tests", "Diff.*"),
    "core/io/timestamp.cpp": ("attnscope_core_tests", "Timestamp.*:JsonReader.*:BadInput.*"),
    "core/io/byte_source.cpp": ("attnscope_core_tests", "BadInput.*:JsonReader.*"),
    "core/report/ranks.cpp": ("attnscope_core_tests", "Ranks.*:OpenDocument.*:Findings.*"),
    "core/report/findings.cpp": ("attnscope_core_tests", "Findings.*:CpuOpKernels.*"),
    "core/report/findings_attention.cpp": ("attnscope_core_tests", "Findings.*:CpuOpKernels.*"),
    "core/report/findings_gpu.cpp": ("attnscope_core_tests", "Findings.*"),
    "core/report/findings_jobs.cpp": ("attnscope_core_tests", "Findings.*"),
    "core/io/nsys_reader.cpp": ("attnscope_core_tests", "NsysReader.*:BadInput.*"),
    "core/io/json_event_parser.cpp": ("attnscope_core_tests", "JsonReader.*:Counters.*:BadInput.*:TraceBuilder.*"),
    "core/io/trace_builder_links.cpp": ("attnscope_core_tests", "TraceBuilder.*:JsonReader.*:Ranks.*"),
    "core/analysis/kernel_tables.cpp": ("attnscope_core_tests",
                                        "KernelTables.*:Analysis.*:Roofline.*:Summary.*:CpuOpKernels.*:Findings.*:Diff.*"),
    "core/report/format.cpp": ("attnscope_core_tests", "Format.*:Summary.*"),
    "core/io/trace_format.cpp": ("attnscope_core_tests", "TraceFormat.*:BadInput.*:NsysReader.*"),
}

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, timeout=None, **kw):
    return subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout, **kw)


def object_of(build, source):
    """The object file ninja builds from a source, from compile_commands.json."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        for entry in json.load(f):
            if os.path.realpath(entry["file"]) == os.path.realpath(os.path.join(ROOT, source)):
                words = entry["command"].split()
                if "-o" in words:
                    return os.path.join(entry["directory"], words[words.index("-o") + 1])
    return None


def key(source, diff):
    """A mutant's identity in equivalent.txt: its file, the diff's hunk header and changed lines."""
    lines = diff.strip().splitlines()
    if not lines:
        return None
    changed = [" ".join(l.split()) for l in lines[1:] if l[:1] in "<>"]
    return (source, lines[0].strip(), tuple(changed))


def reviewed_equivalents():
    path = os.path.join(ROOT, "tests", "mutate", "equivalent.txt")
    found = set()
    block = []
    for line in open(path).read().splitlines() + [""]:
        if line.startswith("#"):
            continue
        if line.strip():
            block.append(line)
            continue
        if block:
            source, header = block[0].split(" ", 1)
            changed = tuple(" ".join(l.split()) for l in block[1:] if l[:1] in "<>")
            found.add((source, header.strip(), changed))
        block = []
    return found


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def build(build_dir, target):
    return run(["cmake", "--build", build_dir, "--target", target], timeout=600).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/dev")
    ap.add_argument("--minutes", type=float, default=float(os.environ.get("MUTATE_MINUTES", "60")))
    ap.add_argument("--max-per-file", type=int, default=int(os.environ.get("MUTATE_MAX", "60")))
    ap.add_argument("--only", default=os.environ.get("MUTATE_ONLY", ""))
    args = ap.parse_args()
    build_dir = os.path.join(ROOT, args.build)
    out_dir = os.path.join(ROOT, "build", "mutants")
    os.makedirs(out_dir, exist_ok=True)
    deadline = time.time() + 60 * args.minutes
    files = [f for f in TARGETS if args.only in f]

    current = {}  # the file being mutated and its original text, put back on any exit

    def restore(*_):
        if current:
            shutil.copyfile(current["backup"], current["path"])
            current.clear()
        if _:
            sys.exit(1)

    signal.signal(signal.SIGINT, restore)
    signal.signal(signal.SIGTERM, restore)

    equivalents = reviewed_equivalents()
    rows = []
    for source in files:
        binary, test_filter = TARGETS[source]
        path = os.path.join(ROOT, source)
        name = source.replace("/", "_")
        mutant_dir = os.path.join(out_dir, name)
        shutil.rmtree(mutant_dir, ignore_errors=True)
        os.makedirs(mutant_dir)
        backup = os.path.join(mutant_dir, "original")
        shutil.copyfile(path, backup)
        # The original's object and a passing run first: a failing baseline makes every mutant "killed".
        if not build(build_dir, binary):
            sys.exit("the original does not build: " + source)
        obj = object_of(build_dir, source)
        original = digest(obj) if obj and os.path.exists(obj) else None
        test = [os.path.join(build_dir, "tests", binary), "--gtest_filter=" + test_filter, "--gtest_brief=1"]
        base = run(test, timeout=600)
        if base.returncode != 0:
            sys.exit("the tests fail without a mutant: " + source + "\n" + base.stdout[-2000:])
        made = run([os.path.join(os.path.dirname(sys.executable), "mutate"), path, "--mutantDir", mutant_dir,
                    "--noCheck"], timeout=600)
        ext = os.path.splitext(source)[1]
        mutants = sorted(f for f in os.listdir(mutant_dir) if f.endswith(ext) and ".mutant." in f)
        mutants.sort(key=lambda f: int(f.split(".mutant.")[1].split(".")[0]))
        if args.max_per_file and len(mutants) > args.max_per_file:
            mutants = sorted(random.Random(1).sample(mutants, args.max_per_file),
                             key=lambda f: int(f.split(".mutant.")[1].split(".")[0]))
        counts = {"killed": 0, "survived": 0, "equivalent": 0, "invalid": 0, "reviewed": 0}
        survivors = []
        tried = 0
        current.update(path=path, backup=backup)
        try:
            for m in mutants:
                if time.time() > deadline:
                    break
                tried += 1
                shutil.copyfile(os.path.join(mutant_dir, m), path)
                if not build(build_dir, binary):
                    counts["invalid"] += 1
                    continue
                if original and obj and os.path.exists(obj) and digest(obj) == original:
                    counts["equivalent"] += 1
                    continue
                try:
                    killed = run(test, timeout=300).returncode != 0
                except subprocess.TimeoutExpired:
                    killed = True
                if killed:
                    counts["killed"] += 1
                    continue
                diff = run(["diff", backup, os.path.join(mutant_dir, m)]).stdout
                if key(source, diff) in equivalents:
                    counts["equivalent"] += 1
                    counts["reviewed"] += 1
                else:
                    counts["survived"] += 1
                    survivors.append((m, diff.strip()))
        finally:
            restore()
        build(build_dir, binary)  # the original's binary again
        scored = counts["killed"] + counts["survived"]
        score = 100.0 * counts["killed"] / scored if scored else 0.0
        rows.append((source, tried, len(mutants), counts, score))
        with open(os.path.join(out_dir, name + ".txt"), "w") as f:
            f.write("%s: %d of %d mutants tried; killed %d, survived %d, equivalent %d (%d reviewed), "
                    "invalid %d; score %.1f%%\n" % (source, tried, len(mutants), counts["killed"],
                                                    counts["survived"], counts["equivalent"], counts["reviewed"],
                                                    counts["invalid"], score))
            for m, diff in survivors:
                f.write("\nsurvived %s\n%s\n" % (m, diff))
        print("%s: killed %d, survived %d, equivalent %d (%d reviewed), invalid %d (%d of %d tried): %.1f%%" %
              (source, counts["killed"], counts["survived"], counts["equivalent"], counts["reviewed"],
               counts["invalid"], tried, len(mutants), score), flush=True)
        for m, diff in survivors:
            print("  survived %s: %s" % (m, " / ".join(l for l in diff.splitlines() if l[:1] in "<>")), flush=True)
        if time.time() > deadline:
            print("time budget spent; the files after this one were not mutated", flush=True)
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
