#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-linux-long: the Linux guest's tests too slow for make check.
# kmscube on Mesa's software renderer (kms_swrast, llvmpipe: about 200 MB
# of libraries, appended to the initramfs as a second archive built here
# once) showing frames on copro's display. Prints TAP; exit status 1 if
# any check failed.
#
#   check-linux-long.sh BUILDDIR
set -euo pipefail
build=$1
here=$(dirname "$0")
src=$(cd "$here/.." && pwd)
mesa=$build/linux-${LINUX_KERNEL:-trixie-backports}/mesa.gz
dri=/usr/lib/x86_64-linux-gnu/dri/kms_swrast_dri.so
# not needed by make check: installed here, the first time
if [ ! -e /usr/bin/kmscube ] || [ ! -e "$dri" ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends kmscube libgl1-mesa-dri libegl-mesa0 >&2
    fi
fi
for f in /usr/bin/kmscube "$dri" /usr/share/glvnd/egl_vendor.d/50_mesa.json; do
    [ -e "$f" ] || { echo "check-linux-long: $f missing (apt-get install kmscube libgl1-mesa-dri libegl-mesa0)" >&2; exit 1; }
done
if [ ! -f "$mesa" ] || [ "$mesa" -ot /usr/bin/kmscube ] || [ "$mesa" -ot "$dri" ]; then
    python3 "$src/guest-tools/image/mkinitramfs.py" --extra --out "$mesa" \
        --bin /usr/bin/kmscube --so "$dri" \
        --so /usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0 \
        --file /usr/share/glvnd/egl_vendor.d/50_mesa.json:usr/share/glvnd/egl_vendor.d/50_mesa.json
fi
python3 "$here/run-linux.py" --quiet --qemu-python "$build/qemu/src/python" \
    --timeout 900 --initrd-extra "$mesa" --screendir "$build" \
    --run-file "$src/tests/linux/kmscube.sh" "$build/qemu-run" "$build/linux-${LINUX_KERNEL:-trixie-backports}"
