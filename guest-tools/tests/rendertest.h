/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro-rendertest: what its parts share (see copro-rendertest.c): TAP
 * output, the device, buffers and contexts that must work, debugfs.
 */
#ifndef RENDERTEST_H
#define RENDERTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drmMode.h>

#include "libcopro.h"
#include "tap.h"

extern struct copro_dev dev;

void die(const char *what, int err) __attribute__((noreturn));
void bo_new(uint64_t size, struct copro_bo *bo);
uint32_t ctx_new(uint32_t prio);
uint64_t debugfs_value(const char *file, const char *key);
bool all_u32(const void *p, size_t bytes, uint32_t v);
uint64_t mono_ns(void);	/* CLOCK_MONOTONIC */
drmModeConnectorPtr kms_connector(int fd, drmModeResPtr *res);
void kms_wait_flip(int fd, uint64_t *flip_at);

int t_basic(void);
int t_bad(void);
int t_fences(void);
int t_multi(int n);
int t_kms(void);
int t_preempt(void);
int t_hang(void);
int t_starve(void);
int t_limits(const char *what);
int t_prime(void);
int t_ctxrace(void);
int t_gartreset(void);
int t_fuzz(unsigned int seed, int procs, int threads, unsigned int ops);
int t_until_gone(void);
int t_vm(void);
int t_attack27(int argc, char **argv);

#endif
