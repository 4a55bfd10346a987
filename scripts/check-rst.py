#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Parse reStructuredText files with docutils; any warning is a failure.

A malformed table in docs/specs/copro.rst would otherwise only be noticed
by the next reader. Prints TAP: one line per file. A directory stands for every .rst file
under it, so a new document is checked without being listed anywhere.
"""
import io
import pathlib
import sys

import docutils.core


def check(path):
    try:
        with open(path, encoding="utf-8") as f:
            src = f.read()
    except OSError as e:
        return str(e)
    err = io.StringIO()
    docutils.core.publish_string(
        src, source_path=path, writer_name="null",
        settings_overrides={"warning_stream": err, "report_level": 2,
                            "halt_level": 5})
    return err.getvalue()


def main(paths):
    print(f"1..{len(paths)}")
    failed = 0
    for i, p in enumerate(paths, 1):
        problems = check(p)
        if problems:
            failed += 1
            print(f"not ok {i} - {p}")
            for line in problems.splitlines():
                print(f"# {line}")
        else:
            print(f"ok {i} - {p}")
    return 1 if failed else 0


def expand(args):
    paths = []
    for a in args:
        p = pathlib.Path(a)
        paths += sorted(map(str, p.rglob("*.rst"))) if p.is_dir() else [a]
    return paths


if __name__ == "__main__":
    files = expand(sys.argv[1:])
    if not files:
        print("Bail out! no .rst files in " + " ".join(sys.argv[1:]))
        sys.exit(1)
    sys.exit(main(files))
