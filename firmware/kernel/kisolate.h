/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules that keep one process from another when both use legal calls
 * (docs/os.rst, "Security"; issue 15): what a handle may do, who may open
 * a shared object, which privileges a process holds, what becomes of a
 * sync object whose creator was reset. kapi.c and kdisplay.c ask here;
 * the state is in struct kproc (per handle slot) and struct kernel (the
 * grants).
 *
 * - Locks are per handle [D3DKMTLock's hAllocation is the caller's]: an
 *   unlock releases a lock taken through the same handle, never one of
 *   another process that has the allocation open (the count per handle
 *   is kexit's, struct kproc's locked[]).
 * - Sharing needs an explicit grant, WDDM's NT-handle model
 *   [D3DKMTShareObjects with a security descriptor, DuplicateHandle into
 *   a named process]: the creator grants a shared object to one process
 *   (by kapi_process_id) with access rights; a process that was not
 *   granted it opens nothing by its name, whatever it guesses
 *   (DDI_EHANDLE, as for a name that names nothing: no oracle).
 * - Access rights of an opened handle: KAPI_ACCESS_READ (an allocation
 *   read by command buffers; a sync object waited for) and
 *   KAPI_ACCESS_WRITE (written by command buffers, locked; signalled).
 *   A call beyond its handle's rights: DDI_EACCESS.
 * - Privileges [SeIncreaseBasePriorityPrivilege; DWM's ownership of the
 *   VidPN sources]: given by whoever starts the process (the session
 *   manager: the scenario or the app's launcher), never by a kapi call.
 */
#ifndef FW_KERNEL_KISOLATE_H
#define FW_KERNEL_KISOLATE_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct kproc;

#define KISOLATE_GRANTS     64      /* (name, process) pairs at once */

struct kgrant {
    uint32_t name;          /* a shared name; 0: free */
    struct kproc *owner;    /* the granter, charged for it (KQ_GRANTS) */
    uint32_t pid;           /* the process it is granted to (its
                               kapi_process_id, never reused) */
    uint8_t access;         /* KAPI_ACCESS_* */
};

/* [the session manager] Gives p the privileges (KAPI_PRIV_*) on top of
 * what it has. Not an application call: kapi.h has none. */
void kernel_process_grant(struct kernel *k, struct kproc *p,
                          unsigned privileges);
bool kiso_privileged(const struct kproc *p, unsigned privilege);

/* Per handle (allocation or sync object): its rights, set when the
 * handle is made (the creator's: all), forgotten when it is freed. */
void kiso_handle_new(struct kproc *p, uint32_t h, unsigned access);
bool kiso_may(const struct kproc *p, uint32_t h, unsigned access);
void kiso_handle_gone(struct kproc *p, uint32_t h);
/* True if a lock taken through h is held (kexit's per-handle count:
 * kexit_note_lock), the only kind an unlock through h may release. */
bool kiso_lock_held(const struct kproc *p, uint32_t h);

/* owner (the creator of name's object) grants name to process pid with
 * access (KAPI_ACCESS_READ at least): a new grant is charged to owner
 * (KQ_GRANTS: DDI_EQUOTA, DDI_ENOMEM), granting again replaces. */
int kiso_grant(struct kernel *k, struct kproc *owner, uint32_t name,
               uint32_t pid, unsigned access);
/* One grant goes (given back to its owner). */
void kiso_grant_drop(struct kernel *k, struct kgrant *g);
/* The grants to process pid die with it (kapi_process_exit). */
void kiso_revoke_process(struct kernel *k, uint32_t pid);
/* The grants of a shared name die with it (its object's name freed),
 * given back to their owners. */
void kiso_revoke_name(struct kernel *k, uint32_t name);
/* The access name is granted to p with (0: none). */
unsigned kiso_granted(const struct kernel *k, uint32_t name,
                      const struct kproc *p);

/* Blame follows guilt: the sync objects whose creator's device TDR
 * removed are signalled with an error for everyone else: their value
 * jumps to UINT64_MAX (as WDDM does for a removed device's monitored
 * fences, so no GPU waiter of another process hangs) and CPU waits of
 * other processes end with DDI_EABANDONED (kernel.c's deliver). True if
 * one changed (the caller tells vidsch). */
bool kiso_abandon_syncs(struct kernel *k);

#endif /* FW_KERNEL_KISOLATE_H */
