/* test_print.c — wk_repr against torch 2.13's repr(), char for char, plus robustness checks.
 *
 * Build and run (from the repository root):
 *     make lib BUILD=build-print
 *     gcc -std=gnu11 -g -fsanitize=address,undefined -Iinclude -Isrc -Ibuild-print/gen tests/c/test_print.c \
 *         build-print/libwick.a -lm -pthread -o build-print/test_print
 *     build-print/test_print tests/print/cases.txt
 * Regenerate the cases from real torch (format described in the script), or run a random stress set:
 *     python3 tests/print/make_cases.py
 *     python3 tests/print/make_cases.py --fuzz 5000 7 /tmp/fuzz.txt && build-print/test_print /tmp/fuzz.txt
 *
 * Each case is a strided view (wk__alias) of a storage holding the bytes torch had, so non-contiguous layouts are
 * replayed as they were. A grad_fn is faked with a node whose vtable carries torch's class name; it is set only
 * while printing. The last line printed is "N passed, M failed". */
#include "autograd/autograd.h"
#include "core/core.h"

#include <ctype.h>
#include <stdio.h>

/* print options API (defined in src/ops/print.c; identical prototypes may also come from wick.h) */
WK_API void wk_set_printoptions(int precision, double threshold, int edgeitems, int linewidth, int sci_mode);
WK_API void wk_get_printoptions(int *precision, double *threshold, int *edgeitems, int *linewidth, int *sci_mode);
WK_API int wk_set_printoptions_profile(const char *profile);
WK_API char *wk_str(const wk_tensor *t);
WK_API char *wk_repr_ex(const wk_tensor *t, const char *prefix, const char *grad_fn_name);
WK_API char *wk_repr_body(const wk_tensor *t, int indent);

static int n_pass, n_fail;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (cond) {                                        \
            n_pass++;                                      \
        } else {                                           \
            n_fail++;                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
        }                                                  \
    } while (0)

/* ---- reading the case file ---- */
static FILE *fin;

static int next_char_skip_ws(void) {
    int c;
    do c = getc(fin);
    while (c != EOF && isspace(c));
    return c;
}

/* Reads one whitespace-separated token into buf (truncated to cap-1). Returns 0 at EOF. */
static int token(char *buf, size_t cap) {
    int c = next_char_skip_ws();
    if (c == EOF) return 0;
    size_t n = 0;
    while (c != EOF && !isspace(c)) {
        if (n + 1 < cap) buf[n++] = (char)c;
        c = getc(fin);
    }
    buf[n] = '\0';
    if (c != EOF) ungetc(c, fin);
    return 1;
}

static long long token_ll(void) {
    char b[64];
    if (!token(b, sizeof b)) return 0;
    return strtoll(b, NULL, 10);
}

static void expect_word(const char *w) {
    char b[64];
    if (!token(b, sizeof b) || strcmp(b, w)) {
        fprintf(stderr, "bad case file: expected '%s', got '%s'\n", w, b);
        exit(2);
    }
}

static wk_dtype dtype_by_name(const char *s) {
    for (int d = 0; d < WK_NUM_DTYPES; d++)
        if (!strcmp(wk_dtype_name((wk_dtype)d), s)) return (wk_dtype)d;
    fprintf(stderr, "unknown dtype %s\n", s);
    exit(2);
}

static int hexval(int c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

/* Reads one hex token into out (at most cap bytes). */
static void read_hex(unsigned char *out, size_t cap) {
    int c = next_char_skip_ws();
    size_t n = 0;
    while (c != EOF && !isspace(c)) {
        int c2 = getc(fin);
        if (n < cap) out[n++] = (unsigned char)(hexval(c) * 16 + hexval(c2));
        c = getc(fin);
    }
    if (c != EOF) ungetc(c, fin);
}

/* ---- a fake grad_fn ---- */
static wk_node_vtable fake_vt = {"?", NULL, NULL, NULL, NULL};
static wk_node fake_node;

static const char *error_kind_name(wk_error_kind k) {
    switch (k) {
    case WK_RUNTIME_ERROR: return "RuntimeError";
    case WK_INDEX_ERROR: return "IndexError";
    case WK_TYPE_ERROR: return "TypeError";
    case WK_VALUE_ERROR: return "ValueError";
    case WK_NOT_IMPLEMENTED_ERROR: return "NotImplementedError";
    case WK_MEMORY_ERROR: return "MemoryError";
    default: return "?";
    }
}

static void show_mismatch(const char *label, const char *want, const char *got) {
    size_t i = 0;
    while (want[i] && want[i] == got[i]) i++;
    printf("MISMATCH %s at byte %zu\n--- torch:\n%s\n--- wick:\n%s\n---\n", label, i, want, got);
}

static void run_cases(const char *path) {
    fin = fopen(path, "rb");
    if (!fin) {
        perror(path);
        exit(2);
    }
    char word[256], label[512];
    int ncase = 0, shown = 0;
    while (token(word, sizeof word)) {
        if (strcmp(word, "case")) {
            fprintf(stderr, "bad case file near '%s'\n", word);
            exit(2);
        }
        token_ll();
        token(label, sizeof label);
        /* opts */
        expect_word("opts");
        int precision = (int)token_ll();
        char thr[64];
        token(thr, sizeof thr);
        double threshold = strtod(thr, NULL);
        int edgeitems = (int)token_ll(), linewidth = (int)token_ll(), sci = (int)token_ll();
        char defname[32];
        token(defname, sizeof defname);
        wk_set_printoptions(precision, threshold, edgeitems, linewidth, sci);
        wk_set_default_dtype(dtype_by_name(defname));
        /* tensor */
        expect_word("tensor");
        char dtn[32];
        token(dtn, sizeof dtn);
        wk_dtype dt = dtype_by_name(dtn);
        int ndim = (int)token_ll();
        int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
        for (int i = 0; i < ndim; i++) sizes[i] = token_ll();
        for (int i = 0; i < ndim; i++) strides[i] = token_ll();
        int64_t offset = token_ll();
        /* storage */
        expect_word("storage");
        int64_t nelem = token_ll();
        size_t nbytes = (size_t)nelem * wk_dtype_size(dt);
        size_t esz = wk_dtype_size(dt);
        unsigned char *raw = malloc(nbytes + 1), poison[8];
        read_hex(poison, esz);
        for (size_t i = 0; i < nbytes; i += esz) memcpy(raw + i, poison, esz);
        int64_t nruns = token_ll();
        for (int64_t r = 0; r < nruns; r++) {
            int64_t first = token_ll();
            size_t room = nbytes - (size_t)first * esz;
            read_hex(raw + (size_t)first * esz, room);
        }
        /* grad, prefix */
        expect_word("grad");
        int rg = (int)token_ll();
        char gname[256];
        token(gname, sizeof gname);
        expect_word("prefix");
        char prefix[256];
        token(prefix, sizeof prefix);
        /* expected text */
        expect_word("expect");
        char status[32], errkind[64] = "";
        token(status, sizeof status);
        bool want_err = !strcmp(status, "err");
        if (want_err) token(errkind, sizeof errkind);
        size_t wlen = (size_t)token_ll();
        getc(fin); /* the newline */
        char *want = malloc(wlen + 1);
        if (fread(want, 1, wlen, fin) != wlen) {
            fprintf(stderr, "truncated case file\n");
            exit(2);
        }
        want[wlen] = '\0';

        /* build the view */
        int64_t n1 = nelem;
        wk_tensor *base = wk_from_data(raw, dt, 1, &n1);
        wk_tensor *t = base ? wk__alias(base, ndim, sizes, strides, offset) : NULL;
        free(raw);
        if (!t) {
            n_fail++;
            printf("FAIL %s: could not build tensor: %s\n", label, wk_error_message());
            wk_release(base);
            free(want);
            continue;
        }
        bool has_fn = strcmp(gname, "-") != 0;
        if (has_fn) {
            fake_vt.name = gname;
            fake_node.vt = &fake_vt;
            fake_node.refcount = 1;
            t->grad_fn = &fake_node;
        } else {
            t->requires_grad = rg != 0;
        }
        wk_error_clear();
        char *got = strcmp(prefix, "-") ? wk_repr_ex(t, prefix, NULL) : wk_repr(t);
        char gotbuf[512];
        if (!got) {
            snprintf(gotbuf, sizeof gotbuf, "<error %s: %s>", error_kind_name(wk_error_kind()), wk_error_message());
        }
        bool ok;
        if (want_err) {
            ok = !got && !strcmp(errkind, error_kind_name(wk_error_kind())) && !strcmp(want, wk_error_message());
            if (!ok) {
                char w2[512];
                snprintf(w2, sizeof w2, "<error %s: %s>", errkind, want);
                if (shown++ < 20) show_mismatch(label, w2, got ? got : gotbuf);
            }
        } else {
            ok = got && !strcmp(got, want);
            if (!ok && shown++ < 20) show_mismatch(label, want, got ? got : gotbuf);
        }
        /* str() is repr() */
        if (ok && !has_fn && !strcmp(prefix, "-") && got) {
            char *s = wk_str(t);
            if (!s || strcmp(s, got)) ok = false, printf("FAIL %s: wk_str differs from wk_repr\n", label);
            wk_free_string(s);
        }
        ok ? n_pass++ : n_fail++;
        ncase++;
        wk_free_string(got);
        free(want);
        t->grad_fn = NULL;
        t->requires_grad = false;
        wk_release(t);
        wk_release(base);
        wk_set_printoptions_profile("default");
        wk_set_default_dtype(WK_FLOAT32);
    }
    fclose(fin);
    printf("%d torch cases replayed\n", ncase);
}

/* ---- API and robustness ---- */
static char *repr_of(const wk_tensor *t) {
    char *s = wk_repr(t);
    return s ? s : NULL;
}

static void test_api(void) {
    int p, e, lw, sci;
    double th;
    wk_get_printoptions(&p, &th, &e, &lw, &sci);
    CHECK(p == 4 && th == 1000 && e == 3 && lw == 80 && sci == -1, "defaults");
    CHECK(wk_set_printoptions_profile("full") == 0, "full");
    wk_get_printoptions(&p, &th, &e, &lw, &sci);
    CHECK(p == 4 && isinf(th) && e == 3 && lw == 80 && sci == -1, "full profile");
    wk_set_printoptions(2, 10, 1, 50, 1);
    CHECK(wk_set_printoptions_profile("short") == 0, "short");
    wk_get_printoptions(&p, &th, &e, &lw, &sci);
    CHECK(p == 2 && th == 1000 && e == 2 && lw == 80 && sci == -1, "short profile resets sci_mode");
    wk_set_printoptions(7, 10, 1, 50, 0);
    CHECK(wk_set_printoptions_profile("bogus") == 1 && !wk_error_message()[0], "unknown profile ignored, no error");
    wk_get_printoptions(&p, &th, &e, &lw, &sci);
    CHECK(p == 7 && th == 10 && e == 1 && lw == 50 && sci == -1, "unknown profile keeps options");
    CHECK(wk_set_printoptions_profile(NULL) == 0, "NULL profile");
    wk_get_printoptions(NULL, NULL, NULL, NULL, NULL);
    wk_set_printoptions_profile("default");

    CHECK(wk_repr(NULL) == NULL && wk_error_kind() == WK_TYPE_ERROR, "NULL tensor");
    wk_error_clear();

    /* 32 dims of size 1 */
    int64_t sz[WK_MAX_DIM];
    for (int i = 0; i < WK_MAX_DIM; i++) sz[i] = 1;
    float one = 1.5f;
    wk_tensor *t = wk_from_data(&one, WK_FLOAT32, WK_MAX_DIM, sz);
    char *s = repr_of(t);
    CHECK(s && !strncmp(s, "tensor([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1.5000]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])", 200),
          "32-d: %s", s ? s : wk_error_message());
    wk_free_string(s);
    /* 32 dims of size 2, expanded from one element (4e9 elements), summarised */
    for (int i = 0; i < WK_MAX_DIM; i++) sz[i] = 2;
    int64_t st0[WK_MAX_DIM] = {0};
    wk_tensor *big = wk__alias(t, WK_MAX_DIM, sz, st0, 0);
    wk_set_printoptions(4, 1000, 0, 80, -1);
    s = repr_of(big);
    CHECK(s && strstr(s, "size=(2, 2,"), "expanded 2^32 elements, edgeitems 0: %.80s", s ? s : wk_error_message());
    wk_free_string(s);
    wk_set_printoptions_profile("default");
    for (int i = 0; i < WK_MAX_DIM; i++) sz[i] = i < 28 ? 1 : 100;
    wk_tensor *big2 = wk__alias(t, WK_MAX_DIM, sz, st0, 0);
    s = repr_of(big2);
    CHECK(s && strstr(s, "1.5000,  ..., 1.5000"), "expanded 1e8 elements: %.80s", s ? s : wk_error_message());
    wk_free_string(s);
    /* huge sizes with stride 0 */
    int64_t hs[2] = {INT64_MAX / 4, 2}, hst[2] = {0, 0};
    wk_tensor *huge = wk__alias(t, 2, hs, hst, 0);
    s = repr_of(huge);
    CHECK(s != NULL, "huge expanded: %s", s ? "" : wk_error_message());
    wk_free_string(s);
    /* strides pointing outside the storage: an error, not a crash */
    int64_t bs[2] = {3, 3}, bst[2] = {1000, 1};
    wk_tensor *bad = wk__alias(t, 2, bs, bst, 0);
    s = repr_of(bad);
    CHECK(!s && wk_error_kind() == WK_RUNTIME_ERROR, "out of bounds view");
    wk_error_clear();
    int64_t ost[2] = {INT64_MAX / 2, INT64_MAX / 2};
    wk_tensor *bad2 = wk__alias(t, 2, bs, ost, 0);
    s = repr_of(bad2);
    CHECK(!s && wk_error_kind() == WK_RUNTIME_ERROR, "overflowing strides");
    wk_error_clear();
    int64_t nst[2] = {-1, 1};
    wk_tensor *bad3 = wk__alias(t, 2, bs, nst, 0);
    s = repr_of(bad3);
    CHECK(!s && wk_error_kind() == WK_RUNTIME_ERROR, "negative strides before the storage");
    wk_error_clear();
    wk_tensor *bad4 = wk__alias(t, 1, bs, nst + 1, 5);
    s = repr_of(bad4);
    CHECK(!s && wk_error_kind() == WK_RUNTIME_ERROR, "offset past the storage");
    wk_error_clear();
    /* huge precision and linewidth extremes */
    wk_set_printoptions(400, 1000, 3, INT32_MIN, 0);
    s = repr_of(t);
    CHECK(s && strlen(s) > 400, "precision 400");
    wk_free_string(s);
    wk_set_printoptions(4, -1, INT32_MIN, INT32_MAX, 1);
    int64_t n5 = 5;
    double v5[5] = {1, 2, 3, 4, 5};
    wk_tensor *r5 = wk_from_data(v5, WK_FLOAT64, 1, &n5);
    s = repr_of(r5);
    CHECK(s != NULL, "edgeitems INT_MIN: %s", s ? s : wk_error_message());
    wk_free_string(s);
    wk_set_printoptions(4, -1, INT32_MAX, INT32_MAX, 1);
    s = repr_of(r5);
    CHECK(s && !strcmp(s, "tensor([1.0000e+00, 2.0000e+00, 3.0000e+00, 4.0000e+00, 5.0000e+00], dtype=torch.float64)"),
          "edgeitems INT_MAX: %s", s ? s : wk_error_message());
    wk_free_string(s);
    wk_set_printoptions_profile("default");
    /* repr_body and repr_ex */
    s = wk_repr_body(r5, 7);
    CHECK(s && !strcmp(s, "[1., 2., 3., 4., 5.]"), "body: %s", s ? s : "");
    wk_free_string(s);
    s = wk_repr_ex(r5, "Foo(", "MyFnBackward");
    CHECK(s && !strcmp(s, "Foo([1., 2., 3., 4., 5.], dtype=torch.float64, grad_fn=<MyFnBackward>)"), "ex: %s",
          s ? s : "");
    wk_free_string(s);
    /* NaN with the sign bit set prints "nan" */
    uint32_t negnan = 0xFFC00000u;
    float fnan;
    memcpy(&fnan, &negnan, 4);
    wk_tensor *tn = wk_from_data(&fnan, WK_FLOAT32, 0, NULL);
    s = repr_of(tn);
    CHECK(s && !strcmp(s, "tensor(nan)"), "negative nan: %s", s ? s : "");
    wk_free_string(s);
    wk_set_printoptions(4, 1000, 3, 80, 1);
    s = repr_of(tn);
    CHECK(s && !strcmp(s, "tensor(nan)"), "negative nan sci: %s", s ? s : "");
    wk_free_string(s);
    wk_set_printoptions_profile("default");
    wk_release(tn);
    wk_release(r5);
    wk_release(bad4);
    wk_release(bad3);
    wk_release(bad2);
    wk_release(bad);
    wk_release(huge);
    wk_release(big2);
    wk_release(big);
    wk_release(t);
}

int main(int argc, char **argv) {
    if (argc > 1) run_cases(argv[1]);
    else { /* from the repository root, or from tests/c as `make test-c` runs it */
        FILE *probe = fopen("tests/print/cases.txt", "r");
        if (probe) fclose(probe);
        run_cases(probe ? "tests/print/cases.txt" : "../print/cases.txt");
    }
    test_api();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail != 0;
}
