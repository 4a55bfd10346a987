#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the closing line of `make check` from meson's test log.

Counts every TAP subtest where meson recorded them (a qtest binary or a
firmware scenario holds many checks), and every test otherwise:

    N passed, M failed
"""
import json
import sys


def main(path):
    passed = failed = skipped = 0
    tests = failed_tests = 0
    try:
        with open(path) as f:
            lines = [json.loads(l) for l in f if l.strip()]
    except OSError as e:
        print(f"test-summary: {e}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    for t in lines:
        tests += 1
        ok = t.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
        if not ok:
            failed_tests += 1
        subs = t.get("subtests") or []
        if subs:
            for s in subs:
                r = s.get("result")
                if r == "SKIP":
                    skipped += 1
                elif r in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                else:
                    failed += 1
            if not ok and all(s.get("result") in ("OK", "SKIP") for s in subs):
                failed += 1     # e.g. a crash or timeout after the last check
        elif t.get("result") == "SKIP":
            skipped += 1
        elif ok:
            passed += 1
        else:
            failed += 1
    print(f"{tests} test programs, {failed_tests} failing; "
          f"{skipped} checks skipped")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and failed_tests == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
