#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Linux guest's kernel: one Debian 12 linux-image-<abi>-amd64 and the
# headers of exactly the same version, so that guest-tools/linux builds a
# module the booted kernel accepts (vermagic and modversions CRCs).
#
# The ABI is resolved when this runs, from what linux-image-amd64 depends
# on: a suite keeps only the binaries its current source builds, so a hard
# pin would break a fresh machine the day Debian uploads a new ABI.
# LINUX_ABI=6.1.0-56 forces one (it fails clearly when the archive no
# longer has it). The image is downloaded with `apt-get download` and
# unpacked into ~/.cache/copro/linux/<abi> (COPRO_CACHE overrides the
# base): vmlinux (the PVH ELF cut out of the bzImage, which qboot boots
# without decompressing under TCG), config and the kernel's DRM modules. The
# headers are installed through apt (they need Debian's kbuild and gcc-12).
#
#   fetch-linux.sh            resolve, download what is missing, print the dir
#   fetch-linux.sh --check    resolve from the cache only: print the dir of
#                             a complete cached kernel whose headers are
#                             installed, or fail (no root, no network)
set -euo pipefail

CACHE=${COPRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/copro}/linux
FLAVOUR=amd64
mode=${1:-fetch}

die() { echo "fetch-linux: $*" >&2; exit 1; }

resolve_abi() {
    if [ -n "${LINUX_ABI:-}" ]; then
        echo "${LINUX_ABI%-"$FLAVOUR"}"
        return
    fi
    local dep
    dep=$(apt-cache depends "linux-image-$FLAVOUR" 2>/dev/null |
          sed -n "s/^ *Depends: linux-image-\(.*\)-$FLAVOUR\$/\1/p" | head -n 1)
    if [ -z "$dep" ] && [ "$mode" = --check ]; then
        # no apt lists: take the newest complete cache entry
        dep=$(ls -1 "$CACHE" 2>/dev/null | sort -V | while read -r d; do
                  [ -f "$CACHE/$d/complete" ] && echo "$d"; done | tail -n 1)
    fi
    [ -n "$dep" ] || die "cannot resolve linux-image-$FLAVOUR's ABI (apt-get update? or set LINUX_ABI=)"
    echo "$dep"
}

abi=$(resolve_abi)
case "$abi" in
*[!0-9a-z.+-]*|'') die "bad LINUX_ABI '$abi' (want e.g. 6.1.0-56)" ;;
esac
release=$abi-$FLAVOUR
dir=$CACHE/$abi
kdir=/usr/src/linux-headers-$release

if [ "$mode" = --check ]; then
    [ -f "$dir/complete" ] || die "kernel $release not fetched (run scripts/fetch-linux.sh as root, or make deps)"
    [ -f "$kdir/Makefile" ] || die "headers $kdir missing (run scripts/fetch-linux.sh as root)"
    echo "$dir"
    exit 0
fi

if [ ! -f "$kdir/Makefile" ]; then
    [ "$(id -u)" = 0 ] || die "linux-headers-$release missing; run as root or install it"
    apt-cache show "linux-headers-$release" >/dev/null 2>&1 ||
        die "linux-headers-$release is not in the archive (any more?): apt-get update, or set LINUX_ABI= to an ABI it has (apt-cache depends linux-image-$FLAVOUR)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "linux-headers-$release" >&2 || die "installing linux-headers-$release failed"
fi

if [ ! -f "$dir/complete" ]; then
    apt-cache show "linux-image-$release" >/dev/null 2>&1 ||
        die "linux-image-$release is not in the archive (any more?): apt-get update, or set LINUX_ABI= to an ABI it has"
    hver=$(dpkg-query -W -f='${Version}' "linux-headers-$release")
    iver=$(apt-cache show "linux-image-$release" | sed -n 's/^Version: //p' | head -n 1)
    [ "$hver" = "$iver" ] ||
        die "headers $hver and image $iver of $release differ: apt-get update and retry"
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && apt-get download -q "linux-image-$release=$iver" >&2) ||
        die "apt-get download linux-image-$release=$iver failed"
    deb=$(ls "$dir.tmp"/linux-image-*.deb)
    dpkg-deb -x "$deb" "$dir.tmp/pkg"
    cp "$dir.tmp/pkg/boot/config-$release" "$dir.tmp/config"
    python3 - "$dir.tmp/pkg/boot/vmlinuz-$release" "$dir.tmp/vmlinux" <<'PY'
import lzma, sys
data = open(sys.argv[1], "rb").read()
i = data.find(b"\xfd7zXZ\x00")
if i < 0:
    sys.exit("fetch-linux: no XZ payload in " + sys.argv[1])
out = lzma.LZMADecompressor().decompress(data[i:])
if out[:4] != b"\x7fELF":
    sys.exit("fetch-linux: the bzImage payload is not an ELF vmlinux")
open(sys.argv[2], "wb").write(out)
PY
    # only the DRM stack is wanted in the guest (the whole tree is 450 MB)
    mkdir -p "$dir.tmp/modules/kernel/drivers"
    mv "$dir.tmp/pkg/lib/modules/$release/kernel/drivers/gpu" \
        "$dir.tmp/modules/kernel/drivers/gpu"
    echo "$iver" > "$dir.tmp/version"
    echo "$release" > "$dir.tmp/release"
    rm -rf "$dir.tmp/pkg" "$deb"
    touch "$dir.tmp/complete"
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
fi

# The kernel's checkpatch.pl for the driver's style test (the headers
# package does not ship it): from linux-source-<series> of the same
# version, cut out of its tarball once.
if [ ! -f "$dir/checkpatch/checkpatch.pl" ]; then
    iver=$(cat "$dir/version")
    series=$(echo "$abi" | cut -d. -f1-2)
    rm -rf "$dir/checkpatch.tmp"
    mkdir -p "$dir/checkpatch.tmp"
    if (cd "$dir/checkpatch.tmp" &&
        apt-get download -q "linux-source-$series=$iver" >&2 &&
        dpkg-deb --fsys-tarfile linux-source-*.deb |
            tar x "./usr/src/linux-source-$series.tar.xz" &&
        tar xJf "usr/src/linux-source-$series.tar.xz" --strip-components=2 \
            --wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
            '*/scripts/const_structs.checkpatch'); then
        mkdir -p "$dir/checkpatch"
        mv "$dir/checkpatch.tmp"/checkpatch.pl "$dir/checkpatch.tmp"/spelling.txt \
            "$dir/checkpatch.tmp"/const_structs.checkpatch "$dir/checkpatch/"
    else
        echo "fetch-linux: linux-source-$series=$iver unavailable: no checkpatch for the driver" >&2
    fi
    rm -rf "$dir/checkpatch.tmp"
fi
echo "copro-step: $release ($(cat "$dir/version")) in $dir" >&2
echo "$dir"
