/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: x-query-copro for builds without the device
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qapi/qapi-commands-copro.h"

CoproInfoList *qmp_x_query_copro(Error **errp)
{
    return NULL;
}
