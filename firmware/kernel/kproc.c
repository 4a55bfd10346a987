/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes (kproc.h): a record, its ids and its handle table. What an
 * exit takes back, and when the record goes, is kexit.c's.
 */
#include "kernel/kproc.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kexit.h"
#include "kernel/kquota.h"

struct kproc *kproc_create(struct kernel *k, const char *name)
{
    if (!k) {
        return NULL;
    }
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        struct kproc *p = &k->procs[i];

        if (!p->used) {
            uint8_t id = kexit_new_proc_id(k);

            /* process ids are never reused: after 2^32 - 1 lives no
             * process is created any more rather than one reused */
            if (id == 0 || k->next_pid == UINT32_MAX) {
                return NULL;
            }
            *p = (struct kproc){
                .used = true, .id = id, .pid = ++k->next_pid, .name = name,
                .k = k,
            };
            handle_table_init(&p->handles, p->id, p->slots,
                              KERNEL_PROC_HANDLES);
            kquota_proc_init(k, p);
            return p;
        }
    }
    return NULL;
}
