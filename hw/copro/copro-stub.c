/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the QMP commands for builds without the device
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-copro.h"

CoproInfoList *qmp_x_query_copro(Error **errp)
{
    return NULL;
}

CoproTimeline *qmp_x_copro_timeline(const char *device, bool has_since,
                                    uint64_t since, bool has_max,
                                    uint32_t max, bool has_kinds,
                                    strList *kinds, bool has_clear,
                                    bool clear,
                                    const char *file, Error **errp)
{
    error_setg(errp, "copro: no copro device");
    return NULL;
}

void qmp_x_copro_timeline_set(const char *device, bool enable,
                              bool has_capacity, uint32_t capacity,
                              Error **errp)
{
    error_setg(errp, "copro: no copro device");
}
