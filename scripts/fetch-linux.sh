#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Linux guest's kernels: Debian 13's (trixie: 6.12 LTS) and the newest
# Debian has (trixie-backports: 7.x), each one linux-image-<abi> and the
# headers of exactly the same version, so that guest-tools/linux builds a
# module the booted kernel accepts (vermagic and modversions CRCs).
#
#   fetch-linux.sh [--check] [KERNEL]
#
# KERNEL is trixie or trixie-backports (the default: both when fetching,
# the newest, trixie-backports, for --check); LINUX_KERNEL= says the same.
# The ABI is resolved when this runs, from what linux-image-amd64 of that
# suite depends on: a suite keeps only the binaries its current source
# builds, so a hard pin would break a fresh machine the day Debian uploads
# a new ABI. LINUX_ABI= forces one (of the one KERNEL named).
#
# Trixie's lists are read with an apt configuration of this script's own
# (the host's sources stay Debian 12's). The headers' host programs
# (fixdep, modpost, objtool) are built for trixie's glibc and gcc-14, so
# the module is built inside a chroot of trixie: mmdebstrap makes a minbase
# tree with build-essential once; each kernel's headers and image are
# installed in it with its apt. From the image, vmlinux (the PVH ELF cut
# out of the bzImage, which qboot boots without decompressing under TCG),
# the config and the DRM modules go to ~/.cache/copro/linux/<abi>
# (COPRO_CACHE overrides the base), with `chroot` naming the tree.
#
#   fetch-linux.sh            resolve, download what is missing, print the dir
#   fetch-linux.sh --check    resolve from the cache only: print the dir of
#                             a complete cached kernel, or fail (no root,
#                             no network)
set -euo pipefail

BASE=${COPRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/copro}/linux
FLAVOUR=amd64
MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security
APTDIR=$BASE/apt-trixie
CHROOT=$BASE/chroot-trixie
mode=fetch
if [ "${1:-}" = --check ]; then
    mode=--check
    shift
fi
kernels=${1:-${LINUX_KERNEL:-}}
if [ -z "$kernels" ]; then
    if [ "$mode" = --check ]; then kernels=trixie-backports
    else kernels="trixie trixie-backports"; fi
fi

die() { echo "fetch-linux: $*" >&2; exit 1; }

APT_OPTS=(-o "Dir::Etc::sourcelist=$APTDIR/sources.list"
          -o Dir::Etc::sourceparts=/nonexistent
          -o "Dir::State::Lists=$APTDIR/lists"
          -o "Dir::Cache=$APTDIR/cache"
          -o Dir::State::status=/dev/null
          -o APT::Sandbox::User=root)

apt_lists() {
    [ -z "${LISTS_DONE:-}" ] || return 0
    mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
    local k=/usr/share/keyrings/debian-archive-keyring.gpg
    cat > "$APTDIR/sources.list" <<SRC
deb [signed-by=$k] $MIRROR trixie main
deb [signed-by=$k] $MIRROR trixie-updates main
deb [signed-by=$k] $SECURITY trixie-security main
deb [signed-by=$k] $MIRROR trixie-backports main
SRC
    apt-get "${APT_OPTS[@]}" update -qq >&2 || die "apt-get update of trixie's lists failed"
    LISTS_DONE=1
}

# the ABI of a suite's linux-image-amd64 (backports: its candidate when
# that suite is the default release)
resolve_abi() {
    local suite=$1 rel=() dep
    if [ -n "${LINUX_ABI:-}" ]; then
        echo "${LINUX_ABI%-"$FLAVOUR"}"
        return
    fi
    if [ "$mode" = --check ]; then
        [ -f "$BASE/$suite" ] || die "kernel $suite not fetched (run scripts/fetch-linux.sh as root, or make deps)"
        cat "$BASE/$suite"
        return
    fi
    apt_lists
    [ "$suite" = trixie ] || rel=(-o "APT::Default-Release=$suite")
    dep=$(apt-cache "${APT_OPTS[@]}" "${rel[@]}" depends "linux-image-$FLAVOUR" 2>/dev/null |
          sed -n "s/^ *Depends: linux-image-\(.*\)-$FLAVOUR\$/\1/p" | head -n 1)
    [ -n "$dep" ] || die "cannot resolve $suite's linux-image-$FLAVOUR (or set LINUX_ABI=)"
    echo "$dep"
}

make_chroot() {
    [ -f "$CHROOT/complete" ] && return 0
    [ "$(id -u)" = 0 ] || die "the trixie build tree $CHROOT is missing; run as root"
    command -v mmdebstrap >/dev/null || die "mmdebstrap missing (make deps)"
    rm -rf "$CHROOT.tmp"
    echo "fetch-linux: making the trixie build tree (mmdebstrap)" >&2
    # The image wants an initramfs tool; the guest boots its own
    # initramfs, so a stand-in providing linux-initramfs-tool keeps dracut
    # out (it would run at every image install).
    # shellcheck disable=SC2016 # the hook's $1 is mmdebstrap's
    mmdebstrap --variant=minbase --include=build-essential,kmod \
        --aptopt='APT::Install-Recommends "false"' \
        --customize-hook='mkdir -p "$1/tmp/noinitrd/DEBIAN" && printf "Package: copro-no-initramfs\nVersion: 1\nArchitecture: all\nProvides: linux-initramfs-tool\nMaintainer: copro\nDescription: the copro guest boots its own initramfs\n" > "$1/tmp/noinitrd/DEBIAN/control" && chroot "$1" dpkg-deb -b /tmp/noinitrd /tmp/noinitrd.deb >/dev/null && chroot "$1" dpkg -i /tmp/noinitrd.deb && rm -rf "$1/tmp/noinitrd" "$1/tmp/noinitrd.deb"' \
        trixie "$CHROOT.tmp" \
        "deb $MIRROR trixie main" "deb $MIRROR trixie-updates main" \
        "deb $SECURITY trixie-security main" "deb $MIRROR trixie-backports main" >&2 ||
        die "mmdebstrap of trixie failed"
    touch "$CHROOT.tmp/complete"
    rm -rf "$CHROOT"
    mv "$CHROOT.tmp" "$CHROOT"
}

fetch_one() {
    local suite=$1 abi release dir hdr iver hver
    case "$suite" in
    trixie|trixie-backports) ;;
    *) die "unknown kernel '$suite' (trixie or trixie-backports)" ;;
    esac
    abi=$(resolve_abi "$suite")
    case "$abi" in
    *[!0-9a-z.+-]*|'') die "bad LINUX_ABI '$abi' (want e.g. 6.12.118+deb13)" ;;
    esac
    release=$abi-$FLAVOUR
    dir=$BASE/$abi
    if [ "$mode" = --check ]; then
        [ -f "$dir/complete" ] || die "kernel $release not fetched (run scripts/fetch-linux.sh as root)"
        [ -f "$CHROOT/usr/src/linux-headers-$release/Makefile" ] ||
            die "headers of $release missing in $CHROOT (run scripts/fetch-linux.sh as root)"
        echo "$dir"
        return
    fi
    make_chroot
    hdr=$CHROOT/usr/src/linux-headers-$release/Makefile
    if [ ! -f "$hdr" ] || [ ! -f "$CHROOT/boot/vmlinuz-$release" ]; then
        echo "fetch-linux: installing linux-headers and linux-image $release in $CHROOT" >&2
        chroot "$CHROOT" apt-get update -qq >&2 || die "apt-get update in $CHROOT failed"
        DEBIAN_FRONTEND=noninteractive chroot "$CHROOT" apt-get install -y -qq \
            --no-install-recommends -t "$suite" \
            "linux-headers-$release" "linux-image-$release" >&2 ||
            die "installing $release in $CHROOT failed (apt-get update? or set LINUX_ABI= to an ABI the archive has)"
    fi
    # shellcheck disable=SC2016 # dpkg-query's format
    hver=$(chroot "$CHROOT" dpkg-query -W -f='${Version}' "linux-headers-$release")
    # shellcheck disable=SC2016 # dpkg-query's format
    iver=$(chroot "$CHROOT" dpkg-query -W -f='${Version}' "linux-image-$release")
    [ "$hver" = "$iver" ] || die "headers $hver and image $iver of $release differ"
    if [ ! -f "$dir/complete" ]; then
        rm -rf "$dir.tmp"
        mkdir -p "$dir.tmp/modules/kernel/drivers"
        cp "$CHROOT/boot/config-$release" "$dir.tmp/config"
        # trixie's bzImage holds a zstd-compressed vmlinux
        python3 - "$CHROOT/boot/vmlinuz-$release" "$dir.tmp/vmlinux" <<'PY'
import subprocess, sys
data = open(sys.argv[1], "rb").read()
i = data.find(b"\x28\xb5\x2f\xfd")
if i < 0:
    sys.exit("fetch-linux: no zstd payload in " + sys.argv[1])
# the payload is followed by the setup's trailer: zstd stops at the frame's end
r = subprocess.run(["zstd", "-dcq"], input=data[i:], capture_output=True)
out = r.stdout
if out[:4] != b"\x7fELF":
    sys.exit("fetch-linux: the bzImage payload is not an ELF vmlinux: "
             + r.stderr.decode(errors="replace"))
open(sys.argv[2], "wb").write(out)
PY
        # only the DRM stack is wanted in the guest (the whole tree is 450 MB)
        cp -a "$CHROOT/lib/modules/$release/kernel/drivers/gpu" \
            "$dir.tmp/modules/kernel/drivers/gpu"
        # trixie ships them xz-compressed; busybox's insmod wants them plain
        find "$dir.tmp/modules" -name '*.ko.xz' -exec xz -d {} +
        echo "$iver" > "$dir.tmp/version"
        echo "$release" > "$dir.tmp/release"
        echo "$CHROOT" > "$dir.tmp/chroot"
        touch "$dir.tmp/complete"
        rm -rf "$dir"
        mv "$dir.tmp" "$dir"
    fi
    fetch_checkpatch "$abi" "$dir"
    echo "$abi" > "$BASE/$suite"
    echo "copro-step: $suite: $release ($(cat "$dir/version")) in $dir" >&2
    echo "$dir"
}

# The kernel's checkpatch.pl for the driver's style test (the headers
# package does not ship it): from linux-source-<series> of the same
# version, cut out of its tarball once.
fetch_checkpatch() {
    local abi=$1 dir=$2 iver series
    [ -f "$dir/checkpatch/checkpatch.pl" ] && return 0
    apt_lists
    iver=$(cat "$dir/version")
    series=$(echo "$abi" | cut -d. -f1-2)
    rm -rf "$dir/checkpatch.tmp"
    mkdir -p "$dir/checkpatch.tmp"
    if (cd "$dir/checkpatch.tmp" &&
        apt-get "${APT_OPTS[@]}" download -q "linux-source-$series=$iver" >&2 &&
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
}

for k in $kernels; do
    fetch_one "$k"
done
