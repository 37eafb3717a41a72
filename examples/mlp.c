/* mlp.c — train a 64-128-10 MLP on the 8x8 digits through wick.h alone: tensors, autograd, cross entropy and the
 * fused SGD step (one call per step over all parameters). The C door of wick.
 *
 *   make && build/examples/mlp examples/data/digits.csv [epochs]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <wick.h>

#define N_ALL 1797
#define N_TRAIN 1500
#define BATCH 64

static int fail(const char *what) {
    fprintf(stderr, "%s failed: %s\n", what, wk_error_message());
    return 1;
}

/* nn.Linear's default initialisation: uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias */
static wk_tensor *param(int64_t rows, int64_t cols, int64_t fan_in, wk_generator *g) {
    int64_t shape[2] = {rows, cols};
    wk_tensor *t = wk_empty(wk_ints(shape, cols ? 2 : 1), WK_FLOAT32, false);
    double bound = 1.0 / sqrt((double)fan_in);
    if (!t) return NULL;
    wk_tensor *r = wk_uniform_(t, -bound, bound, g);
    wk_release(r);
    wk_requires_grad_(t, true);
    return t;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "examples/data/digits.csv";
    int epochs = argc > 2 ? atoi(argv[2]) : 30;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    static float pixels[N_ALL][64]; /* [N, 64] in [0, 1] */
    static int64_t labels[N_ALL];   /* [N] */
    for (int i = 0; i < N_ALL; i++) {
        for (int j = 0; j < 64; j++) {
            int v;
            if (fscanf(f, "%d,", &v) != 1) return fclose(f), fprintf(stderr, "bad data at row %d\n", i), 1;
            pixels[i][j] = (float)v / 16.0f;
        }
        if (fscanf(f, "%lld", (long long *)&labels[i]) != 1) return fclose(f), fprintf(stderr, "bad label\n"), 1;
    }
    fclose(f);

    int64_t xs[2] = {N_ALL, 64}, ys[1] = {N_ALL};
    wk_tensor *x = wk_from_data(pixels, WK_FLOAT32, 2, xs), *y = wk_from_data(labels, WK_INT64, 1, ys);
    wk_tensor *x_train = wk_narrow(x, 0, 0, N_TRAIN), *y_train = wk_narrow(y, 0, 0, N_TRAIN);
    wk_tensor *x_test = wk_narrow(x, 0, N_TRAIN, N_ALL - N_TRAIN), *y_test = wk_narrow(y, 0, N_TRAIN, N_ALL - N_TRAIN);

    wk_generator *g = wk_generator_manual_seed(wk_generator_new(), 0);
    wk_tensor *w1 = param(128, 64, 64, g), *b1 = param(128, 0, 64, g); /* [128, 64], [128] */
    wk_tensor *w2 = param(10, 128, 128, g), *b2 = param(10, 0, 128, g); /* [10, 128], [10] */
    wk_tensor *params[4] = {w1, b1, w2, b2}, *momentum[4] = {NULL, NULL, NULL, NULL};
    if (!w1 || !b1 || !w2 || !b2) return fail("init");

    for (int epoch = 1; epoch <= epochs; epoch++) {
        wk_tensor *perm = wk_randperm(N_TRAIN, g, WK_INT64, false); /* [1500] shuffled indices */
        double total = 0;
        int batches = 0;
        for (int64_t start = 0; start < N_TRAIN; start += BATCH) {
            int64_t len = N_TRAIN - start < BATCH ? N_TRAIN - start : BATCH;
            wk_tensor *idx = wk_narrow(perm, 0, start, len);
            wk_tensor *xb = wk_index_select(x_train, 0, idx), *yb = wk_index_select(y_train, 0, idx);
            wk_tensor *h = wk_linear(xb, w1, b1), *a = wk_relu(h), *logits = wk_linear(a, w2, b2);
            wk_tensor *loss = wk_cross_entropy_loss(logits, yb, NULL, 1 /* mean */, -100, 0.0);
            if (!loss || wk_backward(loss, NULL, false, false) < 0) return fail("forward/backward");
            wk_scalar l;
            wk_item(loss, &l);
            total += l.v.f;
            batches++;
            /* the fused SGD step: one call updates every parameter (momentum 0.9), as torch.optim.SGD does */
            wk_tensor *grads[4];
            for (int k = 0; k < 4; k++) grads[k] = wk_grad(params[k]);
            wk_tensorvec bufs = wk_sgd_step((wk_tensorlist){params, 4}, (wk_tensorlist){grads, 4},
                                            (wk_opttensorlist){(const wk_tensor *const *)momentum, 4}, 0.0, 0.9, 0.05,
                                            0.0, false, false);
            if (!bufs.data) return fail("sgd step");
            for (int k = 0; k < 4; k++) {
                wk_release(momentum[k]);
                momentum[k] = wk_retain(bufs.data[k]);
                wk_set_grad(params[k], NULL);
            }
            wk_tensorvec_free(bufs);
            wk_tensor *tmp[] = {idx, xb, yb, h, a, logits, loss};
            for (size_t k = 0; k < sizeof tmp / sizeof tmp[0]; k++) wk_release(tmp[k]);
        }
        wk_release(perm);
        if (epoch % 5 == 0 || epoch == 1) printf("epoch %2d  mean loss %.4f\n", epoch, total / batches);
    }

    /* held-out accuracy, without recording a graph */
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *h = wk_linear(x_test, w1, b1), *a = wk_relu(h), *logits = wk_linear(a, w2, b2);
    wk_tensor *pred = wk_argmax(logits, wk_some(1), false), *hit = wk_eq(pred, y_test);
    wk_tensor *correct = wk_sum(hit, WK_DTYPE_NONE);
    wk_set_grad_enabled(prev);
    if (!correct) return fail("evaluation");
    wk_scalar c;
    wk_item(correct, &c);
    printf("held-out accuracy: %lld/%d = %.2f%%\n", (long long)c.v.i, N_ALL - N_TRAIN,
           100.0 * (double)c.v.i / (N_ALL - N_TRAIN));

    wk_tensor *done[] = {h, a, logits, pred, hit, correct, x, y, x_train, y_train, x_test, y_test};
    for (size_t k = 0; k < sizeof done / sizeof done[0]; k++) wk_release(done[k]);
    for (int k = 0; k < 4; k++) {
        wk_release(params[k]);
        wk_release(momentum[k]);
    }
    wk_generator_release(g);
    return 0;
}
