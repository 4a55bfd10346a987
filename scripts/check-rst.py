#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Parse reStructuredText files with docutils; any warning is a failure.

A malformed table in docs/specs/copro.rst would otherwise only be noticed
by the next reader. Prints TAP: one line per file.
"""
import io
import sys

import docutils.core


def check(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
