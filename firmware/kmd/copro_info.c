/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_info.h"

#include <stddef.h>

#include <copro/copro_regs.h>

#include "lib/printf.h"

bool copro_version_compatible(uint32_t version)
{
    return (version >> 16) == COPRO_VERSION_MAJOR;
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

const char *copro_info_validate(const struct copro_info *info)
{
    if (info->id != COPRO_ID_MAGIC) {
        return "bad ID register";
    }
    if (!copro_version_compatible(info->version)) {
        return "unsupported major version";
    }
    if (info->num_engines == 0 || info->num_engines > COPRO_MAX_ENGINES) {
        return "engine count out of range";
    }
    if (!is_pow2(info->vram_size) || info->vram_size < COPRO_VRAM_MIN ||
        info->vram_size > COPRO_VRAM_MAX) {
        return "VRAM size not a power of two in range";
    }
    if ((info->caps & COPRO_CAP_MSIX) &&
        info->msix_vectors != info->num_engines + 1) {
        return "MSI-X vector count is not engines + 1";
    }
    return NULL;
}

/* Appends to buf at *pos; past the end only *pos advances. */
static void append(char *buf, size_t size, size_t *pos, const char *fmt,
                   const char *sep, const char *name, uint32_t bits)
{
    char *at = *pos < size ? buf + *pos : NULL;
    size_t room = *pos < size ? size - *pos : 0;
    char scratch[1];

    *pos += ksnprintf(at ? at : scratch, at ? room : 0, fmt, sep,
                      name ? name : "", bits);
}

void copro_caps_format(uint32_t caps, char *buf, size_t size)
{
    static const char *const names[] = {
        "cmd-processor", "gart", "gpuva", "preemption", "fault-injection",
        "msix", "display", "markers",
    };
    size_t pos = 0;
    uint32_t unknown = caps;

    if (size) {
        buf[0] = '\0';
    }
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (caps & (1u << i)) {
            append(buf, size, &pos, "%s%s", pos ? "," : "", names[i], 0);
            unknown &= ~(1u << i);
        }
    }
    if (unknown) {
        append(buf, size, &pos, "%s%s%#x", pos ? "," : "", "", unknown);
    }
    if (!caps && size) {
        ksnprintf(buf, size, "none");
    }
}

const char *copro_preempt_name(uint32_t preempt_caps)
{
    switch (preempt_caps) {
    case COPRO_PREEMPT_NONE:        return "none";
    case COPRO_PREEMPT_DMA_BUFFER:  return "dma-buffer";
    case COPRO_PREEMPT_COMMAND:     return "command";
    case COPRO_PREEMPT_MID_COMMAND: return "mid-command";
    default:                        return "unknown";
    }
}

static const char *const irq_mode_names[] = {
    [COPRO_IRQ_AUTO] = "auto",
    [COPRO_IRQ_INTX] = "intx",
    [COPRO_IRQ_MSI] = "msi",
    [COPRO_IRQ_MSIX] = "msix",
};

bool copro_irq_mode_parse(const char *s, enum copro_irq_mode *mode)
{
    for (unsigned i = 0; i < sizeof(irq_mode_names) / sizeof(*irq_mode_names);
         i++) {
        const char *a = s, *b = irq_mode_names[i];
        while (*a && *a == *b) {
            a++;
            b++;
        }
        if (!*a && !*b) {
            *mode = (enum copro_irq_mode)i;
            return true;
        }
    }
    return false;
}

const char *copro_irq_mode_name(enum copro_irq_mode mode)
{
    if ((unsigned)mode < sizeof(irq_mode_names) / sizeof(*irq_mode_names)) {
        return irq_mode_names[mode];
    }
    return "?";
}

uint64_t copro_msix_entry_causes(unsigned entry, unsigned num_engines)
{
    if (entry < num_engines && entry < COPRO_MAX_ENGINES) {
        return COPRO_INT_ENGINE_MASK(entry);
    }
    if (entry == COPRO_MSIX_VEC_DEVICE(num_engines)) {
        return COPRO_INT_DEV_ALL;
    }
    return 0;
}
