#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""README.md's examples, run as a user runs them.

Every command in README.md's command blocks is run here, in the order the README gives, in a folder that
holds the files the examples name (the shared fixtures under the names the README uses), or it is named in
NOT_RUN with the reason and what checks it instead. What the README shows a command printing is compared
with what it prints: line by line, a line holding only "…" standing for any lines and "…" within a line
for any text; a Markdown table right after a block is how the README shows the start of what the block's
last command prints. Outputs of the fixtures must match exactly; outputs of runs made here (times that vary)
match with each number as a number of the same kind (a time, a size, a share). The synopsis block is
`attnscope --help`'s usage, and every option a verb's --help lists is explained in the README's prose.

A README command that fails, prints otherwise, or is neither run nor named in NOT_RUN fails the test.

usage: readme_examples.py --repo DIR --attnscope BIN --shared DIR --group NAME
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# The files the README's examples name, as links to the shared fixtures (a user's own files, here).
README_FILES = {
    "rank0.json": "fixtures/traces/dlrm_2ranks/rank0.json",
    "rank1.json": "fixtures/traces/dlrm_2ranks/rank1.json",
    "dlrm_2ranks": "fixtures/traces/dlrm_2ranks",
    "h100_sdpa_flash_qwen.json.gz": "fixtures/traces/h100_sdpa_flash_qwen.json.gz",
    "report1.sqlite": "fixtures/traces/nsys_2025_pytorch_h200.sqlite",
}

# Which test runs each section's commands (one folder per test: a section's commands may use the files an
# earlier section of the same test made).
GROUPS = {
    "Set up (Debian 12)": "setup",
    "As a package": "setup",
    "Command line": "command_line",
    "PyTorch's attention, live": "pytorch",
    "The post's experiment, re-run": "post",
    "Variants side by side: guess first, then look": "post",
    "Your own program: `attnscope profile`": "profile",
    "Performance and checks": "setup",
    "GPU": "setup",
}

# Commands of the README that this test does not run, and why (what runs them instead).
NOT_RUN = {
    "make test": "this test is part of it",
    "make package": "a release build and a .deb: Packaging.DebHoldsTheDesktopIntegration builds and checks the "
    "package; `make install-check` installs it on a clean Debian (root, debootstrap)",
    "sudo apt install ./build/release/attnscope_0.1.0_amd64.deb": "root: `make install-check` runs it in a chroot",
    "make bench": "benchmarks take tens of minutes in a release build; their numbers are in docs/PERFORMANCE.md",
    "make asan-test": "a second sanitizer build of the GUI; `make test` runs the core and reader tests under "
    "ASan + UBSan",
    "make fuzz FUZZ_SECONDS=1800": "half an hour of fuzzing by design",
    "make mutate": "an hour of mutation testing by design (docs/TESTING.md)",
    "make bench-torch": "a benchmark (docs/PERFORMANCE.md)",
    "tests/gpu/check.sh": "needs an NVIDIA GPU; without one the CUDA tests are skipped with the driver's reason",
    "build/gpu/attnscope_bench_attention_gpu": "needs an NVIDIA GPU (made by tests/gpu/check.sh)",
}

# Commands run otherwise than as written, and why.
VERBS = ["summary", "diff", "compare", "convert", "export", "report", "run", "profile", "job"]
RUN_AS = {
    # What `make run` starts once built (the build is this test's own); with no display it prints.
    "make run": ["attnscope"],
    "attnscope --version | version": ["attnscope --version", "attnscope version"],
    "attnscope --help | VERB --help": ["attnscope --help"] + [f"attnscope {v} --help" for v in VERBS],
}
# Commands that open the window: run on the offscreen platform with a screenshot, which must be written.
WINDOW = re.compile(r"^(build/)?attnscope (--job |profile (?!--help)(?!(.*\s)?-o\s))")

EXACT = {  # outputs of the fixtures: every figure as shown
    "build/attnscope summary --top 2 ../shared/fixtures/traces/h100_sdpa_flash_qwen.json.gz",
    "build/attnscope summary --ranks dlrm_2ranks/rank0.json dlrm_2ranks/rank1.json",
    "build/attnscope summary --findings-only dlrm_2ranks/rank0.json",
    "build/attnscope job --map dlrm_2ranks/rank*.json --workers 2 --records records/ --parquet job.parquet",
}


class Block:
    def __init__(self, section, kind, line):
        self.section, self.kind, self.line, self.lines = section, kind, line, []
        self.table = []  # a Markdown table right after the block: what its last command prints, rendered


def read_blocks(readme):
    blocks, section, block = [], "", None
    lines = readme.read_text().split("\n")
    for n, line in enumerate(lines, 1):
        if block is None and line.startswith("#"):
            section = line.lstrip("#").strip()
        if line.startswith("```"):
            if block is None:
                block = Block(section, line[3:].strip(), n + 1)
            else:
                after = n
                while after < len(lines) and not lines[after].strip():
                    after += 1
                while after < len(lines) and lines[after].startswith("|"):
                    block.table.append(lines[after])
                    after += 1
                blocks.append(block)
                block = None
        elif block is not None:
            block.lines.append(line)
    return blocks


def is_synopsis(block):
    return block.section == "Command line" and block.kind == "sh"


def commands(block):
    """(command, shown output lines) in the block's order. In `text` blocks a command is a `$ ` line and the
    lines under it its output; in `sh` blocks each line not indented is a command, its `# ` comment left."""
    out = []
    if block.kind == "text":
        for line in block.lines:
            if line.startswith("$ "):
                out.append([strip_comment(line[2:]), []])
            elif out:
                out[-1][1].append(line)
        if out and not any(line.strip() for line in out[-1][1]) and block.table:
            out[-1][1] = block.table + ["…"]  # the table's start, rendered: the lines after it not shown
    elif block.kind == "sh":
        for line in block.lines:
            if line.strip() and not line.startswith(" ") and not line.startswith("#"):
                out.append([strip_comment(line), []])
    return out


def strip_comment(command):
    # A comment is `#` after two spaces (shell comments in the README are set apart so).
    return re.split(r"\s{2,}#|\s+# ", command, maxsplit=1)[0].strip()


NUMBER = r"[-+]?\d+(?:[.,]\d+)*"
UNIT_KINDS = [r"(?:ns|µs|ms|s)", r"(?:B|kB|MB|GB|TB)"]
TOKEN = re.compile(
    r"(?P<ell>…)|(?P<ws>\s+)|(?<![\w.])(?P<num>" + NUMBER + r")(?P<unit>\s(?:ns|µs|ms|s|B|kB|MB|GB|TB)(?![\w]))?"
)


# A list of named shares ("softmax 54%, QKᵀ GEMM 20%, copy 10%"): in a run made here which names it holds and
# in which order follow the times measured, so any such list stands for another.
SHARE = r"(?:\d+ more|[A-Za-zᵀ]+(?: [A-Za-zᵀ]+)*) <?\d+(?:\.\d+)?%"  # "<1%": there, under half a percent
SHARES = SHARE + r"(?:, " + SHARE + r")*"
# A finding's severity follows its share of the time, measured: any severity stands for another.
SEVERITY = r"(?:info|warning|critical)"


ROOFS_MEASURED = "attnscope: measured this machine's CPU roofs"


def line_pattern(shown, exact):
    """A regular expression for one shown line: `…` any text; when not exact, each number any number and
    its unit any unit of the same kind, a list of named shares any such list, a severity any severity, and runs of spaces any run
    (columns widen with their numbers)."""
    out = []
    pieces = [shown] if exact else re.split("(" + SHARES + r"|(?<!\w)" + SEVERITY + r"(?!\w))", shown)
    for k, piece in enumerate(pieces):
        if k % 2:
            out.append(SEVERITY if re.fullmatch(SEVERITY, piece) else SHARES)
            continue
        at = 0
        for m in TOKEN.finditer(piece):
            out.append(re.escape(piece[at:m.start()]))
            at = m.end()
            if m.group("ell"):
                out.append(".*?")
            elif m.group("ws"):
                out.append(re.escape(m.group("ws")) if exact else (r"\s*" if k == 0 and m.start() == 0 else r"\s+"))
            elif exact:
                out.append(re.escape(m.group(0)))
            else:
                out.append(NUMBER)
                unit = m.group("unit")
                if unit:
                    kind = next(k for k in UNIT_KINDS if re.fullmatch(k, unit.strip()))
                    out.append(r"\s" + kind)
        out.append(re.escape(piece[at:]))
    return re.compile("".join(out) + r"\s*$")


def compare(shown, printed, exact):
    """Problems (empty: it prints what the README shows)."""
    while shown and not shown[-1].strip():
        shown = shown[:-1]
    if not shown:
        return []  # the README shows no output: the exit status is what counts
    # The line saying this CPU's roofs were measured comes the first time (or again when the machine was busy
    # then, as beside other tests): it is no example's output.
    lines = [line for line in printed.rstrip("\n").split("\n") if not line.startswith(ROOFS_MEASURED)]
    segments, current = [], []
    for s in shown:
        if s.strip() == "…":
            segments.append(current)
            current = []
        else:
            current.append(s)
    segments.append(current)
    at = 0
    for i, segment in enumerate(segments):
        if not segment:
            continue
        patterns = [line_pattern(s, exact) for s in segment]
        anchored = i == 0
        found = None
        for start in [at] if anchored else range(at, len(lines) - len(segment) + 1):
            if start + len(segment) <= len(lines) and all(
                p.match(lines[start + k]) for k, p in enumerate(patterns)
            ):
                found = start
                break
        if found is None:
            missing = closest(patterns, lines, at)
            if missing is None:
                return ["the README shows these lines one under another; each is printed, but not so (a … "
                        "line between them says lines are left out):\n    " + "\n    ".join(segment)]
            return [f"the README shows\n    {segment[missing[0]]}\n  and it printed no such line"
                    + (f" (nearest: {missing[1]!r})" if missing[1] else "")]
        at = found + len(segment)
    if segments[-1] and at != len(lines):
        return [f"it printed more than the README shows (no … at the end): {lines[at]!r}"]
    return []


def closest(patterns, lines, at):
    """The first shown line no printed line matches and the printed line most like it; None when each matches."""
    for k, p in enumerate(patterns):
        if not any(p.match(line) for line in lines[at:]):
            words = set(re.findall(r"[A-Za-z_]{3,}", p.pattern))
            scored = sorted(lines[at:], key=lambda line: -len(words & set(re.findall(r"[A-Za-z_]{3,}", line))))
            return k, scored[0] if scored else ""
    return None


def prepare(folder, repo, attnscope, shared):
    (folder / "bin").mkdir()
    (folder / "bin" / "attnscope").symlink_to(attnscope)
    (folder / "build").mkdir()
    (folder / "build" / "attnscope").symlink_to(attnscope)
    (folder / "build" / "torch-venv").symlink_to(repo / "build" / "torch-venv")
    (folder / "examples").symlink_to(repo / "examples")
    work = folder / "work"
    work.mkdir()
    for name in ("build", "examples"):
        (work / name).symlink_to(folder / name)
    (folder / "shared").symlink_to(shared)  # ../shared from the work folder, as beside the repository
    for name, target in README_FILES.items():
        (work / name).symlink_to(shared / target)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "ATTNSCOPE_PYTHON")}
    env["HOME"] = str(folder / "home")
    (folder / "home").mkdir()
    for xdg in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        # The config home where a user's is (~/.config), so the files it names read as the README shows.
        path = folder / "home" / ".config" if xdg == "XDG_CONFIG_HOME" else folder / xdg.lower()
        path.mkdir(mode=0o700)
        env[xdg] = str(path)
    env["PATH"] = str(folder / "bin") + ":" + env.get("PATH", "/usr/bin:/bin")
    env.pop("QT_QPA_PLATFORM", None)  # no display: the headless path, as on a server
    # A machine AttnScope has run on before: this CPU's roofs measured and cached (the first time, a CPU
    # trace's summary measures them and says so in a line of its own, which no example shows; when other
    # work holds the cores, they are measured again later and the line is left out of the comparison).
    first = folder / "first.json"
    for command in (["run", "--seq", "128", "--warmup", "0", "--iters", "1", "-o", str(first)], ["summary", str(first)]):
        subprocess.run([str(attnscope)] + command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, timeout=300)
    return work, env


def run(command, work, env):
    screenshot = None
    if WINDOW.match(command):
        screenshot = work / f"window-{abs(hash(command))}.png"
        verb = command.split()[1] if command.split()[1] == "profile" else None
        if verb:
            command = command.replace(" profile ", f" profile --screenshot {screenshot} ", 1)
        else:
            command = f"{command} --screenshot {screenshot}"
        env = dict(env, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run(["bash", "-ec", command], cwd=work, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    problems = [] if p.returncode == 0 else [f"exit status {p.returncode}"]
    if screenshot and not (screenshot.exists() and screenshot.stat().st_size > 0):
        problems.append(f"the window's screenshot {screenshot.name} was not written")
    return p.stdout, problems


def check_synopsis(blocks, attnscope):
    """The README's synopsis is --help's usage; each option of each verb's --help is explained in its prose."""
    problems = []
    synopsis = next(b for b in blocks if is_synopsis(b))
    help_text = subprocess.run([str(attnscope), "--help"], capture_output=True, text=True).stdout
    usage = [re.sub(r"^  \S*attnscope", "attnscope", line).rstrip() for line in help_text.split("\n")
             if re.match(r"^  \S*attnscope|^         ", line)]
    shown = [line.split("  #")[0].rstrip() for line in synopsis.lines]
    shown = [line for line in shown if line.strip()]
    norm = lambda lines: [" ".join(line.split()) for line in lines]
    if norm(shown) != norm(usage):
        problems.append("the README's synopsis is not --help's usage:\n  README:\n    " + "\n    ".join(shown)
                        + "\n  --help:\n    " + "\n    ".join(usage))
    readme_lines = (Path(args.repo) / "README.md").read_text().split("\n")
    prose = "\n".join(readme_lines[:synopsis.line - 1] + readme_lines[synopsis.line + len(synopsis.lines):])
    for verb in VERBS:
        verb_help = subprocess.run([str(attnscope), verb, "--help"], capture_output=True, text=True).stdout
        for option in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", verb_help))):
            if option != "--help" and not re.search(re.escape(option) + r"(?![a-z-])", prose):
                problems.append(f"`{verb} {option}` is in --help but the README's prose never explains it")
    return problems


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--attnscope", required=True)
    parser.add_argument("--shared", required=True)
    parser.add_argument("--group", required=True, choices=sorted(set(GROUPS.values())))
    args = parser.parse_args()
    repo, attnscope, shared = Path(args.repo).resolve(), Path(args.attnscope).resolve(), Path(args.shared).resolve()
    blocks = read_blocks(repo / "README.md")
    failures = []
    for block in blocks:
        if commands(block) and block.section not in GROUPS and not is_synopsis(block):
            failures.append(f"README line {block.line}: section '{block.section}' has commands no test runs")
    ran = 0
    with tempfile.TemporaryDirectory(prefix="attnscope-readme-") as tmp:
        work, env = prepare(Path(tmp), repo, attnscope, shared)
        if args.group == "command_line":
            failures += check_synopsis(blocks, attnscope)
        for block in blocks:
            if GROUPS.get(block.section) != args.group or is_synopsis(block):
                continue
            for command, shown in commands(block):
                if command in NOT_RUN:
                    print(f"not run: {command}: {NOT_RUN[command]}")
                    continue
                for actual in RUN_AS.get(command, [command]):
                    print(f"$ {actual}", flush=True)
                    printed, problems = run(actual, work, env)
                    problems += compare(shown, printed, command in EXACT)
                    ran += 1
                    if problems:
                        failures.append(f"README line {block.line}: `{actual}`:\n  " + "\n  ".join(problems)
                                        + "\n  it printed:\n    " + "\n    ".join(printed.rstrip().split("\n")[:60]))
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    print(f"{ran} README commands run in '{args.group}', {len(failures)} failed")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
