/* error.c — the thread-local error state (Note [Error model] in core.h) and small string helpers. */
#include "core/core.h"

#include <stdio.h>

static WK_TLS wk_error_kind err_kind = WK_OK;
static WK_TLS char err_msg[4096];

void wk__error(wk_error_kind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    err_kind = kind;
}

bool wk__error_set(void) { return err_kind != WK_OK; }
void wk_error_set(wk_error_kind kind, const char *message) { wk__error(kind, "%s", message ? message : ""); }
wk_error_kind wk_error_kind_get(void) { return err_kind; }
const char *wk_error_message(void) { return err_kind == WK_OK ? "" : err_msg; }
void wk_error_clear(void) {
    err_kind = WK_OK;
    err_msg[0] = 0;
}

/* Note [Warnings]: a queue of warning texts per thread, taken (and cleared) by the front after each call. */
#define WK_MAX_WARNINGS 8
static WK_TLS char warn_msg[WK_MAX_WARNINGS][1024];
static WK_TLS int warn_n;

void wk__warn(const char *fmt, ...) {
    if (warn_n >= WK_MAX_WARNINGS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warn_msg[warn_n++], sizeof warn_msg[0], fmt, ap);
    va_end(ap);
}
int wk_warning_count(void) { return warn_n; }
const char *wk_warning_message(int i) { return i >= 0 && i < warn_n ? warn_msg[i] : ""; }
void wk_warnings_clear(void) { warn_n = 0; }

void *wk__malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) wk__error(WK_MEMORY_ERROR, "DefaultCPUAllocator: not enough memory: you tried to allocate %zu bytes.", n);
    return p;
}

void *wk__calloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) wk__error(WK_MEMORY_ERROR, "DefaultCPUAllocator: not enough memory: you tried to allocate %zu bytes.", n * sz);
    return p;
}

static bool sb_reserve(wk_strbuf *b, size_t extra) {
    if (b->failed) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void wk_sb_printf(wk_strbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !sb_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void wk_sb_puts(wk_strbuf *b, const char *s) {
    size_t n = strlen(s);
    if (!sb_reserve(b, n)) return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void wk_sb_ints(wk_strbuf *b, const int64_t *v, int n) {
    wk_sb_puts(b, "[");
    for (int i = 0; i < n; i++) wk_sb_printf(b, i ? ", %lld" : "%lld", (long long)v[i]);
    wk_sb_puts(b, "]");
}

void wk_sb_free(wk_strbuf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

void wk_free_string(char *s) { free(s); }
