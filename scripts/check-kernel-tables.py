#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every table of the kernel is listed in its census, with its rule.

The rule (docs/os.rst, "Quotas"): every kernel table and pool has a
per-process quota and a guarantee other processes can always use. This
check finds every array member of every struct in the kernel's headers
(firmware/kernel/*.h, and vidmm's residency tables the kernel sizes) and
fails for one that firmware/kernel/ktables.c does not list by name
("struct.member"): a table added without saying which quota charges it,
or why no process can fill it. test-kernel's /kernel/quota/tables then
checks that every listed quota really covers its table.

Usage: check-kernel-tables.py REPO_ROOT. Prints TAP.
"""
import os
import re
import sys

HEADERS = ['firmware/kernel', 'firmware/vidmm/vidmm_residency.h']
REGISTRY = 'firmware/kernel/ktables.c'


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def arrays(path):
    """(struct.member, size) of every array member of a named struct."""
    text = strip_comments(open(path).read())
    found = []
    for m in re.finditer(r'\bstruct\s+(\w+)\s*\{', text):
        name, depth, i = m.group(1), 1, m.end()
        start = i
        while depth and i < len(text):
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
        body = text[start:i - 1]
        # members at any depth (anonymous inner structs and unions are
        # the named struct's own), but not inside a nested named struct
        body = re.sub(r'\bstruct\s+\w+\s*\{', '{', body)
        for decl in re.finditer(r'(\w+)\s*\[([^\]]+)\]\s*[;,=]', body):
            found.append(('%s.%s' % (name, decl.group(1)),
                          decl.group(2).strip()))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    paths = []
    for h in HEADERS:
        p = os.path.join(root, h)
        if os.path.isdir(p):
            paths += sorted(os.path.join(p, f) for f in os.listdir(p)
                            if f.endswith('.h'))
        else:
            paths.append(p)
    registry = open(os.path.join(root, REGISTRY)).read()
    listed = set(re.findall(r'"(\w+\.\w+)"', registry))
    tables = []
    for p in paths:
        tables += [(os.path.relpath(p, root), t, n) for t, n in arrays(p)]
    print('1..%d' % (len(tables) + 1))
    failed = 0
    seen = set()
    for i, (path, table, size) in enumerate(tables, 1):
        seen.add(table)
        if table in listed:
            print('ok %d - %s[%s] (%s)' % (i, table, size, path))
        else:
            failed += 1
            print('not ok %d - %s[%s] (%s) is not in %s: say which quota '
                  'charges it, or why no process can fill it' %
                  (i, table, size, path, REGISTRY))
    # listed tables of the structs scanned must exist (the others, such
    # as vidsch's tables the kernel sizes, are not arrays of these)
    structs = set(t.split('.')[0] for _, t, _ in tables)
    stale = sorted(n for n in listed - seen if n.split('.')[0] in structs)
    if stale:
        failed += 1
        print('not ok %d - %s lists tables that do not exist: %s' %
              (len(tables) + 1, REGISTRY, ', '.join(stale)))
    else:
        print('ok %d - every listed table exists' % (len(tables) + 1))
    print('# %d passed, %d failed' % (len(tables) + 1 - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
