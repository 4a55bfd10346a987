#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Turn recorded qtest traffic into seed inputs for generic-fuzz-copro.

    fuzz-seeds.py OUTDIR LOG...

Each LOG is the standard error of a copro qtest program run with
QTEST_LOG=1: QEMU writes every qtest command it receives as
"[R +time] command args", between "[I ...] OPENED" and "[I +...] CLOSED"
for each QEMU the test starts. Every such session becomes one seed file in
OUTDIR (named by its SHA-1, as libFuzzer names corpus files), written in
the input format of QEMU's tests/qtest/fuzz/generic_fuzz.c: operations
separated by "FUZZ", each an opcode byte and the C struct that op_*()
memcpy()s, padding included.

The fuzzer maps the device's BARs itself, so the seeds name places as
(memory region index, offset), not addresses: the test's own BAR
assignments are followed in its configuration-space writes, and its
accesses to copro's BARs are translated. Region indices follow the order
of generic-fuzz's flat-view walk, that is ascending guest address, which
for libqos's allocator is BAR order: 0 registers (BAR0), 1 queue
doorbells (BAR1, hwsched=on: the configuration's default), 2 VRAM (BAR2),
3 MSI-X table and 4 MSI-X PBA (BAR4).

Left out, because the fuzzer cannot replay them or does them itself: BAR
and guest-RAM writes (guest RAM is filled from DMA patterns), reads of
VRAM, other devices' traffic. Kept: register and MSI-X accesses, VRAM
writes (as 8-byte writes of the non-zero words: VRAM is zero at the start
of every input), copro's configuration-space writes, and time (each
clock_step or clock_set becomes a few steps to the next timer deadline). Seeds are cut
at --max-len bytes, the fuzzer's -max_len.
"""
import argparse
import base64
import hashlib
import os
import re
import struct
import sys

SEP = b"FUZZ"
OP_READ, OP_WRITE, OP_PCI_WRITE, OP_CLOCK_STEP = 2, 3, 5, 9
REG_MMIO, REG_DOORBELL, REG_VRAM, REG_MSIX_TABLE, REG_MSIX_PBA = 0, 1, 2, 3, 4
SIZES = {"b": 0, "w": 1, "l": 2, "q": 3}
SIZE_BYTES = {"b": 1, "w": 2, "l": 4, "q": 8}

COPRO_DEVFN = 4 << 3            # tests/qtest/copro-qtest.h: COPRO_SLOT 4
MMIO_SIZE = 0x10000             # COPRO_MMIO_SIZE
DOORBELL_SIZE = 64 * 4096       # COPRO_DOORBELL_BAR_SIZE
MSIX_BAR_SIZE = 0x1000          # msix_init_exclusive_bar: one page,
MSIX_PBA_OFFSET = 0x800         # table in the first half, PBA in the second
VRAM_MAX = 1 << 32
MAX_QUADS_PER_WRITE = 64        # bulk data: its content rarely steers code
NS_PER_STEP = 10000             # one step to the next deadline per 10 us

LINE = re.compile(r"^\[R \+[0-9.]+\] (\S+)(.*)$")
REPLY = re.compile(r"^\[S \+[0-9.]+\] (.*)$")


class Session:
    def __init__(self):
        self.ops = []
        self.cf8 = 0
        self.bars = {}          # BAR register offset -> last value written
        self.vram_nonzero = set()   # 8-byte words of VRAM the test set
        self.last_read = None
        self.clock = 0              # QEMU's virtual clock, from its replies
        self.pending_clock = False

    def bar(self, n):
        lo = self.bars.get(0x10 + 4 * n)
        if lo is None or lo == 0xffffffff or lo == 0xfffffff0:
            return None
        base = lo & ~0xf
        if lo & 0x4:            # 64-bit BAR: the high half follows
            hi = self.bars.get(0x14 + 4 * n, 0)
            if hi == 0xffffffff:
                return None
            base |= hi << 32
        return base

    def locate(self, addr):
        """(region, offset) of a guest address in copro's BARs, or None."""
        b0, b1, b2, b4 = self.bar(0), self.bar(1), self.bar(2), self.bar(4)
        if b0 is not None and b0 <= addr < b0 + MMIO_SIZE:
            return REG_MMIO, addr - b0
        if b1 is not None and b1 <= addr < b1 + DOORBELL_SIZE:
            return REG_DOORBELL, addr - b1
        if b4 is not None and b4 <= addr < b4 + MSIX_BAR_SIZE:
            off = addr - b4
            if off < MSIX_PBA_OFFSET:
                return REG_MSIX_TABLE, off
            return REG_MSIX_PBA, off - MSIX_PBA_OFFSET
        if b2 is not None and b2 <= addr < b2 + VRAM_MAX:
            return REG_VRAM, addr - b2
        return None

    def emit(self, op, payload=b""):
        data = bytes([op]) + payload
        if SEP in data:
            return              # would be split by the fuzzer: drop it
        self.ops.append(data)

    def write(self, region, off, size, val):
        self.emit(OP_WRITE, struct.pack("<BBxxIQ", SIZES[size], region, off,
                                        val))
        self.last_read = None

    def read(self, region, off, size):
        key = (region, off, size)
        if key == self.last_read:
            return              # a polling loop: one read is enough
        self.last_read = key
        self.emit(OP_READ, struct.pack("<BBxxI", SIZES[size], region, off))

    def vram_bytes(self, off, data):
        quads = 0
        for i in range(0, len(data), 8):
            word = data[i:i + 8]
            word_off = off + i
            nonzero = any(word)
            if not nonzero and word_off not in self.vram_nonzero:
                continue
            if nonzero:
                self.vram_nonzero.add(word_off)
            else:
                self.vram_nonzero.discard(word_off)
            if quads >= MAX_QUADS_PER_WRITE:
                continue
            quads += 1
            if len(word) == 8:
                self.write(REG_VRAM, word_off, "q", struct.unpack("<Q", word)[0])
            else:
                for j, byte in enumerate(word):
                    self.write(REG_VRAM, word_off + j, "b", byte)

    def config_write(self, port, size, val):
        if not self.cf8 & 0x80000000:
            return
        bus = (self.cf8 >> 16) & 0xff
        devfn = (self.cf8 >> 8) & 0xff
        if bus != 0 or devfn != COPRO_DEVFN:
            return
        off = (self.cf8 & 0xff) | (port & 3)    # as QEMU's pci_host does
        if 0x10 <= off < 0x28:
            # BAR assignment: followed here, done by the fuzzer itself
            self.bars[off & ~3] = val
            return
        psize = {"b": 0, "w": 1, "l": 2}[size]
        self.emit(OP_PCI_WRITE, struct.pack("<BBBxI", psize, 0, off, val))

    def command(self, cmd, args):
        if cmd[:-1] in ("write", "read") and cmd[-1] in SIZES:
            addr = int(args[0], 0)
            loc = self.locate(addr)
            if loc is None:
                return
            region, off = loc
            if cmd.startswith("write"):
                self.write(region, off, cmd[-1], int(args[1], 0))
            elif region != REG_VRAM:
                self.read(region, off, cmd[-1])
        elif cmd in ("outb", "outw", "outl"):
            port, val = int(args[0], 0), int(args[1], 0)
            if port == 0xcf8 and cmd == "outl":
                self.cf8 = val
            elif 0xcfc <= port < 0xd00:
                self.config_write(port, cmd[-1], val)
        elif cmd in ("write", "b64write", "memset"):
            addr, size = int(args[0], 0), int(args[1], 0)
            loc = self.locate(addr)
            if loc is None:
                return
            if cmd == "write":
                data = bytes.fromhex(args[2][2:])[:size]
            elif cmd == "b64write":
                data = base64.b64decode(args[2])[:size]
            else:
                data = bytes([int(args[2], 0) & 0xff]) * size
            region, off = loc
            if region == REG_VRAM:
                self.vram_bytes(off, data)
            elif len(data) in (1, 2, 4, 8):
                # libqos reaches memory BARs with "write", not "writel"
                size = {1: "b", 2: "w", 4: "l", 8: "q"}[len(data)]
                self.write(region, off, size, int.from_bytes(data, "little"))
        elif cmd == "read":
            addr, size = int(args[0], 0), int(args[1], 0)
            loc = self.locate(addr)
            if loc is not None and loc[0] != REG_VRAM and size in (1, 2, 4, 8):
                self.read(loc[0], loc[1], {1: "b", 2: "w", 4: "l", 8: "q"}[size])
        elif cmd in ("clock_step", "clock_set"):
            # The fuzzer only steps to the next timer deadline: a few such
            # steps stand for the time the test let pass.
            if cmd == "clock_set":
                ns = int(args[0], 0) - self.clock
            else:
                ns = int(args[0], 0) if args else NS_PER_STEP
            steps = max(1, min(8, -(-ns // NS_PER_STEP)))
            for _ in range(steps):
                self.emit(OP_CLOCK_STEP)
            self.last_read = None
            self.pending_clock = True

    def response(self, words):
        """A reply of QEMU: after a clock command, the new virtual time."""
        if self.pending_clock and len(words) >= 2 and words[0] == "OK":
            self.clock = int(words[1], 0)
        self.pending_clock = False

    def seed(self, max_len):
        out = b""
        for op in self.ops:
            piece = (SEP if out else b"") + op
            if len(out) + len(piece) > max_len:
                break
            out += piece
        return out


def sessions(path):
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            if "] OPENED" in line and line.startswith("[I "):
                cur = Session()
                continue
            if "] CLOSED" in line and line.startswith("[I "):
                if cur is not None:
                    yield cur
                cur = None
                continue
            if cur is None:
                continue
            m = REPLY.match(line)
            if m:
                cur.response(m.group(1).split())
                continue
            m = LINE.match(line)
            if m:
                try:
                    cur.command(m.group(1), m.group(2).split())
                except (ValueError, IndexError):
                    pass    # a line cut short by the test's own output
    if cur is not None:
        yield cur


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--max-len", type=int, default=4096)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    written = 0
    for log in args.logs:
        for s in sessions(log):
            data = s.seed(args.max_len)
            if not data:
                continue
            name = hashlib.sha1(data).hexdigest()
            path = os.path.join(args.outdir, name)
            if not os.path.exists(path):
                with open(path, "wb") as f:
                    f.write(data)
                written += 1
    print(f"fuzz-seeds: {written} seeds in {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
