/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/cmdline.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* Calls visit(word, len) for each word; stops early if it returns true. */
static bool for_each_word(const char *s,
                          bool (*visit)(const char *w, size_t len, void *ctx),
                          void *ctx)
{
    if (!s) {
        return false;
    }
    while (*s) {
        const char *w;

        while (is_blank(*s)) {
            s++;
        }
        w = s;
        while (*s && !is_blank(*s)) {
            s++;
        }
        if (s > w && visit(w, (size_t)(s - w), ctx)) {
            return true;
        }
    }
    return false;
}

struct get_ctx {
    const char *key;
    char *buf;
    size_t size;
    bool found;
};

static bool match_key(const char *w, size_t len, void *opaque)
{
    struct get_ctx *c = opaque;
    size_t k = 0;

    while (c->key[k] && k < len && w[k] == c->key[k]) {
        k++;
    }
    if (c->key[k] || k >= len || w[k] != '=') {
        return false;
    }
    if (c->size) {
        size_t n = len - k - 1;
        if (n > c->size - 1) {
            n = c->size - 1;
        }
        for (size_t i = 0; i < n; i++) {
            c->buf[i] = w[k + 1 + i];
        }
        c->buf[n] = '\0';
    }
    c->found = true;
    return false;   /* keep going: the last occurrence wins */
}

bool cmdline_get(const char *cmdline, const char *key, char *buf,
                 size_t size)
{
    struct get_ctx c = { .key = key, .buf = buf, .size = size };

    for_each_word(cmdline, match_key, &c);
    return c.found;
}

static bool match_flag(const char *w, size_t len, void *opaque)
{
    const char *flag = opaque;
    size_t i = 0;

    while (i < len && flag[i] == w[i]) {
        i++;
    }
    return i == len && flag[i] == '\0';
}

bool cmdline_has_flag(const char *cmdline, const char *flag)
{
    return for_each_word(cmdline, match_flag, (void *)flag);
}

/* Decimal digits only: the scenarios take lengths and counts. */
static bool parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;

    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        uint64_t d = (uint64_t)(*s - '0');

        if (*s < '0' || *s > '9' || v > UINT64_MAX / 10 ||
            (v == UINT64_MAX / 10 && d > UINT64_MAX % 10)) {
            return false;
        }
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

int cmdline_get_u64(const char *cmdline, const char *key, uint64_t *value)
{
    char buf[24];
    uint64_t v;

    if (!cmdline_get(cmdline, key, buf, sizeof(buf))) {
        return 0;
    }
    if (!parse_u64(buf, &v)) {
        return -1;
    }
    *value = v;
    return 1;
}
