/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kisolate.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"

void kernel_process_grant(struct kernel *k, struct kproc *p,
                          unsigned privileges)
{
    (void)k;
    if (p) {
        p->privileges |= privileges;
    }
}

bool kiso_privileged(const struct kproc *p, unsigned privilege)
{
    return p && (p->privileges & privilege) == privilege;
}

/* The slot of a handle the caller looked up already (valid). */
static unsigned slot_of(uint32_t h)
{
    unsigned i = h & HANDLE_MAX_SLOTS;

    return i >= 1 && i <= KERNEL_PROC_HANDLES ? i - 1 : 0;
}

void kiso_handle_new(struct kproc *p, uint32_t h, unsigned access)
{
    p->handle_denied[slot_of(h)] =
        (uint8_t)(~access & (KAPI_ACCESS_READ | KAPI_ACCESS_WRITE));
}

bool kiso_may(const struct kproc *p, uint32_t h, unsigned access)
{
    return !(p->handle_denied[slot_of(h)] & access);
}

void kiso_handle_gone(struct kproc *p, uint32_t h)
{
    p->handle_denied[slot_of(h)] = 0;
}

bool kiso_lock_held(const struct kproc *p, uint32_t h)
{
    unsigned s = slot_of(h);

    /* the whole handle (generation included), as kexit records it */
    return p->locked[s].h == h && p->locked[s].n > 0;
}

/* A grant whose name names nothing any more: never, since the name's
 * end revokes its grants (kiso_revoke_name; names carry a 16-bit
 * generation, which wraps: a grant must never live on to name a
 * successor); checked all the same. */
static bool grant_live(const struct kernel *k, const struct kgrant *g)
{
    return g->name &&
           (kernel_shared_object(k, g->name, HANDLE_ALLOCATION) ||
            kernel_shared_object(k, g->name, HANDLE_SYNC));
}

int kiso_grant(struct kernel *k, struct kproc *owner, uint32_t name,
               uint32_t pid, unsigned access)
{
    struct kgrant *free_g = NULL;
    int st;

    for (unsigned i = 0; i < KISOLATE_GRANTS; i++) {
        struct kgrant *g = &k->grants[i];

        if (!g->name) {
            free_g = free_g ? free_g : g;
        } else if (g->name == name && g->pid == pid) {
            g->access = (uint8_t)access;    /* granted again: replaced */
            return DDI_OK;
        }
    }
    /* a slot of the kernel-wide table: within owner's quota, never
     * another process's guarantee (issue 26 item 8) */
    st = kquota_charge(k, owner, KQ_GRANTS, 1);
    if (st != DDI_OK) {
        return st;
    }
    if (!free_g) {
        kquota_uncharge(k, owner, KQ_GRANTS, 1);    /* charges = slots */
        return DDI_ENOMEM;
    }
    *free_g = (struct kgrant){ .name = name, .owner = owner, .pid = pid,
                               .access = (uint8_t)access };
    return DDI_OK;
}

void kiso_grant_drop(struct kernel *k, struct kgrant *g)
{
    if (g->name) {
        kquota_uncharge(k, g->owner, KQ_GRANTS, 1);
        *g = (struct kgrant){ 0 };
    }
}

unsigned kiso_granted(const struct kernel *k, uint32_t name,
                      const struct kproc *p)
{
    for (unsigned i = 0; i < KISOLATE_GRANTS; i++) {
        const struct kgrant *g = &k->grants[i];

        if (g->name == name && g->pid == p->pid && grant_live(k, g)) {
            return g->access;
        }
    }
    return 0;
}

void kiso_revoke_process(struct kernel *k, uint32_t pid)
{
    for (unsigned i = 0; i < KISOLATE_GRANTS; i++) {
        if (k->grants[i].name && k->grants[i].pid == pid) {
            kiso_grant_drop(k, &k->grants[i]);
        }
    }
}

void kiso_revoke_name(struct kernel *k, uint32_t name)
{
    for (unsigned i = 0; name && i < KISOLATE_GRANTS; i++) {
        if (k->grants[i].name == name) {
            kiso_grant_drop(k, &k->grants[i]);
        }
    }
}

bool kiso_abandon_syncs(struct kernel *k)
{
    bool changed = false;

    for (unsigned i = 0; i < KERNEL_MAX_SYNCS; i++) {
        struct ksync *s = &k->syncs[i];

        if (s->used && s->dev && s->dev->removed && !s->abandoned) {
            s->abandoned = true;
            changed |= *s->cpu != UINT64_MAX;
            *s->cpu = UINT64_MAX;
        }
    }
    return changed;
}
