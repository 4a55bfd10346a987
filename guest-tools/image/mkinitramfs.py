#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Build copro's Linux test initramfs (a gzipped newc cpio).

  mkinitramfs.py --modules KMODDIR --driver copro.ko --out initrd.gz \
      [--bin PATH ...] [--so PATH ...] [--file SRC:DEST ...]
  mkinitramfs.py --extra --out more.gz [--bin ...] [--so ...] [--file ...]

--extra builds an archive to append to the first one (the kernel unpacks
concatenated archives): only the programs, libraries and files given.
--so copies a shared object (a dlopen()ed driver) at its own path, with
its closure.

It holds busybox (static) with its applets, the DRM modules copro.ko needs
from KMODDIR (Debian's lib/modules/<release>) in dependency order, read
from each module's .modinfo (the host has no modinfo or depmod), the
userspace programs given with --bin and their shared-library closure (as
ldd lists it on the host, which runs the same Debian), and init.
"""
import argparse
import gzip
import os
import re
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Cpio:
    def __init__(self):
        self.out = bytearray()
        self.ino = 1
        self.names = set()

    def _entry(self, name, mode, data=b"", nlink=1):
        name = name.lstrip("/")
        if name in self.names:
            return
        self.names.add(name)
        nb = name.encode() + b"\0"
        hdr = "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x" % (
            self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0,
            len(nb), 0)
        self.ino += 1
        self.out += hdr.encode() + nb
        self.out += b"\0" * ((4 - len(self.out) % 4) % 4)
        self.out += data
        self.out += b"\0" * ((4 - len(self.out) % 4) % 4)

    def dir(self, name):
        parts = name.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            self._entry("/".join(parts[:i]), stat.S_IFDIR | 0o755, nlink=2)

    def file(self, name, data, mode=0o644):
        self.dir(os.path.dirname(name.strip("/")) or ".")
        self._entry(name, stat.S_IFREG | mode, data)

    def symlink(self, name, target):
        self.dir(os.path.dirname(name.strip("/")) or ".")
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def trailer(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.out)


def modinfo(path, key):
    data = open(path, "rb").read()
    m = re.search(rb"(?:^|\0)" + key.encode() + rb"=([^\0]*)", data)
    return m.group(1).decode() if m else ""


def module_order(kmoddir, driver):
    index = {}
    for root, _, files in os.walk(kmoddir):
        for f in files:
            if f.endswith(".ko"):
                index[f[:-3].replace("-", "_")] = os.path.join(root, f)
    order, seen = [], set()

    def visit(name, path):
        if name in seen:
            return
        seen.add(name)
        for dep in filter(None, modinfo(path, "depends").split(",")):
            key = dep.replace("-", "_")
            if key not in index:
                sys.exit("mkinitramfs: %s needs %s, not in %s" %
                         (name, dep, kmoddir))
            visit(key, index[key])
        order.append((name, path))

    visit("copro", driver)
    return order


def libs_of(path):
    r = subprocess.run(["ldd", path], capture_output=True, text=True)
    if r.returncode != 0:
        return []       # static
    out = []
    for line in r.stdout.splitlines():
        m = re.search(r"(/\S+) \(0x", line)
        if m:
            out.append(m.group(1))
    return out


def base(c, args):
    """busybox, init, the modules in order: their names."""
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "lib", "lib64", "proc",
              "sys", "dev", "tmp", "run", "etc", "root", "lib/modules"):
        c.dir(d)
    bb = open(args.busybox, "rb").read()
    if libs_of(args.busybox):
        sys.exit("mkinitramfs: %s is not static (busybox-static)" %
                 args.busybox)
    c.file("bin/busybox", bb, 0o755)
    applets = subprocess.run([args.busybox, "--list-full"], check=True,
                             capture_output=True, text=True).stdout.split()
    for a in applets:
        if os.path.basename(a) != "busybox":
            c.symlink(a, "/bin/busybox")
    c.file("init", open(os.path.join(HERE, "init"), "rb").read(), 0o755)
    c.file("bin/screendump",
           open(os.path.join(HERE, "screendump"), "rb").read(), 0o755)
    c.file("bin/qmp", open(os.path.join(HERE, "qmp"), "rb").read(), 0o755)
    c.file("bin/tap.sh", open(os.path.join(HERE, "tap.sh"), "rb").read())
    c.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")
    c.file("etc/group", b"root:x:0:\nvideo:x:44:\n")

    names = []
    for name, path in module_order(args.modules, args.driver):
        dest = "copro" if name == "copro" else name
        c.file("lib/modules/%s.ko" % dest, open(path, "rb").read())
        names.append(dest)
    c.file("lib/modules/order", ("\n".join(names) + "\n").encode())
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules")
    ap.add_argument("--driver")
    ap.add_argument("--extra", action="store_true")
    ap.add_argument("--so", action="append", default=[])
    ap.add_argument("--out", required=True)
    ap.add_argument("--bin", action="append", default=[])
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--busybox", default="/bin/busybox")
    args = ap.parse_args()

    c = Cpio()
    names = []
    if not args.extra:
        if not args.modules or not args.driver:
            sys.exit("mkinitramfs: --modules and --driver are needed")
        names = base(c, args)
    libs = set()
    for b in args.bin:
        c.file("usr/bin/" + os.path.basename(b), open(b, "rb").read(), 0o755)
        libs.update(libs_of(b))
    for so in args.so:
        c.file(so, open(os.path.realpath(so), "rb").read(), 0o755)
        libs.update(libs_of(so))
    for spec in args.file:
        src, dest = spec.split(":", 1)
        mode = os.stat(src).st_mode & 0o777
        c.file(dest, open(src, "rb").read(), mode)
    for lib in sorted(libs):
        real = os.path.realpath(lib)
        c.file(lib, open(real, "rb").read(), 0o755)
        # the loader is looked up at its multiarch path as well
        if lib.startswith("/lib64/") or "/ld-linux" in lib:
            c.file("lib64/" + os.path.basename(lib), open(real, "rb").read(),
                   0o755)
    data = c.trailer()
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(gzip.compress(data, compresslevel=1))
    os.replace(tmp, args.out)
    print("mkinitramfs: %s: %d modules (%s), %d programs, %d libraries, "
          "%d bytes" % (args.out, len(names), " ".join(names), len(args.bin),
                        len(libs), os.path.getsize(args.out)))


if __name__ == "__main__":
    main()
