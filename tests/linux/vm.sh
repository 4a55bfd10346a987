# SPDX-License-Identifier: GPL-2.0-or-later
# A GPU VM per DRM file on the device's per-context page tables (issue 27):
# buffers mapped with DRM_IOCTL_COPRO_VM_BIND, command buffers submitted by
# GPU VA; a process reaching a VA it did not map faults and only its
# context is banned while another process's job completes; bad binds get
# their errnos; an unmap waits for the job using the mapping.
. /bin/tap.sh
run_tap copro-rendertest vm
# an unprivileged attacker (rendertest-attack27.c): a process that exits
# with a 600 s job on its VM is gone at once (it sat in D state, past
# SIGKILL); a process that maps a shared buffer read-only does not hold
# up the owner's readers (its jobs' fences were writes in every mapped
# buffer); a process holding nothing makes a VM while others hold the
# pin pool to its reserve (its fixed cost was several charges); binds at
# the VA's edges refused; a new VM's kernel area holds no other
# process's data
run_tap copro-rendertest attack27 close readonly newcomer edges kernel-area
# every job retired, every mapping gone with its file: nothing pinned
left() {
    grep -q "^engine0: run \([0-9]*\) done \1 on_ring 0 held 0" \
        /sys/kernel/debug/dri/0/copro_engines
}
i=0
while ! left && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
grep -E "^engine|^limit" /sys/kernel/debug/dri/0/copro_engines | sed 's/^/# /'
check "no job left behind" left
check "no pinned VRAM left" grep -q "^limit vram_pinned_bytes: used 0 " \
    /sys/kernel/debug/dri/0/copro_engines
check "dmesg clean" dmesg_clean
tap_done
