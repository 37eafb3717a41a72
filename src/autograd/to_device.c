/* to_device.c — the differentiable move between devices (core/host.h): `x.to('webgpu')` of a tensor that requires
 * grad records torch's ToCopyBackward0, whose backward moves the gradient back to x's device (itself a move, so
 * double backward works too). */
#include "autograd/autograd.h"
#include "core/host.h"

typedef struct {
    wk_node base;
    wk_device *src; /* the forward input's device: where the gradient goes */
} node_to_device;

static int to_device_apply(wk_node *n_, wk_tensor **gi, wk_tensor **go) {
    if (!gi[0] || !wk__needs_grad(n_, 0)) return 0;
    go[0] = wk_move_to_device(gi[0], ((node_to_device *)n_)->src);
    return go[0] ? 0 : -1;
}

static const wk_node_vtable VT_to_device = {"ToCopyBackward0", to_device_apply, NULL, NULL, NULL};

wk_tensor *wk_move_to_device(wk_tensor *t, wk_device *d) {
    if (t->storage->device == d) return wk_retain(t);
    bool rg = wk__grad_enabled() && wk__tensor_requires_grad(t);
    wk_tensor *r = wk__to_device(t, d);
    if (!r || !rg) return r;
    node_to_device *n = (node_to_device *)wk__node_new(&VT_to_device, sizeof(node_to_device), 1, 1);
    if (!n) goto fail;
    n->src = t->storage->device;
    if (wk__node_set_next(&n->base, 0, t) < 0) {
        wk__node_release(&n->base);
        goto fail;
    }
    wk__set_history(r, &n->base, 0);
    wk__node_release(&n->base);
    return r;
fail:
    wk_release(r);
    return NULL;
}
