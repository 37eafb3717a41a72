/* nn_grid_kern.h — the 2-D grid_sampler kernels, stamped out once per scalar type by src/nn_spatial.c with
 * GK_T (float or double) and GK_(name) (a suffixed name). Every step is computed in GK_T in the order of torch's
 * vectorised CPU kernel (GridSamplerKernel.cpp), so float32 results round as torch's do: the unnormalisation is
 * (g + 1) * scale (- 0.5), the bilinear weights are products of the distances to the four sides, the bicubic
 * coefficients use A = -0.75, and the taps are summed left to right.
 * torch's build lets the compiler fuse a * b + c into one rounding (FMA); GK_(fma) does the same at the
 * places where it does (fma(a, b, c * d) for a * b + c * d), which decides nearest ties and reflections.
 * Note [grid sampler integer positions]: torch converts floored / rounded positions to integers with the x86
 * conversion, which answers INT_MIN for NaN and for anything out of range; gk_int answers a far negative sentinel
 * for those, so they fall outside every bound in the same way (and adding 1..3 to it cannot overflow). */

typedef struct {
    GK_T max_val, scale, low, twice_span;
    bool empty;
    int pad;
} GK_(loc);

static GK_(loc) GK_(loc_make)(int64_t size, int pad, bool ac) {
    GK_(loc) L;
    L.max_val = (GK_T)(size - 1);
    L.pad = pad;
    if (ac) {
        L.scale = (GK_T)(size - 1) / 2;
        L.low = 0;
        L.twice_span = (GK_T)(size - 1) * 2;
        L.empty = size <= 1;
    } else {
        L.scale = (GK_T)size / 2;
        L.low = (GK_T)-0.5;
        L.twice_span = (GK_T)size * 2;
        L.empty = size <= 0;
    }
    return L;
}

static inline GK_T GK_(unnorm)(const GK_(loc) *L, GK_T g) {
    return L->low == 0 ? (g + 1) * L->scale : GK_(fma)(g + 1, L->scale, (GK_T)-0.5);
}
/* clamp to [0, max_val] with NaN to 0 (torch's clamp_min / clamp_max operand order) */
static inline GK_T GK_(clip)(const GK_(loc) *L, GK_T x) {
    GK_T r = x > 0 ? x : 0;
    return r < L->max_val ? r : L->max_val;
}
static inline GK_T GK_(reflect)(const GK_(loc) *L, GK_T x, GK_T *gmul) {
    if (L->empty) {
        if (gmul) *gmul = 0;
        return 0;
    }
    GK_T in = x - L->low;
    bool neg = in < 0;
    GK_T a = in < 0 ? -in : in;
    GK_T flips = GK_(trunc)(a / L->twice_span);
    GK_T extra = GK_(fma)(-flips, L->twice_span, a), refl = L->twice_span - extra;
    bool more = extra > refl;
    if (gmul) *gmul = (more ^ neg) ? -1 : 1;
    return (more ? refl : extra) + L->low;
}
/* padding applied to an unnormalised position (compute_coordinates) */
static inline GK_T GK_(pad)(const GK_(loc) *L, GK_T x) {
    if (L->pad == 1) return GK_(clip)(L, x);
    if (L->pad == 2) return GK_(clip)(L, GK_(reflect)(L, x, NULL));
    return x;
}
/* unnormalise + pad, with the gradient multiplier d(position)/d(grid) when gmul is given */
static inline GK_T GK_(apply)(const GK_(loc) *L, GK_T g, GK_T *gmul) {
    GK_T x = GK_(unnorm)(L, g);
    if (!gmul) return GK_(pad)(L, x);
    *gmul = L->scale;
    if (L->pad == 0) return x;
    GK_T m = L->scale;
    if (L->pad == 2) {
        GK_T gr;
        x = GK_(reflect)(L, x, &gr);
        m = gr * m;
    }
    bool inb = x > 0 && x < L->max_val; /* the borders count as out of bounds for the gradient */
    if (isnan(x)) inb = true, x = 0;    /* torch reads out of bounds here; wick reads the first pixel */
    else x = x > 0 ? (x < L->max_val ? x : L->max_val) : 0;
    *gmul = inb ? m : 0;
    return x;
}

static inline int64_t GK_(int)(GK_T v) {
    if (!(v > (GK_T)-1e15 && v < (GK_T)1e15)) return INT64_MIN / 4;
    return (int64_t)v;
}

#ifndef GK_PLAIN
#define GK_PLAIN(a, b, c) ((a) * (b) + (c)) /* torch's cubic coefficients round each step */
#endif
static inline void GK_(cubic)(GK_T c[4], GK_T t) {
    const GK_T A = (GK_T)-0.75;
    GK_T x = t + 1;
    c[0] = GK_PLAIN(GK_PLAIN(GK_PLAIN(A, x, -5 * A), x, 8 * A), x, -4 * A);
    x = t;
    c[1] = GK_PLAIN(GK_PLAIN(A + 2, x, -(A + 3)) * x, x, 1);
    x = 1 - t;
    c[2] = GK_PLAIN(GK_PLAIN(A + 2, x, -(A + 3)) * x, x, 1);
    x = 2 - t;
    c[3] = GK_PLAIN(GK_PLAIN(GK_PLAIN(A, x, -5 * A), x, 8 * A), x, -4 * A);
}
static inline void GK_(cubic_grad)(GK_T c[4], GK_T t) {
    const GK_T A = (GK_T)-0.75;
    GK_T x = -1 - t;
    c[0] = GK_PLAIN(GK_PLAIN(-3 * A, x, -10 * A), x, -8 * A);
    x = 0 - t;
    c[1] = GK_PLAIN(-3 * (A + 2), x, -2 * (A + 3)) * x;
    x = 1 - t;
    c[2] = GK_PLAIN(3 * (A + 2), x, -2 * (A + 3)) * x;
    x = 2 - t;
    c[3] = GK_PLAIN(GK_PLAIN(3 * A, x, -10 * A), x, 8 * A);
}

/* one bicubic tap: the padded integer position and whether it is read (zeros padding masks out of bounds) */
static inline bool GK_(tap)(const GK_(loc) *L, GK_T pos, int64_t size, int64_t *i) {
    *i = GK_(int)(GK_(pad)(L, pos));
    if (L->pad != 0) {
        if (*i < 0) *i = 0; /* never reached for finite positions: padded taps are in bounds */
        if (*i > size - 1) *i = size - 1;
        return true;
    }
    return *i >= 0 && *i < size;
}

/* x [N, C, H, W], grid [N, Ho, Wo, 2], all contiguous. Forward (gy NULL): y [N, C, Ho, Wo].
 * Backward (gy given, [N, C, Ho, Wo]): gx [N, C, H, W] (zeroed, may be NULL) and gg [N, Ho, Wo, 2]. */
static void GK_(run)(const GK_T *x, const GK_T *grid, int64_t N, int64_t C, int64_t H, int64_t W, int64_t Ho,
                     int64_t Wo, int mode, int pad, bool ac, GK_T *y, const GK_T *gy, GK_T *gx, GK_T *gg) {
    GK_(loc) LW = GK_(loc_make)(W, pad, ac), LH = GK_(loc_make)(H, pad, ac);
    const bool back = gy != NULL, must_in = pad != 0;
    const int64_t HW = H * W, S = Ho * Wo;
    for (int64_t n = 0; n < N; n++) {
        const GK_T *xn = x + n * C * HW;
        for (int64_t s = 0; s < S; s++) {
            GK_T g0 = grid[(n * S + s) * 2], g1 = grid[(n * S + s) * 2 + 1];
            GK_T gxm = 0, gym = 0, ax = 0, ay = 0;
            if (mode == 0) {
                GK_T px = GK_(apply)(&LW, g0, back ? &gxm : NULL), py = GK_(apply)(&LH, g1, back ? &gym : NULL);
                GK_T xw = GK_(floor)(px), yn = GK_(floor)(py);
                GK_T w = px - xw, e = 1 - w, nn = py - yn, so = 1 - nn;
                GK_T wnw = so * e, wne = so * w, wsw = nn * e, wse = nn * w;
                int64_t ixw = GK_(int)(xw), iyn = GK_(int)(yn), ixe = ixw + 1, iys = iyn + 1;
                bool mw = must_in || (ixw > -1 && ixw < W), mn = must_in || (iyn > -1 && iyn < H);
                bool me = must_in ? ixe < W : (ixe > -1 && ixe < W), ms = must_in ? iys < H : (iys > -1 && iys < H);
                bool mnw = must_in || (mw && mn), mne = me && mn, msw = mw && ms, mse = me && ms;
                for (int64_t c = 0; c < C; c++) {
                    const GK_T *xc = xn + c * HW;
                    GK_T vnw = mnw ? xc[iyn * W + ixw] : 0, vne = mne ? xc[iyn * W + ixe] : 0;
                    GK_T vsw = msw ? xc[iys * W + ixw] : 0, vse = mse ? xc[iys * W + ixe] : 0;
                    int64_t o = (n * C + c) * S + s;
                    if (!back) {
                        y[o] = GK_(fma)(vse, wse, GK_(fma)(vsw, wsw, GK_(fma)(vnw, wnw, vne * wne)));
                        continue;
                    }
                    GK_T go = gy[o];
                    if (gx) {
                        GK_T *gc = gx + (n * C + c) * HW;
                        if (mnw) gc[iyn * W + ixw] += wnw * go;
                        if (mne) gc[iyn * W + ixe] += wne * go;
                        if (msw) gc[iys * W + ixw] += wsw * go;
                        if (mse) gc[iys * W + ixe] += wse * go;
                    }
                    ax = GK_(fma)(GK_(fma)(vne - vnw, so, (vse - vsw) * nn), go, ax);
                    ay = GK_(fma)(GK_(fma)(vsw - vnw, e, (vse - vne) * w), go, ay);
                }
                if (back) {
                    gg[(n * S + s) * 2] = ax * gxm;
                    gg[(n * S + s) * 2 + 1] = ay * gym;
                }
            } else if (mode == 1) {
                GK_T px = GK_(apply)(&LW, g0, NULL), py = GK_(apply)(&LH, g1, NULL);
                int64_t ix = GK_(int)(GK_(rint)(px)), iy = GK_(int)(GK_(rint)(py));
                bool m = must_in || (ix > -1 && ix < W && iy > -1 && iy < H);
                for (int64_t c = 0; c < C; c++) {
                    int64_t o = (n * C + c) * S + s;
                    if (!back) y[o] = m ? xn[c * HW + iy * W + ix] : 0;
                    else if (gx && m) gx[(n * C + c) * HW + iy * W + ix] += gy[o];
                }
                if (back) gg[(n * S + s) * 2] = gg[(n * S + s) * 2 + 1] = 0;
            } else {
                GK_T px = GK_(unnorm)(&LW, g0), py = GK_(unnorm)(&LH, g1);
                GK_T fx = GK_(floor)(px), fy = GK_(floor)(py);
                GK_T cx[4], cy[4], cxg[4], cyg[4];
                GK_(cubic)(cx, px - fx);
                GK_(cubic)(cy, py - fy);
                if (back) {
                    GK_(cubic_grad)(cxg, px - fx);
                    GK_(cubic_grad)(cyg, py - fy);
                }
                int64_t ixs[4], iys[4];
                bool mx[4], my[4];
                for (int k = 0; k < 4; k++) {
                    mx[k] = GK_(tap)(&LW, fx + (GK_T)(k - 1), W, &ixs[k]);
                    my[k] = GK_(tap)(&LH, fy + (GK_T)(k - 1), H, &iys[k]);
                }
                for (int64_t c = 0; c < C; c++) {
                    const GK_T *xc = xn + c * HW;
                    int64_t o = (n * C + c) * S + s;
                    if (!back) {
                        GK_T r[4];
                        for (int i = 0; i < 4; i++) {
                            GK_T v[4];
                            for (int k = 0; k < 4; k++) v[k] = (mx[k] && my[i]) ? xc[iys[i] * W + ixs[k]] : 0;
                            r[i] = GK_(fma)(cx[3], v[3], GK_(fma)(cx[2], v[2], GK_(fma)(cx[0], v[0], cx[1] * v[1])));
                        }
                        y[o] = GK_(fma)(cy[3], r[3], GK_(fma)(cy[2], r[2], GK_(fma)(cy[0], r[0], cy[1] * r[1])));
                        continue;
                    }
                    GK_T go = gy[o];
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++) {
                            bool m = mx[i] && my[j];
                            if (gx && m) gx[(n * C + c) * HW + iys[j] * W + ixs[i]] += go * cx[i] * cy[j];
                            GK_T v = m ? xc[iys[j] * W + ixs[i]] : 0;
                            ax = GK_(fma)(-(v * go * cxg[i]), cy[j], ax);
                            ay = GK_(fma)(-(v * go * cyg[j]), cx[i], ay);
                        }
                }
                if (back) {
                    gg[(n * S + s) * 2] = ax * LW.scale;
                    gg[(n * S + s) * 2 + 1] = ay * LH.scale;
                }
            }
        }
    }
}
