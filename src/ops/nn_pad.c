/* nn_pad.c — padding: constant_pad_nd (any dims, negative pads crop), reflection / replication / circular pads of
 * the last 1-3 dims, and their backward ops. Every mode is an index map per padded dim: output position -> source
 * position (or -1 for the constant), so forward gathers and backward scatter-adds through the same map.
 * Pads are given last dim first, as torch: (left_last, right_last, left_prev, right_prev, ...). */
#include "ops/nn.h"

#include <stdio.h>

typedef enum { PAD_CONSTANT, PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR } pad_mode;

/* Source index of output position o in a dim of size n padded by (left, right) */
static int64_t pad_src(pad_mode m, int64_t o, int64_t n, int64_t left, int64_t right) {
    int64_t i = (int64_t)((uint64_t)o - (uint64_t)left); /* clamped / reflected below; no UB for hostile pads */
    if (m == PAD_CIRCULAR) { /* torch crops negative pads first, then wraps around what is left */
        int64_t cl = left < 0 ? -left : 0, cr = right < 0 ? -right : 0, n2 = n - cl - cr;
        if (n2 <= 0) return -1;
        i = o - (left > 0 ? left : 0);
        return cl + ((i % n2) + n2) % n2;
    }
    switch (m) {
    case PAD_CONSTANT: return (i >= 0 && i < n) ? i : -1;
    case PAD_REFLECT:
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
        return i;
    case PAD_REPLICATE: return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case PAD_CIRCULAR: return ((i % n) + n) % n;
    }
    return -1;
}

/* The maps: for each of the last k dims, map[j][o] for o in [0, out[j]). One malloc'ed block. */
typedef struct {
    int k;                       /* padded dims */
    int64_t batch;               /* product of the leading dims */
    int64_t in[3], out[3];       /* sizes of the padded dims */
    int64_t *map[3];             /* [out[j]] source index or -1 */
    int64_t *block;
} pad_maps;

static void maps_free(pad_maps *m) { free(m->block); }

static int maps_build(pad_maps *M, pad_mode mode, const int64_t *sizes, int ndim, const int64_t *pad, int k) {
    memset(M, 0, sizeof *M);
    M->k = k;
    M->batch = wk__prod(sizes, ndim - k);
    int64_t total = 0, osz[WK_MAX_DIM]; /* [ndim] the output sizes: checked as the output's allocation is */
    memcpy(osz, sizes, sizeof(int64_t) * (size_t)ndim);
    for (int j = 0; j < k; j++) {
        int d = ndim - k + j;
        int64_t left = pad[2 * (k - 1 - j)], right = pad[2 * (k - 1 - j) + 1];
        M->in[j] = sizes[d];
        M->out[j] = (int64_t)((uint64_t)sizes[d] + (uint64_t)left + (uint64_t)right); /* torch's wrapping sum */
        if (M->out[j] < 0) M->out[j] = 0;
        osz[d] = M->out[j];
    }
    if (wk__check_sizes(ndim, osz) < 0) return -1; /* numel of the output overflows: torch's text */
    for (int j = 0; j < k; j++)
        if (__builtin_add_overflow(total, M->out[j], &total) || (uint64_t)total > SIZE_MAX / sizeof(int64_t) / 2)
            return wk__error(WK_RUNTIME_ERROR, "padding: output sizes too large"), -1;
    M->block = wk__malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
    if (!M->block) return -1;
    int64_t *p = M->block;
    for (int j = 0; j < k; j++) {
        int64_t left = pad[2 * (k - 1 - j)], right = pad[2 * (k - 1 - j) + 1];
        M->map[j] = p;
        for (int64_t o = 0; o < M->out[j]; o++) p[o] = pad_src(mode, o, M->in[j], left, right);
        p += M->out[j];
    }
    return 0;
}

/* out[b, o...] = in[b, map(o)...] (fill where any map is -1); y: [batch, prod(out)], x: [batch, prod(in)] */
static void pad_gather(const pad_maps *M, const double *x, double *y, double fill) {
    int64_t isz = 1, osz = 1;
    for (int j = 0; j < M->k; j++) {
        isz *= M->in[j];
        osz *= M->out[j];
    }
    for (int64_t b = 0; b < M->batch; b++)
        for (int64_t o = 0; o < osz; o++) {
            int64_t rem = o, src = 0, mult = 1;
            bool inside = true;
            for (int j = M->k - 1; j >= 0; j--) {
                int64_t s = M->map[j][rem % M->out[j]];
                rem /= M->out[j];
                if (s < 0) inside = false;
                src += s * mult;
                mult *= M->in[j];
            }
            y[b * osz + o] = inside ? x[b * isz + src] : fill;
        }
}

/* the adjoint: gx[b, map(o)...] += gy[b, o...] */
static void pad_scatter(const pad_maps *M, const double *gy, double *gx) {
    int64_t isz = 1, osz = 1;
    for (int j = 0; j < M->k; j++) {
        isz *= M->in[j];
        osz *= M->out[j];
    }
    for (int64_t b = 0; b < M->batch; b++)
        for (int64_t o = 0; o < osz; o++) {
            int64_t rem = o, src = 0, mult = 1;
            bool inside = true;
            for (int j = M->k - 1; j >= 0; j--) {
                int64_t s = M->map[j][rem % M->out[j]];
                rem /= M->out[j];
                if (s < 0) inside = false;
                src += s * mult;
                mult *= M->in[j];
            }
            if (inside) gx[b * isz + src] += gy[b * osz + o];
        }
}

static wk_tensor *pad_forward(wk_tensor *self, const int64_t *pad, int k, pad_mode mode, double fill) {
    pad_maps M;
    if (maps_build(&M, mode, self->sizes, self->ndim, pad, k) < 0) return NULL;
    int64_t osz[WK_MAX_DIM];
    memcpy(osz, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    for (int j = 0; j < k; j++) osz[self->ndim - k + j] = M.out[j];
    wk_tensor *w = wk__nn_work(self->ndim, osz);
    double *x = w ? wk__nn_load(self) : NULL;
    if (x) pad_gather(&M, x, wk__nn_data(w), fill);
    else {
        wk_release(w);
        w = NULL;
    }
    free(x);
    maps_free(&M);
    return wk__nn_finish(w, self->dtype);
}

static wk_tensor *pad_backward(wk_tensor *grad_output, wk_tensor *self, const int64_t *pad, int k, pad_mode mode) {
    pad_maps M;
    if (maps_build(&M, mode, self->sizes, self->ndim, pad, k) < 0) return NULL;
    int64_t osz = 1;
    for (int j = 0; j < k; j++) osz *= M.out[j];
    wk_tensor *w = NULL;
    if (wk__numel(grad_output) != M.batch * osz) {
        wk__error(WK_RUNTIME_ERROR, "padding backward: grad_output has the wrong number of elements");
    } else {
        w = wk__nn_work(self->ndim, self->sizes);
        double *g = w ? wk__nn_load(grad_output) : NULL;
        if (g) pad_scatter(&M, g, wk__nn_data(w));
        else {
            wk_release(w);
            w = NULL;
        }
        free(g);
    }
    maps_free(&M);
    return wk__nn_finish(w, grad_output->dtype);
}

/* ---- constant_pad_nd ----
 * torch's order (PadNd.cpp): pads below -2**62 are refused as SymInts; negative pads first narrow the input, dims
 * outer to inner, left then right (narrow's error); all pads <= 0 is a clone of that view; else each output size is
 * the wrapping int64 sum size + left + right (a negative one is torch's "negative output size" error) and the output
 * is allocated (its overflow check), filled, and the narrowed input copied into its inner block. */
wk_tensor *wk_impl_constant_pad_nd(wk_tensor *self, wk_intlist pad, wk_scalar value) {
    if (pad.len % 2) return WK_FAIL(WK_RUNTIME_ERROR, "Length of pad must be even but instead it equals %lld", (long long)pad.len);
    if (pad.len / 2 > self->ndim) {
        wk__error(WK_RUNTIME_ERROR,
                  "Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
                  "%lld while the input has %d dimensions.",
                  (long long)pad.len, self->ndim);
        return NULL;
    }
    for (int64_t i = 0; i < pad.len; i++)
        if (pad.data[i] < -(INT64_C(1) << 62))
            return WK_FAIL(WK_RUNTIME_ERROR, "%s:%d: SymIntArrayRef expected to contain only concrete integers",
                           __FILE__, __LINE__);
    int k = (int)(pad.len / 2), nd = self->ndim;
    int64_t osz[WK_MAX_DIM], ov[WK_MAX_DIM]; /* [nd] the output's sizes; ov: the narrowed input's (the overlap) */
    memcpy(osz, self->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(ov, self->sizes, sizeof(int64_t) * (size_t)nd);
    bool positive = false;
    for (int d = nd - k; d < nd; d++) { /* pads >= -2**62 and sizes >= 0: no overflow here */
        int64_t l = pad.data[2 * (nd - 1 - d)], r = pad.data[2 * (nd - 1 - d) + 1];
        if (l < 0 && (ov[d] += l) < 0) return WK_FAIL(WK_RUNTIME_ERROR, "narrow(): length must be non-negative.");
        if (r < 0 && (ov[d] += r) < 0) return WK_FAIL(WK_RUNTIME_ERROR, "narrow(): length must be non-negative.");
        positive |= l > 0 || r > 0;
    }
    if (positive) {
        for (int d = nd - k; d < nd; d++) {
            int64_t l = pad.data[2 * (nd - 1 - d)], r = pad.data[2 * (nd - 1 - d) + 1];
            osz[d] = (int64_t)((uint64_t)self->sizes[d] + (uint64_t)l + (uint64_t)r); /* torch's wrapping sum */
            if (osz[d] < 0) {
                wk__error(WK_RUNTIME_ERROR,
                          "The input size %lld, plus negative padding %lld and %lld resulted in a negative output "
                          "size, which is invalid. Check dimension %d of your input.",
                          (long long)self->sizes[d], (long long)l, (long long)r, d);
                return NULL;
            }
        }
    } else {
        memcpy(osz, ov, sizeof(int64_t) * (size_t)nd);
    }
    /* out = value everywhere, then the overlapping block of self copied in through two strided views */
    wk_tensor *out = wk__full(nd, osz, self->dtype, value);
    if (!out || wk__prod(ov, nd) == 0) return out;
    /* both blocks are non-empty here, so each offset lies inside its own tensor: no overflow */
    int64_t ooff = 0, ioff = self->offset;
    for (int d = nd - k; d < nd; d++) {
        int64_t l = pad.data[2 * (nd - 1 - d)];
        if (l > 0) ooff += l * out->strides[d];
        else ioff += -l * self->strides[d];
    }
    wk_tensor *dst = wk__alias(out, nd, ov, out->strides, ooff);
    wk_tensor *src = dst ? wk__alias(self, nd, ov, self->strides, ioff) : NULL;
    int rc = src ? wk__copy_(dst, src) : -1;
    wk_release(dst);
    wk_release(src);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

/* the adjoint of constant padding is padding by the negated amounts (negated as unsigned: no UB at INT64_MIN) */
wk_tensor *wk_impl__nn_constant_pad_nd_backward(wk_tensor *grad, wk_intlist pad) {
    int64_t neg[2 * WK_MAX_DIM];
    if (pad.len > 2 * WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "constant_pad_nd: too many pads");
    for (int64_t i = 0; i < pad.len; i++) neg[i] = (int64_t)(0 - (uint64_t)pad.data[i]);
    return wk_impl_constant_pad_nd(grad, wk_ints(neg, pad.len), wk_int(0));
}

/* ---- reflection / replication / circular ---- */
static int pad_check(const wk_tensor *self, wk_intlist padding, int k, pad_mode mode) {
    static const char *argno[4] = {"", "#4", "#6", "#8"};
    if (padding.len != 2 * k) {
        wk__error(WK_RUNTIME_ERROR, "padding size is expected to be %d, but got: %lld", 2 * k, (long long)padding.len);
        return -1;
    }
    /* batched (k+2 dims) or unbatched (k+1 dims) with non-empty non-batch dims */
    bool dims_ok = self->ndim == k + 1 || self->ndim == k + 2;
    for (int d = self->ndim == k + 2; dims_ok && mode != PAD_CIRCULAR && d < self->ndim; d++)
        dims_ok = self->sizes[d] != 0; /* torch's check_valid_input: only the batch dim may be empty */
    if (!dims_ok) {
        static const char *dims[4] = {"", "2D or 3D", "3D or 4D", "4D or 5D"};
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expected %s (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %s",
                  dims[k], b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    for (int j = 0; j < k; j++) {
        int d = self->ndim - 1 - j;
        int64_t n = self->sizes[d], l = padding.data[2 * j], r = padding.data[2 * j + 1];
        if (mode == PAD_REFLECT && (l >= n || r >= n)) {
            wk_strbuf b = {0};
            wk_sb_ints(&b, self->sizes, self->ndim);
            wk__error(WK_RUNTIME_ERROR,
                      "Argument %s: Padding size should be less than the corresponding input dimension, but got: "
                      "padding (%lld, %lld) at dimension %d of input %s",
                      argno[j + 1], (long long)l, (long long)r, d, b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
        if (mode == PAD_CIRCULAR && (l > n || r > n))
            return wk__error(WK_RUNTIME_ERROR, "Padding value causes wrapping around more than once."), -1;
        /* an output size of 0 or less, as torch's kernels tell it: the 1-d reflect / replicate kernels refuse 0;
         * circular and the 2-d / 3-d kernels make an empty dim, and a negative one fails as each does */
        int64_t o = (int64_t)((uint64_t)n + (uint64_t)l + (uint64_t)r); /* wraps as torch's int64 sum does */
        if (mode == PAD_CIRCULAR && o < 0)
            return wk__error(WK_RUNTIME_ERROR, "Negative padding value is resulting in an empty dimension"), -1;
        if (mode != PAD_CIRCULAR && k == 1 && o < 1) {
            wk__error(WK_RUNTIME_ERROR, "input (W: %lld) is too small. Calculated output W: %lld", (long long)n,
                      (long long)o);
            return -1;
        }
        if (mode != PAD_CIRCULAR && o < 0) { /* the output's allocation refuses it */
            int64_t out[WK_MAX_DIM]; /* [ndim] the output sizes, this dim's negative */
            memcpy(out, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
            out[d] = o;
            return wk__check_sizes(self->ndim, out);
        }
        if (mode != PAD_CONSTANT && n == 0) {
            wk__error(WK_RUNTIME_ERROR, "padding of a zero-size dimension is not supported");
            return -1;
        }
    }
    return 0;
}

#define PAD_OP(NAME, K, MODE)                                                                               \
    wk_tensor *wk_impl_##NAME(wk_tensor *self, wk_intlist padding) {                                        \
        if (pad_check(self, padding, K, MODE) < 0) return NULL;                                             \
        return pad_forward(self, padding.data, K, MODE, 0);                                                 \
    }                                                                                                       \
    wk_tensor *wk_impl_##NAME##_backward(wk_tensor *grad_output, wk_tensor *self, wk_intlist padding) {     \
        if (pad_check(self, padding, K, MODE) < 0) return NULL;                                             \
        return pad_backward(grad_output, self, padding.data, K, MODE);                                      \
    }
PAD_OP(reflection_pad1d, 1, PAD_REFLECT)
PAD_OP(reflection_pad2d, 2, PAD_REFLECT)
PAD_OP(reflection_pad3d, 3, PAD_REFLECT)
PAD_OP(replication_pad1d, 1, PAD_REPLICATE)
PAD_OP(replication_pad2d, 2, PAD_REPLICATE)
PAD_OP(replication_pad3d, 3, PAD_REPLICATE)

wk_tensor *wk_impl__pad_circular(wk_tensor *self, wk_intlist pad) {
    int k = (int)(pad.len / 2);
    if (pad.len % 2 || k < 1 || k > 3) return WK_FAIL(WK_RUNTIME_ERROR, "Padding length must be divisible by 2");
    if (pad_check(self, pad, k, PAD_CIRCULAR) < 0) return NULL;
    return pad_forward(self, pad.data, k, PAD_CIRCULAR, 0);
}
wk_tensor *wk_impl__nn_pad_circular_backward(wk_tensor *grad_output, wk_tensor *self, wk_intlist pad) {
    int k = (int)(pad.len / 2);
    if (pad.len % 2 || k < 1 || k > 3) return WK_FAIL(WK_RUNTIME_ERROR, "Padding length must be divisible by 2");
    return pad_backward(grad_output, self, pad.data, k, PAD_CIRCULAR);
}

/* torch.nn.functional.pad (torch._C._nn.pad) */
wk_tensor *wk_impl_pad(wk_tensor *self, wk_intlist pad, const char *mode, wk_optfloat value) {
    if (!mode) mode = "constant";
    /* torch's _pad_enum: both length checks come first, for every mode */
    if (pad.len % 2) return WK_FAIL(WK_RUNTIME_ERROR, "Padding length must be divisible by 2");
    if (pad.len > 2 * self->ndim) {
        wk__error(WK_RUNTIME_ERROR,
                  "Padding length should be less than or equal to two times the input dimension but got padding "
                  "length %lld and input of dimension %d",
                  (long long)pad.len, self->ndim);
        return NULL;
    }
    if (!strcmp(mode, "constant")) return wk_constant_pad_nd(self, pad, value.has ? wk_float(value.v) : wk_int(0));
    if (value.has && value.v != 0) {
        wk__error(WK_RUNTIME_ERROR, "Padding mode \"%s\" doesn't take in value argument", mode);
        return NULL;
    }
    int k = (int)(pad.len / 2);
    bool ok = pad.len % 2 == 0 && ((k == 1 && (self->ndim == 2 || self->ndim == 3)) ||
                                   (k == 2 && (self->ndim == 3 || self->ndim == 4)) ||
                                   (k == 3 && (self->ndim == 4 || self->ndim == 5)));
    bool known = !strcmp(mode, "reflect") || !strcmp(mode, "replicate") || !strcmp(mode, "circular");
    if (!known) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "Unrecognised padding mode %s", mode);
        return NULL;
    }
    if (!ok) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR,
                  "Padding size %lld is not supported for %dD input tensor.\nSupported combinations for non-constant "
                  "padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: padding "
                  "size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
                  (long long)pad.len, self->ndim);
        return NULL;
    }
    if (!strcmp(mode, "circular")) return wk__pad_circular(self, pad);
    if (!strcmp(mode, "reflect"))
        return k == 1 ? wk_reflection_pad1d(self, pad) : k == 2 ? wk_reflection_pad2d(self, pad) : wk_reflection_pad3d(self, pad);
    return k == 1 ? wk_replication_pad1d(self, pad) : k == 2 ? wk_replication_pad2d(self, pad) : wk_replication_pad3d(self, pad);
}
