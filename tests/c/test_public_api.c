/* test_public_api.c — the C door is as wide as the others (issue 17, "Equal doors"): detach, the backward engine,
 * tensor and node hooks, retain_grad, inference mode, node accessors, the version counter and saved-tensor hooks,
 * all through include/wick.h alone. The Makefile builds this file with -Iinclude and the generated headers only (no
 * -Isrc), under ASan+UBSan with leak checking (make test-c), so an internal header cannot sneak in.
 * Expected values are derived from the inputs (d/dx sum(x * w) = w), never typed in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int failures = 0;
#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
            failures++;                                                   \
        }                                                                 \
    } while (0)

#define N 3
static const float XS[N] = {0.5f, -1.25f, 2.0f}; /* x */
static const float WS[N] = {1.5f, 0.25f, -3.0f}; /* w: distinct, uneven weights */

static bool equals(const wk_tensor *t, const float *want, int n) {
    if (!t || wk_tensor_dtype(t) != WK_FLOAT32 || wk_numel(t) != n) return false;
    float got[N];
    if (wk_copy_to_buffer(t, WK_FLOAT32, got) < 0) return false;
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) return false;
    return true;
}

/* a tensor hook that scales the gradient by *ctx; counts its calls and its ctx's release */
typedef struct {
    float scale;
    int calls, freed;
} hook_ctx;
static wk_tensor *scale_hook(void *ctx_, wk_tensor *grad, int *err) {
    hook_ctx *ctx = ctx_;
    ctx->calls++;
    wk_tensor *s = wk_scalar_tensor_new(wk_float(ctx->scale), WK_FLOAT32);
    wk_tensor *r = s ? wk_mul(grad, s) : NULL;
    wk_release(s);
    if (!r) *err = 1;
    return r;
}
static void free_hook_ctx(void *ctx) { ((hook_ctx *)ctx)->freed++; }

static int node_hook_calls;
static int node_hook(void *ctx, wk_node *node, wk_tensor **gin, int n_in, wk_tensor **gout, int n_out) {
    (void)ctx;
    (void)gin;
    (void)gout;
    if (n_in == 2 && n_out == 1 && !strcmp(wk_node_name(node), "MulBackward0")) node_hook_calls++;
    return 0;
}

static int packs, unpacks, drops;
static void *pack(const wk_tensor *t, void *ctx) {
    (void)ctx;
    packs++;
    return wk_clone((wk_tensor *)t);
}
static wk_tensor *unpack(void *packed, void *ctx) {
    (void)ctx;
    unpacks++;
    return wk_retain((wk_tensor *)packed);
}
static void drop(void *packed, void *ctx) {
    (void)ctx;
    drops++;
    wk_release((wk_tensor *)packed);
}

int main(void) {
    int64_t n = N;
    wk_tensor *x = wk_from_data(XS, WK_FLOAT32, 1, &n), *w = wk_from_data(WS, WK_FLOAT32, 1, &n);
    CHECK(x && w && wk_requires_grad_(x, true) == 0);

    /* y = x * w, s = y.sum(): the graph and its nodes */
    wk_tensor *y = wk_mul(x, w), *s = y ? wk_sum(y, WK_DTYPE_NONE) : NULL;
    CHECK(s && wk_requires_grad(y) && !wk_is_leaf(y));
    wk_node *sum_fn = s ? wk_grad_fn(s) : NULL, *mul_fn = y ? wk_grad_fn(y) : NULL;
    CHECK(sum_fn && !strcmp(wk_node_name(sum_fn), "SumBackward0") && wk_node_num_next(sum_fn) == 1);
    uint32_t input_nr = 99;
    CHECK(sum_fn && wk_node_next(sum_fn, 0, &input_nr) == mul_fn && input_nr == 0);
    CHECK(sum_fn && wk_node_next(sum_fn, 1, NULL) == NULL); /* out of range */
    wk_node *acc = mul_fn ? wk_node_next(mul_fn, 0, NULL) : NULL;
    CHECK(acc && !strcmp(wk_node_name(acc), "AccumulateGrad") && wk_node_name_is_cpp(wk_node_name(acc)));
    CHECK(acc && wk_node_variable(acc) == x);
    CHECK(mul_fn && wk_node_next(mul_fn, 1, NULL) == NULL); /* w does not require grad */
    CHECK(mul_fn && !wk_node_name_is_cpp(wk_node_name(mul_fn)));
    if (acc) {
        wk_node_retain(acc); /* a borrowed node kept past its graph */
        wk_node_release(acc);
    }

    /* hooks: one registered then removed (its ctx freed once, never called), one kept (x.grad = 2 * w) */
    hook_ctx removed = {10.0f, 0, 0}, kept = {2.0f, 0, 0};
    int id1 = wk_tensor_register_hook(x, scale_hook, &removed, free_hook_ctx);
    int id2 = wk_tensor_register_hook(x, scale_hook, &kept, free_hook_ctx);
    CHECK(id1 > 0 && id2 > 0 && id1 != id2);
    CHECK(wk_tensor_remove_hook(x, id1) == 0 && removed.freed == 1);
    CHECK(wk_tensor_remove_hook(x, id1) == 0 && removed.freed == 1); /* removing twice is harmless */
    CHECK(wk_tensor_register_hook(w, scale_hook, &kept, free_hook_ctx) < 0 &&
          wk_error_kind() == WK_RUNTIME_ERROR); /* w does not require grad */
    wk_error_clear();
    CHECK(mul_fn && wk_node_register_hook(mul_fn, node_hook, NULL, NULL) > 0);
    CHECK(wk_retain_grad(y) == 0 && wk_retains_grad(y) && !wk_retains_grad(s));

    /* backward through the engine: x.grad = 2 * w (the kept hook), y.grad = ones (retained) */
    CHECK(wk_run_backward(1, &s, NULL, true, false, 0, NULL, NULL, false) == 0);
    float want[N], ones[N];
    for (int i = 0; i < N; i++) want[i] = 2.0f * WS[i], ones[i] = 1.0f;
    CHECK(equals(wk_grad(x), want, N));
    CHECK(equals(wk_grad(y), ones, N));
    CHECK(kept.calls == 1 && removed.calls == 0 && node_hook_calls == 1);

    /* autograd.grad: gradients returned, .grad untouched */
    wk_tensor *g = NULL;
    CHECK(wk_run_backward(1, &s, NULL, false, false, 1, &x, &g, false) == 0);
    CHECK(equals(g, want, N) && equals(wk_grad(x), want, N));
    wk_release(g);
    CHECK(wk_run_backward(1, &s, NULL, false, false, 0, NULL, NULL, false) < 0 &&
          wk_error_kind() == WK_RUNTIME_ERROR); /* the graph was freed */
    wk_error_clear();

    /* detach: same storage and version counter, no history */
    wk_tensor *d = wk_detach(y);
    CHECK(d && !wk_requires_grad(d) && wk_grad_fn(d) == NULL && wk_is_leaf(d));
    CHECK(d && wk_data_ptr(d) == wk_data_ptr(y));
    uint32_t v0 = wk_version_get(y);
    wk_tensor *r = d ? wk_mul_(d, w) : NULL; /* writes through the alias */
    CHECK(r == d && wk_version_get(y) == v0 + 1 && wk_version_get(d) == v0 + 1);
    wk_release(r);
    wk_release(d);
    wk_tensor *yd = wk_mul(x, w);
    CHECK(yd && wk_detach_(yd) == 0 && !wk_requires_grad(yd) && wk_grad_fn(yd) == NULL);
    wk_release(yd);

    /* inference mode: nothing recorded, results are inference tensors; the mode nests and restores */
    CHECK(!wk_is_inference_mode_enabled());
    bool prev = wk_set_inference_mode(true);
    CHECK(!prev && wk_is_inference_mode_enabled());
    wk_tensor *z = wk_mul(x, w);
    bool inf = false;
    CHECK(z && !wk_requires_grad(z) && wk_grad_fn(z) == NULL && wk_is_inference(z, &inf) == 0 && inf);
    CHECK(wk_set_inference_mode(prev) == true && !wk_is_inference_mode_enabled());
    inf = true;
    CHECK(wk_is_inference(x, &inf) == 0 && !inf);
    wk_tensor *z2 = wk_mul(x, w); /* records again */
    CHECK(z2 && wk_requires_grad(z2) && wk_grad_fn(z2) != NULL);
    wk_release(z2);
    wk_release(z);

    /* saved-tensor hooks: u * u saves two tensors through pack; backward unpacks them; the handles are dropped */
    static const wk_saved_hooks hooks = {pack, unpack, drop, NULL};
    wk_tensor *u = wk_from_data(XS, WK_FLOAT32, 1, &n); /* a leaf without hooks */
    CHECK(u && wk_requires_grad_(u, true) == 0);
    CHECK(wk_set_saved_tensor_hooks(&hooks) == NULL);
    wk_tensor *q = wk_mul(u, u), *qs = q ? wk_sum(q, WK_DTYPE_NONE) : NULL;
    CHECK(wk_set_saved_tensor_hooks(NULL) == &hooks);
    CHECK(packs == 2 && unpacks == 0 && drops == 0);
    g = NULL;
    CHECK(qs && wk_run_backward(1, &qs, NULL, false, false, 1, &u, &g, false) == 0);
    for (int i = 0; i < N; i++) want[i] = 2.0f * XS[i]; /* d/dx sum(x * x) = 2x */
    CHECK(equals(g, want, N) && unpacks == 2 && drops == 2);
    wk_release(g);
    wk_release(qs);
    wk_release(q);
    wk_release(u);

    /* views and data without history: wk_alias (bounds-checked), x.data, x.data = src, the version counter */
    int64_t two = 2, one = 1;
    wk_tensor *al = wk_alias(x, 1, &two, &one, 1); /* x[1:3] */
    CHECK(al && wk_data_ptr(al) == (char *)wk_data_ptr(x) + sizeof(float) && wk_grad_fn(al) == NULL);
    CHECK(al && equals(al, XS + 1, 2) && !wk_requires_grad(al));
    uint32_t vx = wk_version_get(x);
    if (al) wk_bump_version(al); /* shares x's counter */
    CHECK(wk_version_get(x) == vx + 1);
    wk_release(al);
    CHECK(wk_alias(x, 1, &two, &one, 2) == NULL && wk_error_kind() == WK_RUNTIME_ERROR &&
          strstr(wk_error_message(), "out of bounds for storage")); /* [2, 4) of 3 elements */
    wk_error_clear();
    int64_t neg = -1;
    CHECK(wk_alias(x, 1, &two, &neg, 2) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    CHECK(wk_alias(x, 1, &neg, NULL, 0) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    wk_tensor *xd = wk_variable_data(x);
    CHECK(xd && wk_data_ptr(xd) == wk_data_ptr(x) && !wk_requires_grad(xd) && wk_version_get(xd) == 0);
    if (xd) wk_bump_version(xd); /* its own counter */
    CHECK(xd && wk_version_get(xd) == 1 && wk_version_get(x) == vx + 1);
    wk_tensor *wd = wk_from_data(WS, WK_FLOAT32, 1, &n);
    CHECK(xd && wd && wk_set_data(xd, wd) == 0 && wk_data_ptr(xd) == wk_data_ptr(wd) && equals(xd, WS, N));
    wk_release(wd);
    wk_release(xd);

    /* the small helpers a front needs: errors from callbacks, dims, element access, size arithmetic */
    wk_error_set(WK_VALUE_ERROR, "from a callback");
    CHECK(wk_error_kind() == WK_VALUE_ERROR && !strcmp(wk_error_message(), "from a callback"));
    wk_error_clear();
    int64_t wd_out = 7;
    CHECK(wk_wrap_dim(-1, 3, &wd_out) == 0 && wd_out == 2);
    CHECK(wk_wrap_dim(3, 3, &wd_out) < 0 && wk_error_kind() == WK_INDEX_ERROR);
    wk_error_clear();
    int16_t cell = 0;
    wk_scalar_store(&cell, WK_INT16, wk_float(-3.75)); /* C cast: toward zero */
    wk_scalar ld = wk_scalar_load(&cell, WK_INT16);
    CHECK(cell == -3 && ld.tag == WK_SCALAR_INT && ld.v.i == -3 && wk_scalar_to_double(ld) == -3.0);
    CHECK(!strcmp(wk_dtype_legacy_type_name(WK_FLOAT32), "torch.FloatTensor"));
    int64_t sz[2] = {3, 4}, strd[2], nbytes = 0, big[2] = {INT64_MAX / 2, 4};
    wk_contiguous_strides(2, sz, strd);
    CHECK(strd[0] == 4 && strd[1] == 1);
    CHECK(wk_storage_nbytes(2, sz, strd, 1, 8, &nbytes) == 0 && nbytes == 13 * 8);
    CHECK(wk_numel_checked(2, big, NULL) < 0 && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();

    /* devices: the CPU's, a tensor's, printing, moves (to the same device: itself), host reads, empty_strided_on;
     * webgpu refused with its reason (a library that is not there: no GPU driver loads under the sanitizers) */
    wk_device *cpu = wk_cpu_device();
    char dbuf[64];
    CHECK(cpu && wk_tensor_device(x) == cpu && wk_device_host_access(cpu) && !strcmp(wk_device_str(cpu, dbuf), "cpu"));
    wk_tensor *mv = wk_move_to_device(x, cpu), *ht = wk_host_tensor(x);
    CHECK(mv == x && ht == x);
    wk_release(mv);
    wk_release(ht);
    int64_t es[2] = {2, 3}, est[2] = {1, 2};
    wk_tensor *e = wk_empty_strided_on(cpu, 2, es, est, WK_FLOAT64);
    CHECK(e && wk_tensor_dtype(e) == WK_FLOAT64 && wk_strides(e)[0] == 1 && wk_strides(e)[1] == 2);
    wk_release(e);
    CHECK(!wk_empty_strided_on(NULL, 1, es, NULL, WK_FLOAT32) && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    setenv("WICK_WGPU_LIB", "/nonexistent/libwgpu_native.so", 1);
    CHECK(!wk_webgpu_open(NULL) && strstr(wk_webgpu_reason(), "wgpu-native could not be loaded"));
    CHECK(!strcmp(wk_webgpu_device_name(), "") && !strcmp(wk_webgpu_backend(), ""));
    int64_t mem[4] = {1, 1, 1, 1};
    wk_webgpu_memory(mem);
    CHECK(!mem[0] && !mem[1] && !mem[2] && !mem[3]);

    wk_release(s);
    wk_release(y);
    CHECK(kept.freed == 0); /* x still holds it */
    wk_release(w);
    wk_release(x);
    CHECK(kept.freed == 1 && removed.freed == 1);

    if (failures) {
        printf("test_public_api: %d failures\n", failures);
        return 1;
    }
    printf("test_public_api: ok\n");
    return 0;
}
