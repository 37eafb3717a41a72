/* test_contract.c — the C API's contract (issue 25, point 3), run under ASan+UBSan with leak checking (make test-c):
 * an exported op given a NULL required tensor, a list with len < 0, a list with NULL data and len > 0, or a Tensor[]
 * with a NULL entry returns an error naming the op and the argument, never dereferences it. The checks are emitted by
 * tools/gen.py (arg_null_checks) from each op's schema; this calls a sample of ops, public, private and backward. */
#include <stdio.h>
#include <string.h>

#include "wick.h"

static int failures = 0;
enum { TOO_MANY = 33 }; /* dims: one past wick's limit (WK_MAX_DIM, src/core/core.h) */

/* the call failed (r NULL / rc < 0) with error kind `kind` and a message naming op and arg; clears the error */
static void expect(int failed, wk_error_kind kind, const char *op, const char *arg, int line) {
    const char *m = failed ? wk_error_message() : "";
    if (!failed || wk_error_kind() != kind || !strstr(m, op) || !strstr(m, arg)) {
        printf("FAIL %s:%d: expected error %d naming %s and '%s', got %s (kind %d) \"%s\"\n", __FILE__, line,
               (int)kind, op, arg, failed ? "an error" : "a result", failed ? (int)wk_error_kind() : -1, m);
        failures++;
    }
    wk_error_clear();
}
static void expect_t(wk_tensor *r, wk_error_kind kind, const char *op, const char *arg, int line) {
    expect(r == NULL, kind, op, arg, line);
    wk_release(r);
}
static void expect_v(wk_tensorvec v, wk_error_kind kind, const char *op, const char *arg, int line) {
    expect(v.data == NULL, kind, op, arg, line);
    wk_tensorvec_free(v);
}
#define NULL_ARG(r, op, arg) expect_t((r), WK_TYPE_ERROR, op "(", "'" arg "'", __LINE__)
#define BAD_LIST(r, op, arg) expect_t((r), WK_VALUE_ERROR, op "(", "'" arg "'", __LINE__)
#define BAD_LIST_V(r, op, arg) expect_v((r), WK_VALUE_ERROR, op "(", "'" arg "'", __LINE__)

int main(void) {
    int64_t s22[2] = {2, 2}, s4 = 4, one = 1, zero = 0;
    wk_tensor *a = wk_ones(wk_ints(s22, 2), WK_FLOAT32, false);
    wk_tensor *b = wk_ones(wk_ints(s22, 2), WK_FLOAT32, false);
    wk_tensor *c = wk_ones(wk_ints(s22, 2), WK_FLOAT32, false);
    wk_tensor *v = wk_ones(wk_ints(&s4, 1), WK_FLOAT32, false);

    /* NULL required tensors: public, private and backward ops */
    NULL_ARG(wk_add(NULL, b, wk_int(1)), "add", "self");
    NULL_ARG(wk_add(a, NULL, wk_int(1)), "add", "other");
    NULL_ARG(wk__cdist_backward(NULL, a, b, 2.0, c), "_cdist_backward", "grad");
    NULL_ARG(wk__cdist_backward(c, a, b, 2.0, NULL), "_cdist_backward", "cdist");
    NULL_ARG(wk__linalg_det_backward(v, NULL, a), "_linalg_det_backward", "det");
    NULL_ARG(wk__nn_pool_gather(NULL, a, 1), "_nn_pool_gather", "grad");
    NULL_ARG(wk_as_strided_backward(NULL, wk_ints(s22, 2), wk_ints(s22, 2), 0, wk_ints(s22, 2), wk_ints(s22, 2),
                                    wk_none_int()),
             "as_strided_backward", "grad");

    /* int[] with len < 0, or NULL data with len > 0 */
    BAD_LIST(wk_reshape(a, wk_ints(s22, -1)), "reshape", "shape");
    BAD_LIST(wk_reshape(a, wk_ints(NULL, 2)), "reshape", "shape");
    BAD_LIST(wk_permute(a, wk_ints(s22, -3)), "permute", "dims");
    BAD_LIST(wk_flip(a, wk_ints(NULL, 1)), "flip", "dims");
    BAD_LIST(wk_zeros(wk_ints(s22, -1), WK_FLOAT32, false), "zeros", "size");
    BAD_LIST(wk_as_strided_backward(a, wk_ints(s22, -1), wk_ints(s22, 2), 0, wk_ints(s22, 2), wk_ints(s22, 2),
                                    wk_none_int()),
             "as_strided_backward", "input_sizes");
    BAD_LIST(wk_as_strided_backward(a, wk_ints(s22, 2), wk_ints(s22, 2), 0, wk_ints(s22, 2), wk_ints(NULL, 2),
                                    wk_none_int()),
             "as_strided_backward", "stride");
    BAD_LIST_V(wk_split_with_sizes(a, wk_ints(s22, -5), 0), "split_with_sizes", "split_sizes");
    /* None (NULL data, len -1) is accepted, any other negative length is not */
    BAD_LIST(wk_amax(a, wk_ints(s22, -1), false), "amax", "dim"); /* len -1 is None only with NULL data */
    BAD_LIST(wk_linalg_vector_norm(a, wk_int(2), wk_ints(&zero, -2), false, WK_DTYPE_NONE), "linalg_vector_norm", "dim");

    /* Tensor[]: len < 0, NULL data, a NULL entry */
    wk_tensor *two[2] = {a, b}, *holed[2] = {a, NULL};
    wk_tensorlist tl_neg = {two, -1}, tl_null = {NULL, 2}, tl_hole = {holed, 2};
    BAD_LIST(wk_cat(tl_neg, 0), "cat", "tensors");
    BAD_LIST(wk_cat(tl_null, 0), "cat", "tensors");
    NULL_ARG(wk_cat(tl_hole, 0), "cat", "tensors");
    BAD_LIST(wk_stack(tl_neg, 0), "stack", "tensors");
    /* Tensor?[]: entries may be NULL, but the list itself is checked */
    const wk_tensor *idx[1] = {NULL};
    wk_opttensorlist otl_neg = {idx, -2}, otl_null = {NULL, 1};
    BAD_LIST(wk_index(a, otl_neg), "index", "indices");
    BAD_LIST(wk_index(a, otl_null), "index", "indices");

    /* as_strided_backward's geometries: overflowing reach, too many dims, lengths that disagree, a grad that does not
     * match the output geometry (each once read or wrote out of bounds); RuntimeError, as torch's checks raise */
    int64_t huge[2] = {1LL << 62, 1LL << 62}, s1[1] = {1}, many[TOO_MANY], s41[1] = {4};
    for (int i = 0; i < TOO_MANY; i++) many[i] = 1;
    wk_intlist L22 = wk_ints(s22, 2), L4 = wk_ints(s41, 1), L1 = wk_ints(s1, 1);
    expect_t(wk_as_strided_backward(v, L4, L1, 0, L22, wk_ints(huge, 2), wk_none_int()), WK_RUNTIME_ERROR,
             "Storage size calculation overflowed", "strides=[4611686018427387904, 4611686018427387904]", __LINE__);
    expect_t(wk_as_strided_backward(v, L4, L1, 0, L4, L1, (wk_optint){true, INT64_MAX}), WK_RUNTIME_ERROR,
             "Storage size calculation overflowed", "sizes=[4]", __LINE__);
    expect_t(wk_as_strided_backward(v, L4, L1, 0, wk_ints(many, TOO_MANY), wk_ints(many, TOO_MANY),
                                    wk_none_int()),
             WK_RUNTIME_ERROR, "at most", "dimensions", __LINE__);
    expect_t(wk_as_strided_backward(v, L4, L1, 0, L22, L1, wk_none_int()), WK_RUNTIME_ERROR, "mismatch in length",
             "strides and shape", __LINE__);
    expect_t(wk_as_strided_backward(v, L4, L1, 0, L1, L1, wk_none_int()), WK_RUNTIME_ERROR, "as_strided_backward",
             "grad has 4 elements", __LINE__);
    wk_tensor *g = wk_as_strided_backward(v, L4, L1, 0, wk_ints(s22, 2), wk_ints(s41, 1) /* bad */, wk_none_int());
    expect_t(g, WK_RUNTIME_ERROR, "mismatch in length", "strides", __LINE__);
    /* a valid call still works: the gradient of x.as_strided((2, 2), (1, 1)) for x of 4 elements */
    int64_t st11[2] = {1, 1};
    g = wk_as_strided_backward(v, L4, L1, 0, L22, wk_ints(st11, 2), wk_none_int());
    if (!g || wk_numel(g) != 4) {
        printf("FAIL %s:%d: valid as_strided_backward: %s\n", __FILE__, __LINE__, g ? "wrong numel" : wk_error_message());
        failures++;
        wk_error_clear();
    } /* its values are torch's: the as_strided gradient cases of the parity suite */
    wk_release(g);

    /* ranks the private backward ops index with, and int64 sums / products that wrapped (issue 25 point 3):
     * each call here once read or wrote out of bounds, or overflowed (UBSan) */
    wk_tensor *s0 = wk_zeros(wk_ints(NULL, 0), WK_FLOAT32, false), *e0 = wk_zeros(wk_ints(&zero, 1), WK_FLOAT32, false);
    expect_t(wk__cdist_backward(c, v, v, 2.0, c), WK_INDEX_ERROR, "Dimension out of range", "got -2", __LINE__);
    expect_t(wk__cdist_backward(s0, s0, s0, 2.0, s0), WK_INDEX_ERROR, "Dimension specified as -1", "no dimensions",
             __LINE__);
    expect_t(wk__cdist_backward(e0, a, b, 2.0, c), WK_RUNTIME_ERROR, "_cdist_backward", "got 0 and 4", __LINE__);
    expect_t(wk__linalg_det_backward(s0, s0, v), WK_RUNTIME_ERROR, "linalg.det", "at least 2 dimensions", __LINE__);
    expect_t(wk__linalg_det_backward(v, v, a), WK_RUNTIME_ERROR, "_linalg_det_backward", "batch shape", __LINE__);
    expect_t(wk__nn_pool_gather(a, a, 3), WK_RUNTIME_ERROR, "_nn_pool_gather", "nd=3", __LINE__);
    expect_t(wk__nn_pool_gather(a, a, 0), WK_RUNTIME_ERROR, "_nn_pool_gather", "nd=0", __LINE__);
    expect_t(wk__nn_pool_gather(v, a, 1), WK_RUNTIME_ERROR, "_nn_pool_gather", "planes", __LINE__);
    int64_t s11211[5] = {1, 1, 2, 1, 1}, pads[6] = {1, 1, 1, 1, -2, 1LL << 62}, wrap[6] = {1, 1, 1, 1, 1LL << 62, 1LL << 62};
    wk_tensor *x5 = wk_zeros(wk_ints(s11211, 5), WK_FLOAT32, false);
    expect_t(wk_replication_pad3d(x5, wk_ints(pads, 6)), WK_RUNTIME_ERROR, "Storage size calculation overflowed",
             "sizes=[1, 1, 4611686018427387904, 3, 3]", __LINE__);
    expect_t(wk_replication_pad3d_backward(x5, x5, wk_ints(pads, 6)), WK_RUNTIME_ERROR,
             "Storage size calculation overflowed", "4611686018427387904", __LINE__);
    expect_t(wk_replication_pad3d_backward(x5, x5, wk_ints(wrap, 6)), WK_RUNTIME_ERROR, "negative dimension",
             "-9223372036854775806", __LINE__);
    wk_tensor *gn[3] = {0};
    expect(wk_native_group_norm(e0, NULL, NULL, 1LL << 62, 4, 1, 1, 1e-5, gn) < 0, WK_RUNTIME_ERROR,
           "Storage size calculation overflowed", "sizes=[4611686018427387904, 1]", __LINE__);
    expect(wk_native_group_norm(v, NULL, NULL, 1, 1LL << 62, 1LL << 62, 1, 1e-5, gn) < 0, WK_RUNTIME_ERROR,
           "Expected X.numel() == N * C * HxW", "got false", __LINE__);
    expect(wk_native_group_norm(e0, NULL, NULL, 1, 1LL << 32, 1LL << 32, 1, 1e-5, gn) < 0, WK_RUNTIME_ERROR,
           "Expected X.numel() == N * C * HxW", "got false", __LINE__); /* wraps to 0 == numel in torch's check */
    int64_t big[2] = {1LL << 62, 0}, bigst[2] = {1LL << 62, 1}, one1[1] = {1}, st62[1] = {1LL << 62};
    wk_tensor *ev = wk_as_strided(e0, wk_ints(big, 2), wk_ints(bigst, 2), wk_none_int());
    wk_tensor *fl = ev ? wk_flipud(ev) : NULL;
    wk_tensor *v1 = wk_as_strided(v, wk_ints(one1, 1), wk_ints(st62, 1), wk_none_int());
    wk_tensor *o1 = wk_ones(wk_ints(one1, 1), WK_FLOAT32, false), *dt = v1 && o1 ? wk_dot(v1, o1) : NULL;
    if (!fl || wk_numel(fl) != 0 || wk_sizes(fl)[0] != (1LL << 62) || !dt) {
        printf("FAIL %s:%d: flipud / dot over huge strides: %s\n", __FILE__, __LINE__, wk_error_message());
        failures++;
        wk_error_clear();
    }
    wk_release(ev), wk_release(fl), wk_release(v1), wk_release(o1), wk_release(dt);
    /* constant_pad_nd in torch's order, no int64 overflow: sum wraps negative, narrow below zero, SymInt range */
    int64_t pw[2] = {1LL << 62, 1LL << 62}, pn[2] = {-3, 3}, pmin[2] = {INT64_MIN, 0}, pe[6] = {0, 1, 0, 0, -(1LL << 62), 0};
    expect_t(wk_constant_pad_nd(a, wk_ints(pw, 2), wk_int(0)), WK_RUNTIME_ERROR, "The input size 2, plus negative",
             "Check dimension 1", __LINE__);
    expect_t(wk_constant_pad_nd(a, wk_ints(pn, 2), wk_int(0)), WK_RUNTIME_ERROR, "narrow()", "non-negative", __LINE__);
    expect_t(wk_constant_pad_nd(a, wk_ints(pmin, 2), wk_int(0)), WK_RUNTIME_ERROR, "SymIntArrayRef", "concrete",
             __LINE__);
    expect_t(wk__nn_constant_pad_nd_backward(a, wk_ints(pmin, 2)), WK_RUNTIME_ERROR, "SymIntArrayRef", "concrete",
             __LINE__); /* negates INT64_MIN */
    /* an empty view with strides 2**62: padding crops it to nothing, and copying it (clone, mul) visits nothing */
    int64_t big3[3] = {1LL << 62, 0, 2}, bigst3[3] = {1LL << 62, 1LL << 62, 1LL << 62};
    wk_tensor *ev3 = wk_as_strided(e0, wk_ints(big3, 3), wk_ints(bigst3, 3), wk_none_int());
    wk_tensor *pc = ev3 ? wk_constant_pad_nd(ev3, wk_ints(pe, 6), wk_int(0)) : NULL;
    wk_tensor *cl = ev3 ? wk_clone(ev3) : NULL, *ml = cl ? wk_mul(ev3, cl) : NULL;
    if (!ev3 || !pc || wk_numel(pc) != 0 || wk_sizes(pc)[0] != 0 || wk_sizes(pc)[2] != 3 || !cl || wk_numel(cl) != 0 || !ml) {
        printf("FAIL %s:%d: pad / clone / mul of an empty view with strides 2**62: %s\n", __FILE__, __LINE__,
               wk_error_message());
        failures++;
        wk_error_clear();
    }
    wk_release(ev3), wk_release(pc), wk_release(cl), wk_release(ml);
    /* non-overlapping-and-dense test of an empty view whose dense-stride product passes INT64_MAX */
    int64_t hs[3] = {0, 1LL << 62, 1LL << 62}, hst[3] = {1, 1, 1LL << 62};
    wk_tensor *eh = wk_as_strided(e0, wk_ints(hs, 3), wk_ints(hst, 3), wk_none_int());
    wk_tensor *ch = eh ? wk_clone(eh) : NULL;
    if (!ch || wk_numel(ch) != 0) {
        printf("FAIL %s:%d: clone of an empty view with sizes 2**62: %s\n", __FILE__, __LINE__, wk_error_message());
        failures++;
        wk_error_clear();
    }
    wk_release(eh), wk_release(ch);
    wk_release(x5), wk_release(s0), wk_release(e0);

    /* the same ops with valid arguments still work (the checks refuse only what is invalid) */
    wk_tensor *ok[6];
    ok[0] = wk_reshape(a, wk_ints(&s4, 1));
    ok[1] = wk_cat((wk_tensorlist){two, 2}, 0);
    ok[2] = wk_linalg_vector_norm(a, wk_int(2), wk_none_ints(), false, WK_DTYPE_NONE);
    ok[3] = wk_amax(a, wk_ints(&one, 1), false);
    ok[4] = wk_flip(a, wk_ints(NULL, 0));
    ok[5] = wk_zeros(wk_ints(NULL, 0), WK_FLOAT32, false);
    if (ok[0] && wk_numel(ok[0]) != 4) failures++;
    for (int i = 0; i < 6; i++) {
        if (!ok[i]) {
            printf("FAIL %s: valid call %d failed: %s\n", __FILE__, i, wk_error_message());
            failures++;
            wk_error_clear();
        }
        wk_release(ok[i]);
    }

    wk_release(a);
    wk_release(b);
    wk_release(c);
    wk_release(v);
    printf("test_contract: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
