#!/usr/bin/env python3
"""Checks that every path README.md and docs/*.md name exists.

    docs_paths.py SOURCE_DIR

A path is a `backticked` word that starts with one of the tree's top
folders (core/, graph/, apps/, tests/, ...) or is an include path
(actorflow/graph/scope.hpp, which lives in graph/actorflow/graph/). It
may end in :LINE, hold a glob (*) or a {a,b} choice, or end in a /
(a folder). Paths under build/ or a run's output are not the tree's and
are not checked. Exits 1 naming each path that does not exist, with its
file and line.
"""

import glob
import itertools
import os
import re
import sys

TOP = ("core", "devices", "ops", "graph", "net", "interop", "actors", "apps",
       "python",
       "tests", "docs", "scripts", "cmake", ".ci")
CODE = re.compile(r"`([^`\s]+)`")


def candidates(text):
    """The paths a backticked word names, or none."""
    word = re.sub(r":\d+(-\d+)?$", "", text.rstrip(".,;:)"))
    first = word.split("/", 1)[0]
    if "/" not in word or (first not in TOP and first != "actorflow"):
        return []
    # {a,b} choices
    parts = re.split(r"\{([^}]*)\}", word)
    if len(parts) == 1:
        return [word]
    options = [p.split(",") if i % 2 else [p] for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*options)]


def exists(root, path):
    if first_layer := re.match(r"actorflow/([a-z]+)/", path):
        path = first_layer.group(1) + "/" + path
    full = os.path.join(root, path)
    return bool(glob.glob(full)) if "*" in path else os.path.exists(full)


def main():
    root = sys.argv[1]
    docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    missing = []
    checked = 0
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for m in CODE.finditer(line):
                    for path in candidates(m.group(1)):
                        checked += 1
                        if not exists(root, path):
                            missing.append("%s:%d: %s" % (
                                os.path.relpath(doc, root), number, path))
    for line in missing:
        print("no such path: " + line)
    print("%d paths checked, %d missing" % (checked, len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
