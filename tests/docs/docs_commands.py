#!/usr/bin/env python3
"""Checks the commands that README.md and docs/*.md show in shell blocks.

    docs_commands.py SOURCE_DIR BIN_DIR

For each command of a ```sh or ```bash block, as far as a test can run it
without the data, clusters and hours it may need:

- `build/bin/PROGRAM ...` (the `actorflow` tool with its subcommand, a
  benchmark): the program exists and answers `--help`, and every --flag
  the line names (in the command or in its trailing comment) is in that
  help;
- `python3 scripts/X.py ...`: the script answers `--help` with Debian's
  interpreter (so every module it imports is installed: README command 1
  must bring it), and its flags are in that help;
- `bash scripts/X.sh` or `scripts/X.sh`: the script exists and parses.

Anything else (a peer in another interpreter, a shell loop, output) is
listed as not checked. Exits 1 naming each line that fails.
"""

import os
import re
import shlex
import subprocess
import sys

PYTHON = "/usr/bin/python3"


def shell_lines(path):
    """Yields (line number, text) of every command line in a shell block."""
    in_block = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                in_block = not in_block and stripped[3:] in ("sh", "bash")
                continue
            if in_block and stripped and not stripped.startswith("#"):
                yield number, stripped


def split_comment(line):
    """The command and its trailing comment (after ' #')."""
    i = line.find(" #")
    return (line, "") if i < 0 else (line[:i], line[i + 2:])


def flags_of(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def run(argv, cwd):
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 1, str(e)
    return p.returncode, p.stdout + p.stderr


def help_of(argv, cwd):
    rc, out = run(argv + ["--help"], cwd)
    return out if rc == 0 else None


def check(words, comment, root, bin_dir):
    """Returns None (checked and fine), 'skip', or what is wrong."""
    if words[0] in ("/usr/bin/time", "time"):  # measured: check what runs
        words = [w for w in words[1:] if not w.startswith("-")] or ["time"]
    prog = words[0]
    if prog.startswith("build/bin/"):
        exe = os.path.join(bin_dir, prog[len("build/bin/"):])
        if not os.access(exe, os.X_OK):
            return f"{prog}: no such program"
        # The longest run of subcommand words whose --help works.
        sub = []
        for w in words[1:3]:
            if w.startswith("-") or "/" in w or "." in w or "=" in w:
                break
            sub.append(w)
        text = None
        while text is None:
            text = help_of([exe] + sub, root)
            if text is None and not sub:
                return f"{prog} --help fails"
            if text is None:
                sub.pop()
        missing = sorted(flags_of(" ".join(words) + " " + comment)
                         - flags_of(text) - {"--help"})
        if missing:
            return f"{' '.join([prog] + sub)} has no {', '.join(missing)}"
        return None
    if prog in (PYTHON, "python3") and len(words) > 1 \
            and words[1].startswith("scripts/"):
        text = help_of([PYTHON, words[1]], root)
        if text is None:
            _, out = run([PYTHON, words[1], "--help"], root)
            return f"{words[1]} --help fails: {out.strip()[-300:]}"
        missing = sorted(flags_of(" ".join(words) + " " + comment)
                         - flags_of(text) - {"--help"})
        if missing:
            return f"{words[1]} has no {', '.join(missing)}"
        return None
    script = words[1] if prog == "bash" and len(words) > 1 else prog
    if script.startswith("scripts/") and script.endswith(".sh"):
        path = os.path.join(root, script)
        if not os.path.isfile(path):
            return f"{script}: no such script"
        rc, out = run(["bash", "-n", path], root)
        return None if rc == 0 else f"{script} does not parse: {out}"
    return "skip"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, bin_dir = sys.argv[1], sys.argv[2]
    docs = ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs"))
        if f.endswith(".md"))
    checked, skipped, failures = 0, [], []
    for doc in docs:
        for number, line in shell_lines(os.path.join(root, doc)):
            command, comment = split_comment(line)
            for part in re.split(r"&&|\|\||;|\|", command):
                try:
                    words = shlex.split(part)
                except ValueError:
                    words = []
                if not words:
                    continue
                result = check(words, comment, root, bin_dir)
                where = f"{doc}:{number}"
                if result == "skip":
                    skipped.append(f"{where}: {part.strip()}")
                elif result is None:
                    checked += 1
                else:
                    failures.append(f"{where}: {result}")
    for s in skipped:
        print(f"not checked: {s}")
    for f in failures:
        print(f"FAIL {f}")
    print(f"docs_commands: {checked} commands checked, {len(skipped)} not "
          f"checked, {len(failures)} failing")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
