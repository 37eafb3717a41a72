/* test_conv.c — the float32 convolution fast path (im2col + packed GEMM, nn_conv.c) against the float64 reference
 * kernels on random odd shapes: 1-D/2-D/3-D, stride, padding, dilation, groups, transposed with output_padding,
 * 1x1 kernels, non-contiguous input; forward, grad_input and grad_weight; and bitwise equality across thread
 * counts. Run by `make test-c` (ASan/UBSan, leak checking). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)((rng >> 40) & 0xffff) / 32768.0 - 1.0;
}
static int64_t irand(int64_t lo, int64_t hi) { return lo + (int64_t)((rng = rng * 6364136223846793005ULL + 1) >> 33) % (hi - lo + 1); }

static int failures = 0, checked = 0;
static bool wgcl_mode = false; /* the channels-last weight gradient's shapes (Note [Weight gradient, channels last]) */
static bool deep_mode = false; /* deep small images: the small-image forward / grad_input kernel (dconv_images_cv) */

static wk_tensor *rand_tensor(int nd, const int64_t *sizes, wk_dtype dt, float *keep) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= sizes[i];
    for (int64_t i = 0; i < n; i++) keep[i] = (float)urand();
    wk_tensor *f = wk_from_data(keep, WK_FLOAT32, nd, sizes);
    if (dt == WK_FLOAT32) return f;
    wk_tensor *d = wk_to_dtype(f, dt, false, false);
    wk_release(f);
    return d;
}

/* max |a - b| over elements, both read as float64; -1 on a shape mismatch */
static double maxdiff(wk_tensor *a, wk_tensor *b) {
    if (!a || !b || wk_numel(a) != wk_numel(b)) return -1;
    int64_t n = wk_numel(a);
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(n + 1)), m = 0;
    wk_copy_to_buffer(a, WK_FLOAT64, x);
    wk_copy_to_buffer(b, WK_FLOAT64, y);
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(x[i] - y[i]) <= m)) m = fabs(x[i] - y[i]);
    free(x);
    free(y);
    return m;
}

static bool bitwise_equal(wk_tensor *a, wk_tensor *b) {
    int64_t n = wk_numel(a);
    if (n != wk_numel(b)) return false;
    float *x = malloc(sizeof(float) * (size_t)(n + 1)), *y = malloc(sizeof(float) * (size_t)(n + 1));
    wk_copy_to_buffer(a, WK_FLOAT32, x);
    wk_copy_to_buffer(b, WK_FLOAT32, y);
    bool eq = memcmp(x, y, sizeof(float) * (size_t)n) == 0;
    free(x);
    free(y);
    return eq;
}

static void report(const char *what, int t, double d, double tol) {
    checked++;
    if (!(d >= 0 && d <= tol)) {
        failures++;
        if (failures < 20) printf("FAIL case %d %s: max diff %g (tol %g)\n", t, what, d, tol);
    }
}

/* big: crosses the GEMM's blocks and the weight gradient's chunks; direct: 2-D stride-1 shapes with enough
 * positions for the direct kernels (Note [Direct convolution]) */
static void one_case(int t, bool big, bool direct) {
    int nd = big || direct ? (wgcl_mode && t % 4 == 0 ? 1 : 2) : (int)irand(1, 3); /* wgcl_mode: 1-D too */
    bool transposed = irand(0, 3) == 0, noncontig = irand(0, 2) == 0;
    int64_t G = irand(0, 2) == 0 ? irand(2, 3) : 1, N = irand(1, 4);
    int64_t Cin = G * irand(1, 4), Cout = G * irand(1, 5);
    if (big) /* crosses the GEMM's blocks and the weight gradient's chunks of images */
        transposed = false, G = 1, N = 30, Cin = 32, Cout = 16;
    int64_t st[3], pd[3], dl[3], op[3], K[3], In[3];
    int64_t isz[5], wsz[5];
    for (int j = 0; j < nd; j++) {
        K[j] = irand(0, 3) == 0 ? 1 : irand(1, nd == 3 ? 3 : 5);
        st[j] = irand(1, 3);
        dl[j] = irand(1, 2);
        pd[j] = irand(0, 2);
        op[j] = transposed ? irand(0, (st[j] > dl[j] ? st[j] : dl[j]) - 1) : 0;
        int64_t ke = dl[j] * (K[j] - 1) + 1;
        In[j] = big ? 16 : irand(1, nd == 3 ? 6 : 12);
        if (big) K[j] = 3, st[j] = 1, dl[j] = 1, pd[j] = 1;
        if (direct) /* stride 2 too: the phases of the forward and the weight gradient; every 3rd case small */
            st[j] = irand(1, 2), In[j] = t % 3 ? irand(12, 20) : irand(3, 9),
            op[j] = transposed ? irand(0, (st[j] > dl[j] ? st[j] : dl[j]) - 1) : 0;
        if (direct && t % 7 == 1) /* rows a whole number of tiles wide (16 AVX2, 32 AVX-512): garbage skipped */
            K[j] = 3, st[j] = 1, dl[j] = 1, pd[j] = 1, op[j] = 0, In[j] = j ? 16 * irand(1, 2) : irand(2, 5), ke = 3;
        if (!transposed && In[j] + 2 * pd[j] < ke) In[j] = ke; /* keep the output non-empty */
        if (transposed && (In[j] - 1) * st[j] - 2 * pd[j] + ke + op[j] <= 0) pd[j] = 0;
    }
    if (direct) /* up to 40 channels: the weight gradient's channel-lane kernel (2 vectors of channels) */
        Cout = G * irand(1, G == 1 ? 40 : 8), Cin = G * irand(1, G == 1 ? 40 : 8);
    if (direct && t % 3 == 0 && G == 1) /* small images, many channels: the channel-lane forward */
        Cout = irand(30, 100), Cin = irand(30, 100);
    if (wgcl_mode) /* >= 8 source and >= 16 destination channels a group, 1-2 groups */
        G = irand(1, 2), Cin = G * irand(8, 40), Cout = G * irand(16, 40);
    if (deep_mode) { /* deep small images (ResNet l3/l4-like): several channel blocks and tap chunks of the
                      * small-image kernel, jobs of several images and a partial last one */
        G = t % 3 == 0 ? 2 : 1, N = irand(5, 11), transposed = t % 4 == 0;
        Cout = G == 1 ? irand(60, 170) : 2 * irand(60, 100), Cin = G == 1 ? irand(60, 300) : 2 * irand(30, 150);
        for (int j = 0; j < nd; j++) K[j] = 3, st[j] = 1, dl[j] = 1, pd[j] = 1, op[j] = 0, In[j] = irand(3, 8);
    }
    if (!big && irand(0, 4) == 0 && !deep_mode) /* a pointwise convolution */
        for (int j = 0; j < nd; j++) K[j] = 1, st[j] = 1, pd[j] = 0, op[j] = 0;
    isz[0] = N, isz[1] = Cin;
    wsz[0] = transposed ? Cin : Cout, wsz[1] = transposed ? Cout / G : Cin / G;
    for (int j = 0; j < nd; j++) isz[j + 2] = In[j], wsz[j + 2] = K[j];
    int64_t bsz = transposed ? Cout : Cout;
    int64_t ni = 1, nw = 1;
    for (int j = 0; j < nd + 2; j++) ni *= isz[j], nw *= wsz[j];
    float *bi = malloc(sizeof(float) * (size_t)ni), *bw = malloc(sizeof(float) * (size_t)nw), bb[256]; /* bias <= 256 */
    wk_tensor *x32 = rand_tensor(nd + 2, isz, WK_FLOAT32, bi), *w32 = rand_tensor(nd + 2, wsz, WK_FLOAT32, bw);
    wk_tensor *b32 = rand_tensor(1, &bsz, WK_FLOAT32, bb);
    wk_tensor *x64 = wk_to_dtype(x32, WK_FLOAT64, false, false), *w64 = wk_to_dtype(w32, WK_FLOAT64, false, false);
    wk_tensor *b64 = wk_to_dtype(b32, WK_FLOAT64, false, false);
    if (noncontig) { /* the same values through a transposed view of a transposed copy */
        wk_tensor *tt = wk_transpose(x32, 0, 1), *c = wk_contiguous(tt), *v = wk_transpose(c, 0, 1);
        wk_release(tt);
        wk_release(c);
        wk_release(x32);
        x32 = v;
    }
    wk_intlist S = wk_ints(st, nd), P = wk_ints(pd, nd), D = wk_ints(dl, nd), O = wk_ints(op, nd);
    wk_tensor *y32 = wk_convolution(x32, w32, b32, S, P, D, transposed, O, G);
    wk_tensor *y64 = wk_convolution(x64, w64, b64, S, P, D, transposed, O, G);
    if (!y32 || !y64) {
        printf("case %d: convolution failed: %s\n", t, wk_error_message());
        wk_error_clear();
        failures++;
    } else {
        int64_t rk = (transposed ? Cin / G : Cin / G), kk = 1;
        for (int j = 0; j < nd; j++) kk *= K[j];
        double tol = 2e-6 * (double)(rk * kk + Cout) + 1e-5;
        report("forward", t, maxdiff(y32, y64), tol);
        /* gradients from an uneven grad_output */
        int64_t no = wk_numel(y32);
        float *bg = malloc(sizeof(float) * (size_t)no);
        int64_t osz[5];
        for (int j = 0; j < nd + 2; j++) osz[j] = wk_sizes(y32)[j];
        wk_tensor *g32 = rand_tensor(nd + 2, osz, WK_FLOAT32, bg), *g64 = wk_to_dtype(g32, WK_FLOAT64, false, false);
        wk_tensor *gi32 = wk__nn_conv_backward_input(g32, w32, wk_ints(isz, nd + 2), S, P, D, transposed, O, G);
        wk_tensor *gi64 = wk__nn_conv_backward_input(g64, w64, wk_ints(isz, nd + 2), S, P, D, transposed, O, G);
        wk_tensor *gw32 = wk__nn_conv_backward_weight(g32, x32, wk_ints(wsz, nd + 2), S, P, D, transposed, O, G);
        wk_tensor *gw64 = wk__nn_conv_backward_weight(g64, x64, wk_ints(wsz, nd + 2), S, P, D, transposed, O, G);
        report("grad_input", t, maxdiff(gi32, gi64), 2e-6 * (double)(Cout * kk) + 1e-5);
        int64_t lo = 1;
        for (int j = 2; j < nd + 2; j++) lo *= transposed ? isz[j] : osz[j];
        report("grad_weight", t, maxdiff(gw32, gw64), 2e-6 * (double)(N * lo * 4) + 1e-5);
        /* thread-count independence: 1 and 3 threads give the same bits */
        wk_set_num_threads(3);
        wk_tensor *y3 = wk_convolution(x32, w32, b32, S, P, D, transposed, O, G);
        wk_tensor *gw3 = wk__nn_conv_backward_weight(g32, x32, wk_ints(wsz, nd + 2), S, P, D, transposed, O, G);
        wk_tensor *gi3 = wk__nn_conv_backward_input(g32, w32, wk_ints(isz, nd + 2), S, P, D, transposed, O, G);
        wk_set_num_threads(1);
        wk_tensor *y1 = wk_convolution(x32, w32, b32, S, P, D, transposed, O, G);
        wk_tensor *gw1 = wk__nn_conv_backward_weight(g32, x32, wk_ints(wsz, nd + 2), S, P, D, transposed, O, G);
        wk_tensor *gi1 = wk__nn_conv_backward_input(g32, w32, wk_ints(isz, nd + 2), S, P, D, transposed, O, G);
        wk_set_num_threads(2);
        checked++;
        if (!(y3 && y1 && gw3 && gw1 && gi3 && gi1 && bitwise_equal(y3, y1) && bitwise_equal(gw3, gw1) &&
              bitwise_equal(gi3, gi1))) {
            failures++;
            printf("FAIL case %d: results depend on the thread count\n", t);
        }
        wk_release(y3), wk_release(gw3), wk_release(gi3), wk_release(y1), wk_release(gw1), wk_release(gi1);
        wk_release(g32), wk_release(g64), wk_release(gi32), wk_release(gi64), wk_release(gw32), wk_release(gw64);
        free(bg);
    }
    wk_release(y32), wk_release(y64), wk_release(x32), wk_release(x64), wk_release(w32), wk_release(w64);
    wk_release(b32), wk_release(b64);
    free(bi);
    free(bw);
}

/* an inf / NaN in the image or in grad_output: the float32 weight gradient is non-finite exactly where the float64
 * reference is (the channels-last path multiplies only im2col's entries, zeros included, as the reference does) */
static void nonfinite_case(int t, bool in_image, bool wide) {
    /* wide: 20 x 18 positions, past the channels-last path: the wide-grid kernel, which skips the garbage columns */
    int64_t isz[4] = {2, 24, wide ? 20 : 7, wide ? 18 : 6}, wsz[4] = {32, 24, 3, 3}, st[2] = {1, wide ? 1 : 2},
            pd[2] = {1, 1}, dl[2] = {1, 1}, op[2] = {0, 0};
    int64_t ni = 2 * 24 * isz[2] * isz[3], nw = 32 * 24 * 9;
    float *bi = malloc(sizeof(float) * (size_t)ni), *bw = malloc(sizeof(float) * (size_t)nw);
    wk_tensor *x32 = rand_tensor(4, isz, WK_FLOAT32, bi), *w32 = rand_tensor(4, wsz, WK_FLOAT32, bw);
    wk_intlist S = wk_ints(st, 2), P = wk_ints(pd, 2), D = wk_ints(dl, 2), O = wk_ints(op, 2);
    wk_tensor *y = wk_convolution(x32, w32, NULL, S, P, D, false, O, 1);
    int64_t osz[4];
    for (int j = 0; j < 4; j++) osz[j] = wk_sizes(y)[j];
    int64_t no = wk_numel(y);
    float *bg = malloc(sizeof(float) * (size_t)no);
    wk_tensor *g32 = rand_tensor(4, osz, WK_FLOAT32, bg);
    if (in_image) { /* an inf and a NaN in the image, buffers rebuilt */
        bi[t % ni] = INFINITY, bi[(t * 7 + 100) % ni] = NAN;
        if (wide) /* in the first and the last column too, which garbage columns would read (0 * inf) */
            bi[(t % 24) * 360 + 5 * 18] = INFINITY, bi[((t + 5) % 24) * 360 + 9 * 18 + 17] = NAN;
        wk_release(x32), x32 = wk_from_data(bi, WK_FLOAT32, 4, isz);
    } else {
        bg[t % no] = -INFINITY, bg[(t * 5 + 17) % no] = NAN;
        wk_release(g32), g32 = wk_from_data(bg, WK_FLOAT32, 4, osz);
    }
    wk_tensor *x64 = wk_to_dtype(x32, WK_FLOAT64, false, false), *g64 = wk_to_dtype(g32, WK_FLOAT64, false, false);
    wk_tensor *gw32 = wk__nn_conv_backward_weight(g32, x32, wk_ints(wsz, 4), S, P, D, false, O, 1);
    wk_tensor *gw64 = wk__nn_conv_backward_weight(g64, x64, wk_ints(wsz, 4), S, P, D, false, O, 1);
    double *a = malloc(sizeof(double) * (size_t)nw), *b = malloc(sizeof(double) * (size_t)nw);
    wk_copy_to_buffer(gw32, WK_FLOAT64, a);
    wk_copy_to_buffer(gw64, WK_FLOAT64, b);
    bool ok = true;
    for (int64_t i = 0; i < nw; i++)
        if (isfinite(b[i]) ? !(fabs(a[i] - b[i]) <= 1e-3) : !(isnan(b[i]) ? isnan(a[i]) : a[i] == b[i])) ok = false;
    checked++;
    if (!ok) {
        failures++;
        printf("FAIL nonfinite case %d (%s): the weight gradient's inf / NaN differ from the reference\n", t,
               in_image ? "image" : "grad_output");
    }
    free(a), free(b), free(bi), free(bw), free(bg);
    wk_release(x32), wk_release(w32), wk_release(y), wk_release(g32), wk_release(x64), wk_release(g64);
    wk_release(gw32), wk_release(gw64);
}

int main(void) {
    wk_set_num_threads(2);
    for (int t = 0; t < 300; t++) one_case(t, false, false);
    one_case(300, true, false);
    for (int t = 301; t < 400; t++) one_case(t, false, true);
    wgcl_mode = true;
    for (int t = 400; t < 460; t++) one_case(t, false, true);
    wgcl_mode = false;
    deep_mode = true;
    for (int t = 460; t < 472; t++) one_case(t, false, true);
    deep_mode = false;
    for (int t = 0; t < 12; t++) nonfinite_case(t * 37, t % 2 == 0, t >= 6);
    printf("test_conv: %d checks, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}
