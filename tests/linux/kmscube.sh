# SPDX-License-Identifier: GPL-2.0-or-later
# kmscube on Mesa's software GL (kms_swrast) through the copro driver
# (scripts/check-linux-long.sh). Host time: only counts are checked.
. /bin/tap.sh
reg() { awk -v r="$1" '$1 == r { print $3 }' /sys/kernel/debug/dri/0/copro_regs; }
f0=$(reg DISP_FLIPS)
e0=$(reg DISP_ERROR)
console=$(reg DISP_SCANOUT)
# (kmscube stops at input on stdin: give it a pipe that stays open)
sleep 600 | MESA_LOADER_DRIVER_OVERRIDE=kms_swrast kmscube -c 90 > /tmp/kmscube.out 2>&1 &
pid=$!
# the first frame waits for llvmpipe to compile its shaders (seconds under
# TCG): take the picture once frames flow
i=0
while [ $(($(reg DISP_FLIPS) - f0)) -lt 30 ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
shown=$(reg DISP_SCANOUT)
screendump kmscube > /dev/null
wait $pid
rc=$?
grep -v "extensions:" /tmp/kmscube.out | sed "s/^/# /" | head -20
f1=$(reg DISP_FLIPS)
check "kmscube -c 90 on kms_swrast ran (exit $rc)" test $rc = 0
check "the device flipped its frames ($((f1 - f0)) flips)" test $((f1 - f0)) -ge 89
check "the display showed kmscube's buffers, not the console's ($shown)" test "$shown" != "$console"
check "no surface was refused (DISP_ERROR $(reg DISP_ERROR))" test "$(reg DISP_ERROR)" = "$e0"
check "dmesg clean" dmesg_clean
tap_done
