/* optim_kernels.h — the per-element update loops of src/ops/optim.c, stamped out once per compute type.
 *
 * Included by optim.c with these defined:
 *   T      the compute type (float for float32/float16/bfloat16, double for float64)
 *   SUF    the name suffix (f32, f64, f16, bf16)
 *   FMA    fmaf / fma
 *   SQRT   sqrtf / sqrt
 *   R(x)   the rounding to the storage dtype that ends every torch tensor op (identity for float32/float64)
 *   ADDA(a, b, al, vec)  torch's add(a, b, alpha=al), al already in the storage type; vec: the element lies in a
 *          full 32-lane vector of its run (float16/bfloat16 round differently there, Note [Optimiser arithmetic])
 * Every line mirrors one tensor op of torch's single-tensor algorithm, in torch's order; the comment names it.
 * Note [Optimiser arithmetic] in optim.c says which of torch's kernels round once (fused) and why.
 * Arrays are contiguous, n elements each, and may not alias each other. */
#define K_(a, b) a##_##b
#define K2(a, b) K_(a, b)
#define K(name) K2(name, SUF)

/* lerp(s, e, w) with a scalar weight, as ATen: small weights from the start, large ones from the end. */
static inline T K(lerp)(T s, T e, T w) {
    T d = e - s;
    return (w < 0 ? -w : w) < (T)0.5 ? FMA(w, d, s) : FMA(-d, (T)1 - w, e);
}

/* torch.maximum: NaN if either side is NaN. */
static inline T K(maximum)(T a, T b) {
    if (a != a) return a;
    if (b != b) return b;
    return a > b ? a : b;
}

/* grad (read only): maximize negates it, weight_decay adds weight_decay * param. */
static inline T K(grad_in)(T g, T p, bool maximize, bool wd_on, T wd, bool vec) {
    (void)vec;
    T d = maximize ? -g : g;                  /* grad = -grads[i] */
    return wd_on ? ADDA(d, p, wd, vec) : d;   /* grad = grad.add(param, alpha=weight_decay) */
}

/* Elements [0, vend) of an n-element run go through ATen's 32-lane vector loop, the rest through its scalar tail. */
static inline int64_t K(vend)(int64_t n) { return n - n % 32; }

/* SGD.  p, g, buf: [n]; buf NULL when momentum == 0; first: buf is new (it becomes a clone of grad). */
static void K(sgd)(int64_t n, T *p, const T *g, T *buf, bool first, const optim_sgd_args *a) {
    const bool wd_on = a->weight_decay != 0;
    const T wd = R((T)a->weight_decay), mom = (T)a->momentum, mom_al = R((T)a->momentum);
    const T damp1 = R((T)(1 - a->dampening)), nlr = R((T)(-a->lr));
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = K(grad_in)(g[i], p[i], a->maximize, wd_on, wd, i < vend);
        if (buf) {
            T b = first ? d                              /* buf = grad.detach().clone() */
                        : ADDA(R(buf[i] * mom), d, damp1, i < vend); /* buf.mul_(momentum).add_(grad, alpha=1-dampening) */
            buf[i] = b;
            d = a->nesterov ? ADDA(d, b, mom_al, i < vend) : b; /* grad = grad.add(buf, alpha=momentum) | buf */
        }
        p[i] = ADDA(p[i], d, nlr, i < vend);             /* param.add_(grad, alpha=-lr) */
    }
}

/* Adam / AdamW.  p, g, m (exp_avg), v (exp_avg_sq), vmax (max_exp_avg_sq, NULL unless amsgrad): [n].
 * step: the incremented state step. */
static void K(adam)(int64_t n, T *p, const T *g, T *m, T *v, T *vmax, double step, const optim_adam_args *a) {
    const double bc1 = 1 - pow(a->beta1, step), bc2 = 1 - pow(a->beta2, step);
    const double step_size = a->lr / bc1, bc2_sqrt = pow(bc2, 0.5);
    const bool wd_on = a->weight_decay != 0, decoupled = a->decoupled_weight_decay;
    const T wd = R((T)a->weight_decay), decay = (T)(1 - a->lr * a->weight_decay), w1 = (T)(1 - a->beta1);
    const T b2 = (T)a->beta2, w2 = (T)(1 - a->beta2), c2 = (T)bc2_sqrt, eps = R((T)a->eps), nss = (T)(-step_size);
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T pi = p[i];
        if (wd_on && decoupled) pi = R(pi * decay);                /* param.mul_(1 - lr * weight_decay) */
        T d = K(grad_in)(g[i], pi, a->maximize, wd_on && !decoupled, wd, i < vend);
        T mi = R(K(lerp)(m[i], d, w1));                            /* exp_avg.lerp_(grad, 1 - beta1) */
        /* exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) */
        T vi = R(FMA(w2 * d, d, R(v[i] * b2)));
        m[i] = mi;
        v[i] = vi;
        /* torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=...) */
        if (vmax) vi = vmax[i] = K(maximum)(vmax[i], vi);
        T denom = R(R(R(SQRT(vi)) / c2) + eps);                    /* (x.sqrt() / bias_correction2_sqrt).add_(eps) */
        /* param.addcdiv_(exp_avg, denom, value=-step_size) */
        p[i] = R(pi + nss * mi / denom);
    }
}

/* RMSprop.  p, g, sq (square_avg), ga (grad_avg, NULL unless centered), buf (momentum_buffer, NULL unless
 * momentum > 0): [n]. */
static void K(rmsprop)(int64_t n, T *p, const T *g, T *sq, T *ga, T *buf, const optim_rmsprop_args *a) {
    const bool wd_on = a->weight_decay != 0;
    const T wd = R((T)a->weight_decay), al = (T)a->alpha, w = (T)(1 - a->alpha), eps = R((T)a->eps);
    const T mom = (T)a->momentum, nlr = (T)(-a->lr), nlr_al = R((T)(-a->lr)); /* addcdiv value, add alpha */
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = K(grad_in)(g[i], p[i], a->maximize, wd_on, wd, i < vend);
        /* square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha) */
        T s = R(FMA(w * d, d, R(sq[i] * al)));
        sq[i] = s;
        T avg;
        if (ga) {
            T gi = R(K(lerp)(ga[i], d, w));                        /* grad_avg.lerp_(grad, 1 - alpha) */
            ga[i] = gi;
            /* square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_() */
            avg = R(SQRT(R(FMA(-gi, gi, s))));
        } else {
            avg = R(SQRT(s));                                      /* square_avg.sqrt() */
        }
        avg = R(avg + eps);                                        /* avg.add_(eps) */
        if (buf) {
            T b = R(R(buf[i] * mom) + d / avg);                    /* buf.mul_(momentum).addcdiv_(grad, avg) */
            buf[i] = b;
            p[i] = ADDA(p[i], b, nlr_al, i < vend);                /* param.add_(buf, alpha=-lr) */
        } else {
            p[i] = R(p[i] + nlr * d / avg);                        /* param.addcdiv_(grad, avg, value=-lr) */
        }
    }
}

/* Adagrad.  p, g, sum (state_sum): [n]. */
static void K(adagrad)(int64_t n, T *p, const T *g, T *sum, double step, const optim_adagrad_args *a) {
    const double clr = a->lr / (1 + (step - 1) * a->lr_decay);
    const bool wd_on = a->weight_decay != 0;
    const T wd = R((T)a->weight_decay), eps = R((T)a->eps), nclr = (T)(-clr);
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = K(grad_in)(g[i], p[i], a->maximize, wd_on, wd, i < vend);
        T s = R(FMA(d, d, sum[i]));                                /* state_sum.addcmul_(grad, grad, value=1) */
        sum[i] = s;
        T std = R(R(SQRT(s)) + eps);                               /* state_sum.sqrt().add_(eps) */
        p[i] = R(p[i] + nclr * d / std);                           /* param.addcdiv_(grad, std, value=-clr) */
    }
}

/* Adadelta.  p, g, sq (square_avg), acc (acc_delta): [n]. */
static void K(adadelta)(int64_t n, T *p, const T *g, T *sq, T *acc, const optim_adadelta_args *a) {
    const bool wd_on = a->weight_decay != 0;
    const T wd = R((T)a->weight_decay), rho = (T)a->rho, w = (T)(1 - a->rho), eps = R((T)a->eps);
    const T nlr = R((T)(-a->lr));
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = K(grad_in)(g[i], p[i], a->maximize, wd_on, wd, i < vend);
        /* square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho) */
        T s = R(FMA(w * d, d, R(sq[i] * rho)));
        sq[i] = s;
        T std = R(SQRT(R(s + eps)));                               /* square_avg.add(eps).sqrt_() */
        T delta = R(SQRT(R(acc[i] + eps)));                        /* acc_delta.add(eps).sqrt_() */
        delta = R(R(delta / std) * d);                             /* delta.div_(std).mul_(grad) */
        /* acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho) */
        acc[i] = R(FMA(w * delta, delta, R(acc[i] * rho)));
        p[i] = ADDA(p[i], delta, nlr, i < vend);                   /* param.add_(delta, alpha=-lr) */
    }
}

/* Adamax.  p, g, m (exp_avg), u (exp_inf): [n]. */
static void K(adamax)(int64_t n, T *p, const T *g, T *m, T *u, double step, const optim_adamax_args *a) {
    const double clr = a->lr / (1 - pow(a->beta1, step));
    const bool wd_on = a->weight_decay != 0;
    const T wd = R((T)a->weight_decay), w1 = (T)(1 - a->beta1), b2 = (T)a->beta2, eps = R((T)a->eps), nclr = (T)(-clr);
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = K(grad_in)(g[i], p[i], a->maximize, wd_on, wd, i < vend);
        T mi = R(K(lerp)(m[i], d, w1));                            /* exp_avg.lerp_(grad, 1 - beta1) */
        T ad = R(d < 0 ? -d : d);                                  /* grad.abs() */
        /* torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)) */
        T ui = K(maximum)(R(u[i] * b2), R(ad + eps));
        m[i] = mi;
        u[i] = ui;
        p[i] = R(p[i] + nclr * mi / ui);                           /* param.addcdiv_(exp_avg, exp_inf, value=-clr) */
    }
}

/* NAdam.  p, g, m (exp_avg), v (exp_avg_sq): [n]; mu_product: the (already updated) state value. */
static void K(nadam)(int64_t n, T *p, const T *g, T *m, T *v, double bc2, double c_grad, double c_avg,
                     const optim_nadam_args *a) {
    const bool wd_on = a->weight_decay != 0, decoupled = a->decoupled_weight_decay;
    const T wd = R((T)a->weight_decay), decay = (T)(1 - a->lr * a->weight_decay), w1 = (T)(1 - a->beta1);
    const T b2 = (T)a->beta2, w2 = (T)(1 - a->beta2), c2 = (T)bc2, eps = R((T)a->eps);
    const T cg = (T)c_grad, ca = (T)c_avg;
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T pi = p[i];
        if (wd_on && decoupled) pi = R(pi * decay);                /* param.mul_(1 - lr * weight_decay) */
        T d = K(grad_in)(g[i], pi, a->maximize, wd_on && !decoupled, wd, i < vend);
        T mi = R(K(lerp)(m[i], d, w1));                            /* exp_avg.lerp_(grad, 1 - beta1) */
        /* exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) */
        T vi = R(FMA(w2 * d, d, R(v[i] * b2)));
        m[i] = mi;
        v[i] = vi;
        /* exp_avg_sq.div(bias_correction2).sqrt(); denom.add_(eps) */
        T denom = R(R(SQRT(R(vi / c2))) + eps);
        pi = R(pi + cg * d / denom);                               /* param.addcdiv_(grad, denom, value=...) */
        p[i] = R(pi + ca * mi / denom);                            /* param.addcdiv_(exp_avg, denom, value=...) */
    }
}

/* RAdam.  p, g, m (exp_avg), v (exp_avg_sq): [n]. */
static void K(radam)(int64_t n, T *p, const T *g, T *m, T *v, double step, const optim_radam_args *a) {
    const double bc1 = 1 - pow(a->beta1, step), bc2 = 1 - pow(a->beta2, step);
    const double rho_inf = 2 / (1 - a->beta2) - 1;
    const double rho_t = rho_inf - 2 * step * pow(a->beta2, step) / bc2;
    const bool rect_on = rho_t > 5.0;
    const double rect =
        rect_on ? pow((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t), 0.5) : 0;
    const bool wd_on = a->weight_decay != 0, decoupled = a->decoupled_weight_decay;
    const T wd = R((T)a->weight_decay), decay = (T)(1 - a->lr * a->weight_decay), w1 = (T)(1 - a->beta1);
    const T b2 = (T)a->beta2, w2 = (T)(1 - a->beta2), c1 = (T)bc1, eps = R((T)a->eps), lr = (T)a->lr;
    const T c2s = (T)pow(bc2, 0.5), rc = (T)rect;
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T pi = p[i];
        if (wd_on && decoupled) pi = R(pi * decay);                /* param.mul_(1 - lr * weight_decay) */
        T d = K(grad_in)(g[i], pi, a->maximize, wd_on && !decoupled, wd, i < vend);
        T mi = R(K(lerp)(m[i], d, w1));                            /* exp_avg.lerp_(grad, 1 - beta1) */
        /* exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) */
        T vi = R(FMA(w2 * d, d, R(v[i] * b2)));
        m[i] = mi;
        v[i] = vi;
        T upd = R(R(mi / c1) * lr);                                /* exp_avg / bias_correction1 * lr */
        if (rect_on) {
            /* bias_correction2**0.5 / exp_avg_sq.sqrt().add_(eps) */
            T adaptive = R(R((T)1 / R(R(SQRT(vi)) + eps)) * c2s);
            upd = R(R(upd * adaptive) * rc);                       /* ... * adaptive_lr * rect */
        }
        p[i] = ADDA(pi, upd, (T)-1, i < vend);                     /* param.add_(..., alpha=-1.0) */
    }
}

/* ASGD.  p, g, ax: [n]; eta, mu: the state scalars' values before this step. */
static void K(asgd)(int64_t n, T *p, const T *g, T *ax, double eta, double mu, const optim_asgd_args *a) {
    const bool wd_on = a->weight_decay != 0, averaging = mu != 1;
    const T wd = R((T)a->weight_decay), decay = (T)(1 - a->lambd * eta), neta = R((T)(-eta));
    const T m = (T)mu;
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = K(grad_in)(g[i], p[i], a->maximize, wd_on, wd, i < vend);
        T pi = R(p[i] * decay);                                    /* param.mul_(1 - lambd * eta) */
        pi = ADDA(pi, d, neta, i < vend);                          /* param.add_(grad, alpha=-eta) */
        p[i] = pi;
        /* ax.add_(param.sub(ax).mul_(mu)) | ax.copy_(param) */
        ax[i] = averaging ? R(ax[i] + R(R(pi - ax[i]) * m)) : pi;
    }
}

/* Rprop.  p, g, prev, step_size: [n]. */
static void K(rprop)(int64_t n, T *p, const T *g, T *prev, T *step_size, const optim_rprop_args *a) {
    const T etaplus = R((T)a->etaplus), etaminus = R((T)a->etaminus);
    const T lo = R((T)a->step_size_min), hi = R((T)a->step_size_max);
    const int64_t vend = K(vend)(n);
    (void)vend;
    for (int64_t i = 0; i < n; i++) {
        T d = a->maximize ? -g[i] : g[i];
        T prod = R(d * prev[i]);                                   /* grad.mul(prev).sign() */
        T sign = prod > 0 ? etaplus : prod < 0 ? etaminus : prod == 0 ? (T)1 : prod; /* NaN stays NaN */
        T ss = R(step_size[i] * sign);                             /* step_size.mul_(sign) */
        if (ss == ss) ss = ss < lo ? lo : ss > hi ? hi : ss;       /* .clamp_(step_size_min, step_size_max) */
        step_size[i] = ss;
        if (sign == etaminus) d = 0;                               /* grad[sign.eq(etaminus)] = 0 */
        T sg = d > 0 ? (T)1 : d < 0 ? (T)-1 : d == d ? (T)0 : d;   /* grad.sign() */
        p[i] = R(FMA(-sg, ss, p[i]));                              /* param.addcmul_(grad.sign(), step_size, value=-1) */
        prev[i] = d;                                               /* prev.copy_(grad) */
    }
}

#undef K
#undef K2
#undef K_
