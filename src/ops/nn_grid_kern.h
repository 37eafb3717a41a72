/* nn_grid_kern.h — the 2-D grid_sampler kernels, stamped out once per scalar type by src/ops/nn_spatial.c with
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

/* ---- 5-D input: torch's scalar kernel (GridSampler.cpp / GridSampler.h): unnormalise as ((g + 1) / 2) * (S - 1)
 * or ((g + 1) * S - 1) / 2, reflect with fmod, trilinear weights as products of distances to the opposite corner. */
static inline GK_T GK_(s_reflect)(GK_T in, int64_t twice_low, int64_t twice_high, GK_T *gmul) {
    if (twice_low == twice_high) {
        if (gmul) *gmul = 0;
        return 0;
    }
    GK_T mn = (GK_T)twice_low / 2, span = (GK_T)(twice_high - twice_low) / 2;
    in = in - mn;
    int mult = 1;
    if (in < 0) mult = -1, in = -in;
    GK_T extra = GK_(fmod)(in, span);
    GK_T fl = GK_(floor)(in / span);
    int64_t flips = (fl > (GK_T)-1e15 && fl < (GK_T)1e15) ? (int64_t)fl : 0;
    if (flips % 2 == 0) {
        if (gmul) *gmul = (GK_T)mult;
        return extra + mn;
    }
    if (gmul) *gmul = (GK_T)-mult;
    return span - extra + mn;
}
/* grid_sampler_compute_source_index(_set_grad) */
static inline GK_T GK_(s_source)(GK_T g, int64_t size, int pad, bool ac, GK_T *gmul) {
    GK_T x, m;
    if (ac) x = ((g + 1) / 2) * (GK_T)(size - 1), m = (GK_T)(size - 1) / 2;
    else x = ((g + 1) * (GK_T)size - 1) / 2, m = (GK_T)size / 2;
    if (pad == 2) {
        GK_T gr;
        x = ac ? GK_(s_reflect)(x, 0, 2 * (size - 1), &gr) : GK_(s_reflect)(x, -1, 2 * size - 1, &gr);
        m = m * gr;
    }
    if (pad != 0) {
        GK_T mx = (GK_T)(size - 1);
        if (x <= 0) x = 0, m = 0;
        else if (x >= mx) x = mx, m = 0;
        else if (isnan(x)) x = 0; /* wick: NaN reads the first pixel */
    }
    if (gmul) *gmul = m;
    return x;
}
static inline bool GK_(in3)(int64_t d, int64_t h, int64_t w, int64_t D, int64_t H, int64_t W) {
    return d >= 0 && d < D && h >= 0 && h < H && w >= 0 && w < W;
}

/* x [N, C, D, H, W], grid [N, Do, Ho, Wo, 3] contiguous; as GK_(run) */
static void GK_(run3d)(const GK_T *x, const GK_T *grid, int64_t N, int64_t C, int64_t D, int64_t H, int64_t W,
                       int64_t S, int mode, int pad, bool ac, GK_T *y, const GK_T *gy, GK_T *gx, GK_T *gg) {
    const bool back = gy != NULL;
    const int64_t V = D * H * W;
    for (int64_t n = 0; n < N; n++)
        for (int64_t s = 0; s < S; s++) {
            const GK_T *gp = grid + (n * S + s) * 3;
            GK_T mx, my, mz;
            GK_T ix = GK_(s_source)(gp[0], W, pad, ac, &mx), iy = GK_(s_source)(gp[1], H, pad, ac, &my);
            GK_T iz = GK_(s_source)(gp[2], D, pad, ac, &mz);
            if (mode == 1) {
                int64_t xn = GK_(int)(GK_(rint)(ix)), yn = GK_(int)(GK_(rint)(iy)), zn = GK_(int)(GK_(rint)(iz));
                bool m = GK_(in3)(zn, yn, xn, D, H, W);
                for (int64_t c = 0; c < C; c++) {
                    int64_t o = (n * C + c) * S + s, at = (n * C + c) * V + (zn * H + yn) * W + xn;
                    if (!back) y[o] = m ? x[at] : 0;
                    else if (gx && m) gx[at] += gy[o];
                }
                if (back) gg[(n * S + s) * 3] = gg[(n * S + s) * 3 + 1] = gg[(n * S + s) * 3 + 2] = 0;
                continue;
            }
            GK_T fx = GK_(floor)(ix), fy = GK_(floor)(iy), fz = GK_(floor)(iz);
            int64_t x0 = GK_(int)(fx), y0 = GK_(int)(fy), z0 = GK_(int)(fz);
            GK_T x1f = fx + 1, y1f = fy + 1, z1f = fz + 1;
            /* distances: towards the far (1) and near (0) corner on each axis */
            GK_T ax1 = x1f - ix, ax0 = ix - fx, ay1 = y1f - iy, ay0 = iy - fy, az1 = z1f - iz, az0 = iz - fz;
            /* corners in torch's order tnw tne tsw tse bnw bne bsw bse: (dz, dy, dx) bits */
            GK_T wts[8];
            for (int k = 0; k < 8; k++) {
                int dz = k >> 2, dy = (k >> 1) & 1, dx = k & 1;
                wts[k] = (dx ? ax0 : ax1) * (dy ? ay0 : ay1) * (dz ? az0 : az1);
            }
            GK_T gix = 0, giy = 0, giz = 0;
            for (int64_t c = 0; c < C; c++) {
                int64_t o = (n * C + c) * S + s;
                const GK_T *xc = x + (n * C + c) * V;
                GK_T acc = 0, go = back ? gy[o] : 0;
                for (int k = 0; k < 8; k++) {
                    int dz = k >> 2, dy = (k >> 1) & 1, dx = k & 1;
                    int64_t zz = z0 + dz, yy = y0 + dy, xx = x0 + dx;
                    if (!GK_(in3)(zz, yy, xx, D, H, W)) continue;
                    GK_T v = xc[(zz * H + yy) * W + xx];
                    if (!back) {
                        acc = acc + v * wts[k];
                        continue;
                    }
                    if (gx) gx[(n * C + c) * V + (zz * H + yy) * W + xx] += wts[k] * go;
                    GK_T wx = dx ? 1 : -1, wy = dy ? 1 : -1, wz = dz ? 1 : -1;
                    gix = gix + wx * v * (dy ? ay0 : ay1) * (dz ? az0 : az1) * go;
                    giy = giy + wy * v * (dx ? ax0 : ax1) * (dz ? az0 : az1) * go;
                    giz = giz + wz * v * (dx ? ax0 : ax1) * (dy ? ay0 : ay1) * go;
                }
                if (!back) y[o] = acc;
            }
            if (back) {
                gg[(n * S + s) * 3] = mx * gix;
                gg[(n * S + s) * 3 + 1] = my * giy;
                gg[(n * S + s) * 3 + 2] = mz * giz;
            }
        }
}
