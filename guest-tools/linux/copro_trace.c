// SPDX-License-Identifier: GPL-2.0-or-later
/* copro DRM driver: the tracepoints' definitions (copro_trace.h). */
#define CREATE_TRACE_POINTS
#include "copro_trace.h"
