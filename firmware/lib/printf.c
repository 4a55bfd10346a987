/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * printf core. Pure C: no hardware, no libc, so the host unit tests
 * (tests/unit/test-printf.c) exercise exactly the code the firmware runs.
 */
#include "lib/printf.h"

#include <stdbool.h>
#include <stdint.h>

struct fmt_spec {
    bool left;          /* '-': pad on the right */
    bool zero;          /* '0': pad numbers with zeros */
    bool plus;          /* '+': always print a sign */
    bool space;         /* ' ': space in place of a '+' sign */
    bool alt;           /* '#': 0x / 0 prefix */
    int width;
    int precision;      /* -1: not given */
};

struct fmt_state {
    struct fmt_sink *sink;
    int count;
};

static void emit(struct fmt_state *st, char c)
{
    st->sink->put(st->sink, c);
    st->count++;
}

static void emit_pad(struct fmt_state *st, char c, int n)
{
    while (n-- > 0) {
        emit(st, c);
    }
}

static void emit_str(struct fmt_state *st, const struct fmt_spec *sp,
                     const char *s)
{
    int len = 0;

    if (!s) {
        s = "(null)";
    }
    while (s[len] && (sp->precision < 0 || len < sp->precision)) {
        len++;
    }
    if (!sp->left) {
        emit_pad(st, ' ', sp->width - len);
    }
    for (int i = 0; i < len; i++) {
        emit(st, s[i]);
    }
    if (sp->left) {
        emit_pad(st, ' ', sp->width - len);
    }
}

/*
 * One integer conversion. The digits are produced into a small buffer in
 * reverse, then laid out as: [pad][sign][prefix][zeros][digits][pad].
 */
static void emit_num(struct fmt_state *st, const struct fmt_spec *sp,
                     uint64_t mag, bool negative, unsigned base, bool upper,
                     const char *prefix)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char buf[24];       /* 2^64 in octal is 22 digits */
    int ndig = 0;
    char sign = 0;
    int prefix_len = 0;
    int zeros = 0;
    int total;

    while (mag) {
        buf[ndig++] = digits[mag % base];
        mag /= base;
    }
    /* C: precision 0 with value 0 prints no digits; otherwise one '0'. */
    if (ndig == 0 && sp->precision != 0) {
        buf[ndig++] = '0';
    }

    if (negative) {
        sign = '-';
    } else if (sp->plus) {
        sign = '+';
    } else if (sp->space) {
        sign = ' ';
    }
    while (prefix && prefix[prefix_len]) {
        prefix_len++;
    }

    if (sp->precision > ndig) {
        zeros = sp->precision - ndig;
    }
    total = (sign ? 1 : 0) + prefix_len + zeros + ndig;
    /* '0' pads with zeros after the sign, unless '-' or a precision. */
    if (sp->zero && !sp->left && sp->precision < 0 && sp->width > total) {
        zeros += sp->width - total;
        total = sp->width;
    }

    if (!sp->left) {
        emit_pad(st, ' ', sp->width - total);
    }
    if (sign) {
        emit(st, sign);
    }
    for (int i = 0; i < prefix_len; i++) {
        emit(st, prefix[i]);
    }
    emit_pad(st, '0', zeros);
    while (ndig) {
        emit(st, buf[--ndig]);
    }
    if (sp->left) {
        emit_pad(st, ' ', sp->width - total);
    }
}

enum fmt_len { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE,
               LEN_MAX, LEN_PTRDIFF };

static uint64_t fetch_unsigned(va_list *ap, enum fmt_len len)
{
    switch (len) {
    case LEN_CHAR:    return (unsigned char)va_arg(*ap, unsigned int);
    case LEN_SHORT:   return (unsigned short)va_arg(*ap, unsigned int);
    case LEN_LONG:    return va_arg(*ap, unsigned long);
    case LEN_LLONG:   return va_arg(*ap, unsigned long long);
    case LEN_SIZE:    return va_arg(*ap, size_t);
    case LEN_MAX:     return va_arg(*ap, uintmax_t);
    case LEN_PTRDIFF: return (uint64_t)va_arg(*ap, ptrdiff_t);
    default:          return va_arg(*ap, unsigned int);
    }
}

static int64_t fetch_signed(va_list *ap, enum fmt_len len)
{
    switch (len) {
    case LEN_CHAR:    return (signed char)va_arg(*ap, int);
    case LEN_SHORT:   return (short)va_arg(*ap, int);
    case LEN_LONG:    return va_arg(*ap, long);
    case LEN_LLONG:   return va_arg(*ap, long long);
    case LEN_SIZE:    return (int64_t)va_arg(*ap, size_t);
    case LEN_MAX:     return va_arg(*ap, intmax_t);
    case LEN_PTRDIFF: return va_arg(*ap, ptrdiff_t);
    default:          return va_arg(*ap, int);
    }
}

static int parse_int(const char **p)
{
    int v = 0;

    while (**p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v;
}

/*
 * va_list is passed by pointer below because on x86_64 it is an array
 * type: passing it by value to helpers and continuing to use it in the
 * caller is undefined.
 */
int kformat(struct fmt_sink *sink, const char *fmt, va_list ap_in)
{
    struct fmt_state st = { .sink = sink, .count = 0 };
    va_list ap;

    va_copy(ap, ap_in);
    for (const char *p = fmt; *p; p++) {
        struct fmt_spec sp = { .precision = -1 };
        enum fmt_len len = LEN_INT;
        const char *start = p;

        if (*p != '%') {
            emit(&st, *p);
            continue;
        }
        p++;

        for (;; p++) {
            if (*p == '-') {
                sp.left = true;
            } else if (*p == '0') {
                sp.zero = true;
            } else if (*p == '+') {
                sp.plus = true;
            } else if (*p == ' ') {
                sp.space = true;
            } else if (*p == '#') {
                sp.alt = true;
            } else {
                break;
            }
        }

        if (*p == '*') {
            sp.width = va_arg(ap, int);
            if (sp.width < 0) {
                sp.left = true;
                sp.width = -sp.width;
            }
            p++;
        } else {
            sp.width = parse_int(&p);
        }

        if (*p == '.') {
            p++;
            if (*p == '*') {
                sp.precision = va_arg(ap, int);
                if (sp.precision < 0) {
                    sp.precision = -1;
                }
                p++;
            } else {
                sp.precision = parse_int(&p);
            }
        }

        switch (*p) {
        case 'h':
            len = LEN_SHORT;
            if (p[1] == 'h') {
                len = LEN_CHAR;
                p++;
            }
            p++;
            break;
        case 'l':
            len = LEN_LONG;
            if (p[1] == 'l') {
                len = LEN_LLONG;
                p++;
            }
            p++;
            break;
        case 'z': len = LEN_SIZE; p++; break;
        case 'j': len = LEN_MAX; p++; break;
        case 't': len = LEN_PTRDIFF; p++; break;
        default: break;
        }

        switch (*p) {
        case 'd':
        case 'i': {
            int64_t v = fetch_signed(&ap, len);
            /* Negate in unsigned arithmetic: -INT64_MIN overflows. */
            uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
            emit_num(&st, &sp, mag, v < 0, 10, false, NULL);
            break;
        }
        case 'u':
            emit_num(&st, &sp, fetch_unsigned(&ap, len), false, 10, false,
                     NULL);
            break;
        case 'x':
        case 'X': {
            uint64_t v = fetch_unsigned(&ap, len);
            const char *prefix = NULL;
            if (sp.alt && v) {
                prefix = *p == 'x' ? "0x" : "0X";
            }
            emit_num(&st, &sp, v, false, 16, *p == 'X', prefix);
            break;
        }
        case 'o': {
            uint64_t v = fetch_unsigned(&ap, len);
            emit_num(&st, &sp, v, false, 8, false,
                     sp.alt && v ? "0" : NULL);
            break;
        }
        case 'p': {
            void *ptr = va_arg(ap, void *);
            emit_num(&st, &sp, (uintptr_t)ptr, false, 16, false, "0x");
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            if (!sp.left) {
                emit_pad(&st, ' ', sp.width - 1);
            }
            emit(&st, c);
            if (sp.left) {
                emit_pad(&st, ' ', sp.width - 1);
            }
            break;
        }
        case 's':
            emit_str(&st, &sp, va_arg(ap, const char *));
            break;
        case '%':
            emit(&st, '%');
            break;
        default:
            /* Unknown or truncated conversion: show it as written, so the
             * mistake is visible in the output rather than silently lost. */
            for (const char *q = start; q <= p && *q; q++) {
                emit(&st, *q);
            }
            if (!*p) {
                p--;    /* the loop increment must not step past the NUL */
            }
            break;
        }
    }
    va_end(ap);
    return st.count;
}

struct buf_sink {
    struct fmt_sink sink;
    char *buf;
    size_t size;
    size_t pos;
};

static void buf_put(struct fmt_sink *sink, char c)
{
    struct buf_sink *b = (struct buf_sink *)sink;

    /* Keep one byte for the terminating NUL. */
    if (b->pos + 1 < b->size) {
        b->buf[b->pos] = c;
    }
    b->pos++;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct buf_sink b = {
        .sink = { .put = buf_put }, .buf = buf, .size = size, .pos = 0,
    };
    int n = kformat(&b.sink, fmt, ap);

    if (size) {
        buf[b.pos < size ? b.pos : size - 1] = '\0';
    }
    return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
