#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An allocation's state has one owner: nothing writes it directly.

vidmm's struct vm_state (firmware/vidmm/vidmm_alloc.h) holds what every
move rule asks: placement, pins, CPU locks, the DMA buffers holding the
allocation resident, the paging buffer moving it. Two defects of the
first review came from code that kept or asked the wrong counter, so the
state is changed only through the vm_state_* functions in that header.
This check fails for any write to a vm_state field (an assignment,
++ or --, or taking its address) anywhere else under firmware/.

Usage: check-vidmm-owner.py REPO_ROOT. Prints TAP.
"""
import os
import re
import sys

OWNER = 'firmware/vidmm/vidmm_alloc.h'
FIELD = r'(?:\.|->)st\b(?:\.[a-z_]+\b(?:\[[^\]]*\])?)?'
WRITES = [
    re.compile(FIELD + r'\s*(?:[-+*/|&^]|<<|>>)?=(?!=)'),
    re.compile(FIELD + r'\s*(?:\+\+|--)'),
    re.compile(r'(?:\+\+|--)\s*[A-Za-z_][\w\[\]\.>-]*' + FIELD),
    re.compile(r'(?<![&\w)\]])&(?!&)\s*[A-Za-z_][\w\[\]\.>-]*'
               r'(?:\.|->)st\.[a-z_]+'),
]


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
                  text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def main():
    root = sys.argv[1]
    bad = []
    nfiles = 0
    for d, _, files in os.walk(os.path.join(root, 'firmware')):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            if rel == OWNER:
                continue
            nfiles += 1
            with open(path, encoding='utf-8') as fh:
                text = strip_comments(fh.read())
            for n, line in enumerate(text.split('\n'), 1):
                if any(w.search(line) for w in WRITES):
                    bad.append('%s:%d: %s' % (rel, n, line.strip()))
    print('1..1')
    for b in bad:
        print('# written outside its owner: ' + b)
    print('%s 1 - vm_state changed only through %s (%d files)'
          % ('not ok' if bad else 'ok', OWNER, nfiles))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
