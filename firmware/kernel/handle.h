/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process handle tables (the kernel-mode handles of D3DKMT objects:
 * D3DKMT_HANDLE). A handle is a 32-bit value that names one kernel object
 * for one process; the kernel turns it back into the object only through
 * the calling process's table, which refuses:
 *   - 0 and values that were never handed out;
 *   - handles of another process (the owner field differs);
 *   - stale handles: the slot was freed (and maybe reused) since, so its
 *     generation moved on;
 *   - handles of another object type (a context handle where an
 *     allocation is expected).
 *
 * Layout, low bits first:
 *   index  10 bits  slot in the table (1-based; 0 is never used)
 *   type    4 bits  enum handle_type
 *   gen    10 bits  the slot's generation when the handle was made (1..)
 *   owner   8 bits  the process's id
 * Slots are handed out round-robin, so a freed slot is reused as late as
 * possible and a stale handle needs 1024 reuses of one slot to come back.
 *
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-handle.c).
 */
#ifndef FW_KERNEL_HANDLE_H
#define FW_KERNEL_HANDLE_H

#include <stdbool.h>
#include <stdint.h>

#define HANDLE_INDEX_BITS   10
#define HANDLE_TYPE_BITS    4
#define HANDLE_GEN_BITS     10
#define HANDLE_OWNER_BITS   8
#define HANDLE_MAX_SLOTS    ((1u << HANDLE_INDEX_BITS) - 1)
#define HANDLE_MAX_OWNER    ((1u << HANDLE_OWNER_BITS) - 1)

enum handle_type {
    HANDLE_NONE,            /* a free slot */
    HANDLE_DEVICE,
    HANDLE_CONTEXT,
    HANDLE_ALLOCATION,
    HANDLE_SYNC,
    HANDLE_TYPE_COUNT,
};

struct handle_entry {
    void *obj;
    uint16_t gen;           /* current generation of the slot, >= 1 */
    uint8_t type;           /* HANDLE_NONE when free */
};

struct handle_table {
    uint8_t owner;          /* the process id in every handle it makes */
    unsigned cap;           /* slots, at most HANDLE_MAX_SLOTS */
    unsigned used;
    unsigned next;          /* where the round-robin search starts */
    struct handle_entry *slot;  /* cap entries, the caller's storage */
};

/* Starts an empty table over storage[cap] for process owner (1..255). */
void handle_table_init(struct handle_table *t, uint8_t owner,
                       struct handle_entry *storage, unsigned cap);

/*
 * Makes a handle for obj (not NULL) of type. Returns DDI_OK and *h, or
 * DDI_ENOMEM when the table is full, DDI_EINVAL for a bad type or obj.
 */
int handle_alloc(struct handle_table *t, enum handle_type type, void *obj,
                 uint32_t *h);

/* The object h names in t if it is live, t's and of this type; else
 * NULL. */
void *handle_lookup(const struct handle_table *t, uint32_t h,
                    enum handle_type type);

/* Frees h (its later lookups fail). DDI_OK or DDI_EHANDLE. */
int handle_free(struct handle_table *t, uint32_t h, enum handle_type type);

/*
 * Calls fn for every live handle of type (HANDLE_NONE: of any type), in
 * slot order. fn may free the handle it is given.
 */
void handle_for_each(struct handle_table *t, enum handle_type type,
                     void (*fn)(void *arg, uint32_t h, void *obj),
                     void *arg);

static inline enum handle_type handle_type_of(uint32_t h)
{
    return (enum handle_type)((h >> HANDLE_INDEX_BITS) &
                              ((1u << HANDLE_TYPE_BITS) - 1));
}

#endif /* FW_KERNEL_HANDLE_H */
