/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every table and pool of the kernel, and the rule that keeps each from
 * one process (docs/os.rst, "Quotas"; issue 26): every table or pool a
 * process can fill through the API has a per-process quota and a
 * guarantee the others can always use (kquota.h); every other table
 * says why no process can fill it.
 *
 * The list is ktables.c's. kernel_census (kexit.h) counts what each
 * table holds; scripts/check-kernel-tables.py fails when an array of a
 * kernel struct is missing from the list (a table added without a
 * rule), and test-kernel's /kernel/quota/tables when a quota does not
 * cover its table (its pool is the table, each process guaranteed one
 * entry at least, nobody's default limit all of it) or a bound does
 * not hold.
 */
#ifndef FW_KERNEL_KTABLES_H
#define FW_KERNEL_KTABLES_H

#include <stdint.h>

#include "kernel/kquota.h"

struct kernel;

enum ktable_rule {
    /* entries charged to the process that holds them (kind) */
    KTABLE_QUOTA,
    /* one per process (or device): only its owner fills its own */
    KTABLE_PER_PROCESS,
    /* at most one entry per record of tables with a quota (bound) */
    KTABLE_BOUNDED,
    /* the kernel's own: no process holds an entry beyond the kernel's
     * work (why) */
    KTABLE_KERNEL,
    /* fields of one record, not a table */
    KTABLE_RECORD,
};

struct ktable {
    const char *field;          /* "struct.member", as declared */
    enum ktable_rule rule;
    enum kquota_kind kind;      /* KTABLE_QUOTA */
    uint64_t capacity;          /* entries (bytes for a memory pool) */
    uint64_t bound;             /* KTABLE_BOUNDED: most it can hold */
    const char *why;
    /* what it holds now (NULL: not counted) */
    uint64_t (*count)(const struct kernel *k);
};

/* The list, *n entries. */
const struct ktable *ktables(unsigned *n);

#define KTABLES_MAX     64      /* kernel_census keeps this many counts */

#endif /* FW_KERNEL_KTABLES_H */
