/* test_random.c — the random-number core against values produced by real torch 2.13 (x86 CPU).
 *
 * Build and run (from the repository root):
 *     python3 tools/gen.py          # build/gen/wick_ops.h, which wick.h includes
 *     gcc -std=c11 -O2 -ffp-contract=off -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror \
 *         -fsanitize=address,undefined -Iinclude -Ibuild/gen -Isrc \
 *         tests/c/test_random.c src/core/random.c src/core/dtype.c src/core/error.c -lm -o build/test_random
 *     build/test_random tests/rng/expected.txt
 * `make test-c` also builds it against libwick.a and runs it from tests/c (it then finds ../rng/).
 * Optional:
 *     python3 tests/rng/make_expected.py          # regenerate expected.txt from torch (about 3 s)
 *     build/test_random tests/rng/expected_big.txt  # randperm at n = 214748363 / 214748364 (0.9 GB each,
 *                                                 # ~2 min under ASan); regenerate: make_expected.py --big
 *     python3 tests/rng/roundtrip.py build/test_random   # C's state bytes loaded into torch
 *     build/test_random --dump-state SEED          # what roundtrip.py reads
 *
 * expected.txt (format in make_expected.py) lists cases: a seed, then ops with torch's outputs (an FNV-1a
 * hash of every output byte, plus the first and last few elements) or torch's error, and the hash of
 * torch.get_rng_state() after the case, which checks how many draws each op consumed and the cached
 * normal. Every output value is compared through the hash. The last line printed is "N passed, M failed". */
#include "core/random.h"

#include <inttypes.h>
#include <stdio.h>

/* ---- small helpers ---- */

static int n_pass, n_fail;
static long long n_values; /* output elements compared through hashes */

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

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static const char *error_kind_name(wk_error_kind k) {
    switch (k) {
    case WK_RUNTIME_ERROR: return "RuntimeError";
    case WK_INDEX_ERROR: return "IndexError";
    case WK_TYPE_ERROR: return "TypeError";
    case WK_VALUE_ERROR: return "ValueError";
    case WK_NOT_IMPLEMENTED_ERROR: return "NotImplementedError";
    case WK_MEMORY_ERROR: return "MemoryError";
    case WK_OVERFLOW_ERROR: return "OverflowError";
    case WK_ZERO_DIVISION_ERROR: return "ZeroDivisionError";
    default: return "OK";
    }
}

static bool parse_dtype(const char *s, wk_dtype *out) {
    static const struct { const char *name; wk_dtype dt; } names[] = {
        {"bool", WK_BOOL},         {"uint8", WK_UINT8},         {"int8", WK_INT8},       {"int16", WK_INT16},
        {"int32", WK_INT32},       {"int64", WK_INT64},         {"float16", WK_FLOAT16}, {"bfloat16", WK_BFLOAT16},
        {"float32", WK_FLOAT32},   {"float64", WK_FLOAT64},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].dt;
            return true;
        }
    return false;
}

static size_t elem_size(wk_dtype dt) {
    switch (dt) {
    case WK_BOOL: case WK_UINT8: case WK_INT8: return 1;
    case WK_INT16: case WK_FLOAT16: case WK_BFLOAT16: return 2;
    case WK_INT32: case WK_FLOAT32: return 4;
    default: return 8;
    }
}

/* Stores double v (exactly representable in every floating dtype used here) as one element of dt. */
static void put_value(wk_dtype dt, void *buf, int64_t i, double v) {
    switch (dt) {
    case WK_FLOAT16: ((uint16_t *)buf)[i] = wk__float_to_half((float)v); break;
    case WK_BFLOAT16: ((uint16_t *)buf)[i] = wk__float_to_bf16((float)v); break;
    case WK_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case WK_FLOAT64: ((double *)buf)[i] = v; break;
    case WK_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case WK_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    default: memset((char *)buf + (size_t)i * elem_size(dt), 0, elem_size(dt)); break;
    }
}

/* The deterministic inputs of make_expected.py. */
static double p_value(int64_t i) { return (double)((i * 37 + 11) % 257) / 256.0; }
static double rate_value(int64_t i) { return (double)((i * 13 + 5) % 41) * 0.5; }
static double prob_value(int64_t i, int64_t j, int zeros) {
    if (zeros == 2 && i == 1) return 0.0;
    if (zeros) return (double)((i * 7 + j * 3 + 1) % 5);
    return (double)(1 + (i * 7 + j * 3) % 5);
}

/* ---- unit tests that need no torch ---- */

static void test_engine(void) {
    wk_generator *g = wk_generator_new();
    CHECK(wk_generator_initial_seed(g) == 67280421310721ull, "default seed");
    wk_generator_manual_seed(g, 0);
    static const uint32_t mt0[5] = {2357136044u, 2546248239u, 3071714933u, 3626093760u, 2588848963u};
    for (int i = 0; i < 5; i++) CHECK(wk_random32(g) == mt0[i], "MT(0) draw %d", i);
    wk_generator_manual_seed(g, 42);
    static const uint32_t mt42[3] = {1608637542u, 3421126067u, 4083286876u};
    for (int i = 0; i < 3; i++) CHECK(wk_random32(g) == mt42[i], "MT(42) draw %d", i);
    /* only the low 32 bits seed the engine; initial_seed keeps all 64 */
    wk_generator_manual_seed(g, (1ull << 40) + 5);
    uint32_t a = wk_random32(g);
    CHECK(wk_generator_initial_seed(g) == (1ull << 40) + 5, "initial_seed keeps 64 bits");
    wk_generator_manual_seed(g, 5);
    CHECK(wk_random32(g) == a, "low 32 bits");
    /* random64: high half first */
    wk_generator_manual_seed(g, 0);
    CHECK(wk_random64(g) == (((uint64_t)2357136044u << 32) | 2546248239u), "random64 order");
    /* the state right after seeding: left = 1, next = 0, seeded = 1 */
    uint8_t st[WK_GENERATOR_STATE_SIZE];
    wk_generator_manual_seed(g, 0);
    wk_generator_get_state(g, st);
    CHECK(st[8] == 1 && st[12] == 1 && st[16] == 0 && st[24] == 0 && st[5040] == 0, "fresh state fields");
    /* a fresh generator is manual_seed(67280421310721) */
    wk_generator *fresh = wk_generator_new(), *seeded = wk_generator_new();
    wk_generator_manual_seed(seeded, 67280421310721ull);
    uint8_t st2[WK_GENERATOR_STATE_SIZE];
    wk_generator_get_state(fresh, st);
    wk_generator_get_state(seeded, st2);
    CHECK(memcmp(st, st2, sizeof st) == 0, "fresh generator state");
    wk_generator_release(fresh);
    wk_generator_release(seeded);
    /* clone: an independent copy */
    wk_random32(g);
    wk_generator *c = wk_generator_clone(g);
    CHECK(wk_random32(c) == wk_random32(g), "clone continues the stream");
    wk_generator_release(c);
    /* seed(): nondeterministic, returned and recorded */
    uint64_t s = wk_generator_seed(g);
    CHECK(wk_generator_initial_seed(g) == s, "seed() is initial_seed()");
    wk_generator *d = wk_default_generator();
    CHECK(d == wk_default_generator() && d != NULL, "default generator is one object");
    wk_generator_retain(d);
    wk_generator_release(d);
    wk_generator_release(d); /* no-op for the default */
    wk_generator_release(g);
}

static void test_set_state_errors(void) {
    wk_generator *g = wk_generator_new();
    uint8_t st[WK_GENERATOR_STATE_SIZE];
    wk_generator_get_state(g, st);
    wk_error_clear();
    CHECK(wk_generator_set_state(g, st, 5048) == -1 && wk_error_kind() == WK_RUNTIME_ERROR &&
              strcmp(wk_error_message(), "Expected a CPUGeneratorImplState of size 5056 but found the input RNG "
                                         "state size to be 5048") == 0,
          "size message: %s", wk_error_message());
    uint8_t bad[WK_GENERATOR_STATE_SIZE];
    memcpy(bad, st, sizeof bad);
    bad[8] = 0; /* left = 0 */
    CHECK(wk_generator_set_state(g, bad, sizeof bad) == -1 && strcmp(wk_error_message(), "Invalid mt19937 state") == 0,
          "left 0");
    memcpy(bad, st, sizeof bad);
    bad[12] = 0; /* seeded = 0 */
    CHECK(wk_generator_set_state(g, bad, sizeof bad) == -1, "seeded 0");
    memcpy(bad, st, sizeof bad);
    bad[16] = 0x71; bad[17] = 0x02; /* next = 625 */
    CHECK(wk_generator_set_state(g, bad, sizeof bad) == -1, "next 625");
    memcpy(bad, st, sizeof bad);
    bad[20] = 1; /* next = 2^32: torch narrows it to 0, which is valid */
    CHECK(wk_generator_set_state(g, bad, sizeof bad) == 0, "next narrowed to 32 bits");
    CHECK(wk_generator_set_state(g, st, sizeof st) == 0, "valid state");
    uint8_t back[WK_GENERATOR_STATE_SIZE];
    wk_generator_get_state(g, back);
    CHECK(memcmp(back, st, sizeof st) == 0, "state round trip");
    /* randperm's own n < 0 text (torch reaches it through randperm(-1, out=...)) */
    int64_t dummy[1];
    CHECK(wk__randperm(g, WK_INT64, dummy, -1) == -1 && strcmp(wk_error_message(), "n must be non-negative, got-1") == 0,
          "randperm n < 0");
    wk_error_clear();
    wk_generator_release(g);
}

/* ---- the expected-values driver ---- */

static char *read_line(FILE *f) { /* a whole line without its newline; NULL at end of file */
    static char *buf;
    static size_t cap;
    size_t len = 0;
    int ch;
    if (!buf) {
        cap = 256;
        buf = malloc(cap);
    }
    while ((ch = fgetc(f)) != EOF && ch != '\n') {
        if (len + 2 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        buf[len++] = (char)ch;
    }
    if (ch == EOF && len == 0) {
        free(buf);
        buf = NULL;
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

#define MAX_TOK 16
static int split(char *s, char **tok, int max) { /* space-separated tokens, in place */
    int n = 0;
    while (*s && n < max) {
        while (*s == ' ') s++;
        if (!*s) break;
        tok[n++] = s;
        while (*s && *s != ' ') s++;
        if (*s) *s++ = 0;
    }
    return n;
}

typedef struct {
    char op[32];
    wk_dtype dtype;
    int64_t n;
    char arg[8][64];
    int nargs;
} op_call;

static double argf(const op_call *c, int i) { return strtod(c->arg[i], NULL); }
static int64_t argi(const op_call *c, int i) { return strtoll(c->arg[i], NULL, 10); }

/* Runs one op into *out (malloc'd, *count elements of *odt). Returns the function's status. */
static int run_op(wk_generator *g, const op_call *c, bool expect_error, void **out, int64_t *count, wk_dtype *odt) {
    wk_dtype dt = c->dtype;
    int64_t n = c->n;
    int64_t cnt = n;
    wk_dtype out_dt = dt;
    if (strcmp(c->op, "multinomial") == 0) {
        cnt = (n > 0 ? n : 1) * argi(c, 1);
        out_dt = WK_INT64;
    } else if (strcmp(c->op, "dropout2d") == 0) {
        cnt = n * argi(c, 0);
    }
    int64_t alloc = expect_error ? (cnt < 16 ? cnt : 16) : cnt;
    if (alloc < 1) alloc = 1;
    void *buf = calloc((size_t)alloc, elem_size(out_dt));
    int rc = -2;
    if (strcmp(c->op, "uniform") == 0) {
        rc = wk__uniform_(g, dt, buf, n, argf(c, 0), argf(c, 1));
    } else if (strcmp(c->op, "normal") == 0) {
        rc = wk__normal_(g, dt, buf, n, argf(c, 0), argf(c, 1), argi(c, 2) != 0);
    } else if (strcmp(c->op, "random") == 0) {
        rc = wk__random_(g, dt, buf, n);
    } else if (strcmp(c->op, "random_from_to") == 0) {
        rc = wk__random_from_to_(g, dt, buf, n, argi(c, 0), true, argi(c, 1));
    } else if (strcmp(c->op, "random_from") == 0) {
        rc = wk__random_from_to_(g, dt, buf, n, argi(c, 0), false, 0);
    } else if (strcmp(c->op, "randperm") == 0) {
        rc = wk__randperm(g, dt, buf, n);
    } else if (strcmp(c->op, "bernoulli_scalar") == 0) {
        rc = wk__bernoulli_scalar_(g, dt, buf, n, argf(c, 0));
    } else if (strcmp(c->op, "bernoulli_tensor") == 0 || strcmp(c->op, "bernoulli_tensor_bad") == 0) {
        wk_dtype pdt = WK_FLOAT32;
        parse_dtype(c->arg[0], &pdt);
        void *p = calloc((size_t)(n > 0 ? n : 1), elem_size(pdt)); /* [n] probabilities in pdt */
        bool bad = strcmp(c->op, "bernoulli_tensor_bad") == 0;
        for (int64_t i = 0; i < n; i++) put_value(pdt, p, i, bad && i == n / 2 ? 1.5 : p_value(i));
        rc = wk__bernoulli_tensor_(g, dt, buf, n, pdt, p);
        free(p);
    } else if (strcmp(c->op, "exponential") == 0) {
        rc = wk__exponential_(g, dt, buf, n, argf(c, 0));
    } else if (strcmp(c->op, "geometric") == 0) {
        rc = wk__geometric_(g, dt, buf, n, argf(c, 0));
    } else if (strcmp(c->op, "log_normal") == 0) {
        rc = wk__log_normal_(g, dt, buf, n, argf(c, 0), argf(c, 1));
    } else if (strcmp(c->op, "cauchy") == 0) {
        rc = wk__cauchy_(g, dt, buf, n, argf(c, 0), argf(c, 1));
    } else if (strcmp(c->op, "poisson") == 0) {
        void *r = calloc((size_t)(n > 0 ? n : 1), elem_size(dt)); /* [n] rates */
        for (int64_t i = 0; i < n; i++) put_value(dt, r, i, rate_value(i));
        rc = wk__poisson(g, dt, buf, r, n);
        free(r);
    } else if (strcmp(c->op, "multinomial") == 0) {
        int64_t rows = n > 0 ? n : 1, cols = argi(c, 0), k = argi(c, 1);
        bool repl = argi(c, 2) != 0, tr = argi(c, 3) != 0;
        int zeros = (int)argi(c, 4);
        void *p = calloc((size_t)(rows * cols > 0 ? rows * cols : 1), elem_size(dt)); /* [rows, cols] weights */
        int64_t sizes[2] = {rows, cols}, strides[2];
        if (tr) { /* a transposed view of a contiguous [cols, rows] buffer */
            strides[0] = 1;
            strides[1] = rows;
        } else {
            strides[0] = cols;
            strides[1] = 1;
        }
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) put_value(dt, p, i * strides[0] + j * strides[1], prob_value(i, j, zeros));
        if (n == 0)
            rc = wk__multinomial(g, dt, p, 1, sizes + 1, strides + 1, k, repl, buf);
        else
            rc = wk__multinomial(g, dt, p, 2, sizes, strides, k, repl, buf);
        free(p);
    } else if (strcmp(c->op, "dropout") == 0) {
        rc = wk__dropout_noise(g, dt, buf, n, argf(c, 0));
    } else if (strcmp(c->op, "dropout2d") == 0) {
        rc = wk__dropout_noise(g, dt, buf, n * argi(c, 0), argf(c, 1));
    } else {
        printf("unknown op %s\n", c->op);
    }
    *out = buf;
    *count = cnt;
    *odt = out_dt;
    return rc;
}

static uint64_t elem_at(const void *buf, wk_dtype dt, int64_t i) { /* element bytes as a LE integer */
    size_t sz = elem_size(dt);
    const uint8_t *p = (const uint8_t *)buf + (size_t)i * sz;
    uint64_t v = 0;
    for (size_t b = 0; b < sz; b++) v |= (uint64_t)p[b] << (8 * b);
    return v;
}

static int run_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("cannot open %s\n", path);
        return -1;
    }
    wk_generator *g = NULL;
    char case_name[256] = "";
    op_call call;
    char op_line[512] = "";
    bool have_call = false;
    bool case_ok = true;
    int n_cases = 0, bad_cases = 0;
    char *line;
    while ((line = read_line(f)) != NULL) {
        if (line[0] == '#' || line[0] == 0) continue;
        if (strncmp(line, "case ", 5) == 0) {
            snprintf(case_name, sizeof case_name, "%s", line + 5);
            if (g) wk_generator_release(g);
            g = wk_generator_new();
            case_ok = true;
            n_cases++;
        } else if (strncmp(line, "seed ", 5) == 0) {
            wk_generator_manual_seed(g, strtoull(line + 5, NULL, 10));
        } else if (strncmp(line, "setstate ", 9) == 0) {
            const char *h = line + 9;
            size_t nb = strlen(h) / 2;
            uint8_t *st = malloc(nb);
            for (size_t i = 0; i < nb; i++) {
                unsigned v;
                sscanf(h + 2 * i, "%2x", &v);
                st[i] = (uint8_t)v;
            }
            int rc = wk_generator_set_state(g, st, nb);
            CHECK(rc == 0, "%s: set_state: %s", case_name, wk_error_message());
            free(st);
        } else if (strncmp(line, "op ", 3) == 0) {
            snprintf(op_line, sizeof op_line, "%s", line);
            char *tok[MAX_TOK];
            int nt = split(line + 3, tok, MAX_TOK);
            memset(&call, 0, sizeof call);
            snprintf(call.op, sizeof call.op, "%s", tok[0]);
            if (!parse_dtype(tok[1], &call.dtype)) printf("bad dtype %s\n", tok[1]);
            call.n = strtoll(tok[2], NULL, 10);
            call.nargs = nt - 3;
            for (int i = 3; i < nt && i - 3 < 8; i++) snprintf(call.arg[i - 3], sizeof call.arg[0], "%s", tok[i]);
            have_call = true;
        } else if (strncmp(line, "out ", 4) == 0 || strncmp(line, "err ", 4) == 0) {
            if (!have_call) continue;
            have_call = false;
            bool expect_error = line[0] == 'e';
            void *buf;
            int64_t count;
            wk_dtype odt;
            wk_error_clear();
            int rc = run_op(g, &call, expect_error, &buf, &count, &odt);
            if (expect_error) {
                char *kind = line + 4;
                char *msg = strchr(kind, ' ');
                *msg++ = 0;
                bool ok = rc == -1 && strcmp(kind, error_kind_name(wk_error_kind())) == 0 &&
                          strcmp(msg, wk_error_message()) == 0;
                CHECK(ok, "%s: %s\n    expected %s: %s\n    got rc=%d %s: %s", case_name, op_line, kind, msg, rc,
                      error_kind_name(wk_error_kind()), wk_error_message());
                case_ok &= ok;
            } else if (rc != 0) {
                CHECK(false, "%s: %s\n    unexpected error %s: %s", case_name, op_line, error_kind_name(wk_error_kind()),
                      wk_error_message());
                case_ok = false;
            } else {
                char *tok[2 + 2 + 8 + 2 + 8];
                int nt = split(line + 4, tok, 24);
                int64_t ecount = strtoll(tok[0], NULL, 10);
                uint64_t ehash = strtoull(tok[1], NULL, 16);
                uint64_t hash = fnv1a(buf, (size_t)count * elem_size(odt));
                bool ok = ecount == count && ehash == hash;
                /* head and tail values, for a readable report */
                int t = 2, k = (int)strtol(tok[t++], NULL, 10);
                char detail[512] = "";
                size_t dl = 0;
                for (int i = 0; i < k && t < nt; i++, t++) {
                    uint64_t ev = strtoull(tok[t], NULL, 16), gv = i < count ? elem_at(buf, odt, i) : 0;
                    if (ev != gv) {
                        ok = false;
                        dl += (size_t)snprintf(detail + dl, sizeof detail - dl < 2 ? 0 : sizeof detail - dl,
                                               " [%d] want %" PRIx64 " got %" PRIx64, i, ev, gv);
                        if (dl >= sizeof detail) dl = sizeof detail - 1;
                    }
                }
                int m = t < nt ? (int)strtol(tok[t++], NULL, 10) : 0;
                for (int i = 0; i < m && t < nt; i++, t++) {
                    int64_t idx = count - m + i;
                    uint64_t ev = strtoull(tok[t], NULL, 16), gv = idx >= 0 ? elem_at(buf, odt, idx) : 0;
                    if (ev != gv) {
                        ok = false;
                        dl += (size_t)snprintf(detail + dl, sizeof detail - dl < 2 ? 0 : sizeof detail - dl,
                                               " [%" PRId64 "] want %" PRIx64 " got %" PRIx64, idx, ev, gv);
                        if (dl >= sizeof detail) dl = sizeof detail - 1;
                    }
                }
                if (ok) n_values += count;
                CHECK(ok, "%s: %s\n    count %" PRId64 "/%" PRId64 " hash %016" PRIx64 "/%016" PRIx64 "%s", case_name,
                      op_line, count, ecount, hash, ehash, detail);
                case_ok &= ok;
            }
            free(buf);
        } else if (strncmp(line, "state ", 6) == 0) {
            uint8_t st[WK_GENERATOR_STATE_SIZE];
            wk_generator_get_state(g, st);
            uint64_t h = fnv1a(st, sizeof st), eh = strtoull(line + 6, NULL, 16);
            CHECK(h == eh, "%s: state hash %016" PRIx64 " want %016" PRIx64, case_name, h, eh);
            case_ok &= h == eh;
        } else if (strcmp(line, "end") == 0) {
            if (!case_ok) bad_cases++;
        }
    }
    if (g) wk_generator_release(g);
    fclose(f);
    printf("%s: %d cases, %d with failures, %lld values bit-exact\n", path, n_cases, bad_cases, n_values);
    return 0;
}

/* --dump-state SEED: for roundtrip.py. The same ops as its torch side; prints the state bytes, then the
 * following outputs, in hex. */
static void dump_hex(const char *tag, const void *p, size_t n) {
    printf("%s ", tag);
    for (size_t i = 0; i < n; i++) printf("%02x", ((const uint8_t *)p)[i]);
    printf("\n");
}

static int dump_state(uint64_t seed) {
    wk_generator *g = wk_generator_new();
    wk_generator_manual_seed(g, seed);
    double d3[3];  /* randn(3, float64): leaves a cached normal */
    float f5[5];   /* rand(5) */
    wk__normal_(g, WK_FLOAT64, d3, 3, 0.0, 1.0, true);
    wk__uniform_(g, WK_FLOAT32, f5, 5, 0.0, 1.0);
    uint8_t st[WK_GENERATOR_STATE_SIZE];
    wk_generator_get_state(g, st);
    dump_hex("state", st, sizeof st);
    double nd[3];      /* randn(3, float64) */
    int64_t ri[700];   /* random_() int64 */
    float nf[40];      /* randn(40) */
    wk__normal_(g, WK_FLOAT64, nd, 3, 0.0, 1.0, true);
    wk__random_(g, WK_INT64, ri, 700);
    wk__normal_(g, WK_FLOAT32, nf, 40, 0.0, 1.0, true);
    dump_hex("normal_f64", nd, sizeof nd);
    dump_hex("random_i64", ri, sizeof ri);
    dump_hex("normal_f32", nf, sizeof nf);
    wk_generator_get_state(g, st);
    dump_hex("state_after", st, sizeof st);
    wk_generator_release(g);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--dump-state") == 0) return dump_state(strtoull(argv[2], NULL, 10));
    test_engine();
    test_set_state_errors();
    for (int i = 1; i < argc; i++) run_file(argv[i]);
    if (argc == 1) { /* from the repository root, or from tests/c as `make test-c` runs it */
        FILE *probe = fopen("tests/rng/expected.txt", "r");
        if (probe) fclose(probe);
        if (run_file(probe ? "tests/rng/expected.txt" : "../rng/expected.txt") < 0) n_fail++;
    }
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
