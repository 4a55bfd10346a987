#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the closing line of `make check` from meson's test log.

Each TAP test (qtest binaries, firmware scenarios, unit tests) holds many
checks; they are counted from the TAP output meson recorded. A test without
TAP output counts as one check. A test program that failed without a
failing TAP line (a crash, a timeout) adds one failure.

A sanitizer report in a test's output (AddressSanitizer, LeakSanitizer,
UndefinedBehaviorSanitizer: make check-sanitize) counts as one more failure
even if the test passed, in case the test did not notice the report.

    N passed, M failed

Before those lines, for every failing test program, its failing TAP lines
with the comments that follow them (a few lines each): CI often keeps only
the tail of the output, and the tail should say what failed.
"""
import json
import re
import sys

TAP_LINE = re.compile(r"^(not ok|ok)\b(.*)$")
# Anywhere in a line: run-firmware.sh passes QEMU's output on as "# ..."
SANITIZER_REPORT = re.compile(
    r"==\d+==ERROR: (?:Address|Leak)Sanitizer|: runtime error: ")


def sanitizer_reports(test):
    found = []
    for key in ("stdout", "stderr"):
        for line in (test.get(key) or "").splitlines():
            if SANITIZER_REPORT.search(line):
                found.append(line.strip())
    return found


def count_tap(stdout):
    passed = failed = skipped = 0
    for line in stdout.splitlines():
        m = TAP_LINE.match(line)
        if not m:
            continue
        if re.search(r"#\s*skip", m.group(2), re.I):
            skipped += 1
        elif m.group(1) == "ok" or re.search(r"#\s*todo", m.group(2), re.I):
            passed += 1
        else:
            failed += 1
    return passed, failed, skipped


def failure_digest(test, limit=12):
    """The failing TAP lines of TEST and the '#' comments after each."""
    lines = (test.get("stdout") or "").splitlines()
    out = []
    for i, line in enumerate(lines):
        m = TAP_LINE.match(line)
        if not m or m.group(1) != "not ok" or \
                re.search(r"#\s*(todo|skip)", m.group(2), re.I):
            continue
        out.append(line)
        for follow in lines[i + 1:i + 6]:
            if not follow.startswith("#"):
                break
            out.append(follow)
    if not out:
        # a crash, a timeout, a bail out: a sanitizer's report and the top
        # of its stack if there is one, else the end of what it printed
        printed = [line for line in lines + (test.get("stderr") or "")
                   .splitlines() if line.strip()]
        out = [line for line in printed
               if SANITIZER_REPORT.search(line) or
               re.match(r"\s*#[0-3] ", line) or
               re.match(r"\s*(not ok|Bail out!)", line)][:8] or printed[-6:]
    return out[:limit]


def main(path):
    passed = failed = skipped = 0
    programs = failing = 0
    try:
        with open(path) as f:
            tests = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        print(f"test-summary: {e}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    for t in tests:
        programs += 1
        ok = t.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
        p, f, s = count_tap(t.get("stdout") or "")
        if p + f + s == 0:
            if t.get("result") == "SKIP":
                s = 1
            elif ok:
                p = 1
        if not ok:
            failing += 1
            f = max(f, 1)
            print(f"failed: {t.get('name')} ({t.get('result')})")
            for line in failure_digest(t):
                print(f"  {line}")
        reports = sanitizer_reports(t)
        for line in reports[:3]:
            print(f"sanitizer: {t.get('name')}: {line}")
        if reports and ok:
            failing += 1
        f += len(reports)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    print(f"{programs} test programs, {failing} failing, "
          f"{skipped} checks skipped")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and failing == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
