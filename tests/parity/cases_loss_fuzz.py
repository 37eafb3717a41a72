"""Drawn loss calls (fixed seeds): 19 losses of nn.functional with drawn shapes (empty batches too), reductions,
weights, pos_weight, ignore_index, label smoothing, targets of other shapes and dtypes -- the loss, its grad_fn name and
the input's gradient, or torch's error (a differential fuzzer's seeds, kept)."""
import random

from .harness import *  # noqa: F401,F403


def _draw(T, seed):
    F = T.nn.functional
    r = random.Random(seed)
    s = seed

    def rnd(r, sh, lo=-2, hi=2, dt="float32"):
        g = T.Generator().manual_seed(r.randint(0, 10**6))
        return (T.rand(sh, generator=g) * (hi - lo) + lo).to(getattr(T, dt))

    red = r.choice(['mean', 'sum', 'none'])
    op = r.choice(['ce', 'ce_prob', 'nll', 'bce', 'bcel', 'mse', 'l1', 'smoothl1', 'huber', 'kl', 'margin', 'cosemb', 'hinge', 'poisson', 'gauss', 'triplet', 'mlm', 'soft_margin', 'multi_margin'])
    N_, C = r.choice([0, 1, 3]), r.choice([1, 2, 4])
    if op in ('mlm', 'multi_margin') and N_ == 0:
        N_ = 1  # torch's mean over an empty batch is uninitialised memory
    try:
        extra = []
        if op == 'ce':
            sh = r.choice([[N_, C], [C], [N_, C, 2], [N_, C, 2, 3]])
            x = rnd(r, sh); x.requires_grad_()
            tsh = [] if len(sh) == 1 else [sh[0]] + sh[2:]
            if r.random() < 0.1: tsh = tsh + [1]
            t = T.randint(-1 if r.random() < 0.1 else 0, C + (1 if r.random() < 0.1 else 0), tsh, generator=T.Generator().manual_seed(s))
            kw = dict(reduction=red)
            if r.random() < 0.3: kw['weight'] = rnd(r, [C if r.random() < 0.9 else C + 1], 0.1, 2)
            if r.random() < 0.3: kw['ignore_index'] = r.choice([0, 1, -1, -100])
            if r.random() < 0.3: kw['label_smoothing'] = r.choice([0.0, 0.1, 0.5, 1.0, 1.5, -0.1])
            y = F.cross_entropy(x, t, **kw); extra = [x]
        elif op == 'ce_prob':
            sh = r.choice([[N_, C], [C], [N_, C, 2]])
            x = rnd(r, sh); x.requires_grad_()
            t = rnd(r, sh if r.random() < 0.9 else sh[:-1] + [sh[-1] + 1], 0, 1).softmax(0 if len(sh) == 1 else 1)
            kw = dict(reduction=red)
            if r.random() < 0.3: kw['weight'] = rnd(r, [C], 0.1, 2)
            if r.random() < 0.3: kw['label_smoothing'] = r.choice([0.0, 0.2])
            y = F.cross_entropy(x, t, **kw); extra = [x]
        elif op == 'nll':
            sh = r.choice([[N_, C], [C], [N_, C, 2]])
            x = rnd(r, sh).log_softmax(0 if len(sh) == 1 else 1).detach(); x.requires_grad_()
            tsh = [] if len(sh) == 1 else [sh[0]] + sh[2:]
            t = T.randint(0, C + (1 if r.random() < 0.1 else 0), tsh, generator=T.Generator().manual_seed(s))
            if r.random() < 0.1: t = t.float()
            kw = dict(reduction=red)
            if r.random() < 0.3: kw['weight'] = rnd(r, [C], 0.1, 2)
            if r.random() < 0.3: kw['ignore_index'] = r.choice([0, 1])
            y = F.nll_loss(x, t, **kw); extra = [x]
        elif op in ('bce', 'bcel'):
            sh = r.choice([[N_, C], [C], [N_, C, 2], []])
            x = rnd(r, sh, 0.01, 0.99) if op == 'bce' else rnd(r, sh); x.requires_grad_()
            t = rnd(r, sh if r.random() < 0.9 else sh + [2], 0, 1)
            kw = dict(reduction=red)
            if r.random() < 0.3: kw['weight'] = rnd(r, r.choice([sh, [C], [1]]), 0.1, 2)
            if op == 'bcel' and r.random() < 0.3: kw['pos_weight'] = rnd(r, r.choice([[C], [1], [C + 1]]), 0.1, 3)
            y = (F.binary_cross_entropy if op == 'bce' else F.binary_cross_entropy_with_logits)(x, t, **kw); extra = [x]
        elif op in ('mse', 'l1', 'smoothl1', 'huber', 'kl', 'poisson', 'soft_margin'):
            sh = r.choice([[N_, C], [C], [], [N_, C, 2]])
            sh2 = sh if r.random() < 0.85 else r.choice([[C], [1], [N_, 1], [2, 2]])
            x = rnd(r, sh); x.requires_grad_(); t = rnd(r, sh2, -1 if op != 'kl' else 0.01, 1)
            if op == 'mse': y = F.mse_loss(x, t, reduction=red)
            elif op == 'l1': y = F.l1_loss(x, t, reduction=red)
            elif op == 'smoothl1': y = F.smooth_l1_loss(x, t, reduction=red, beta=r.choice([1.0, 0.5, 0.0, 2.0]))
            elif op == 'huber': y = F.huber_loss(x, t, reduction=red, delta=r.choice([1.0, 0.5, 2.0]))
            elif op == 'kl': y = F.kl_div(x, t, reduction=r.choice(['mean', 'sum', 'none', 'batchmean']), log_target=r.random() < 0.3)
            elif op == 'poisson': y = F.poisson_nll_loss(x, t.abs(), log_input=r.random() < 0.5, full=r.random() < 0.5, reduction=red)
            else: y = F.soft_margin_loss(x, t.sign(), reduction=red)
            extra = [x]
        elif op == 'gauss':
            sh = r.choice([[N_, C], [C]])
            x = rnd(r, sh); x.requires_grad_(); t = rnd(r, sh); v = rnd(r, r.choice([sh, sh[:-1] + [1], sh[:-1]]), 0.1, 2)
            y = F.gaussian_nll_loss(x, t, v, full=r.random() < 0.5, reduction=red); extra = [x]
        elif op == 'margin':
            sh = r.choice([[N_], [3], []])
            a, b = rnd(r, sh), rnd(r, sh); a.requires_grad_(); t = rnd(r, sh).sign()
            y = F.margin_ranking_loss(a, b, t, margin=r.choice([0.0, 0.5]), reduction=red); extra = [a]
        elif op == 'cosemb':
            a, b = rnd(r, [N_, 3]), rnd(r, [N_, 3]); a.requires_grad_(); t = rnd(r, [N_]).sign()
            y = F.cosine_embedding_loss(a, b, t, margin=r.choice([0.0, 0.5]), reduction=red); extra = [a]
        elif op == 'hinge':
            a = rnd(r, [N_, C]); a.requires_grad_(); t = rnd(r, [N_, C]).sign()
            y = F.hinge_embedding_loss(a, t, margin=r.choice([1.0, 0.5]), reduction=red); extra = [a]
        elif op == 'triplet':
            a, p, n = rnd(r, [N_, 3]), rnd(r, [N_, 3]), rnd(r, [N_, 3]); a.requires_grad_()
            y = F.triplet_margin_loss(a, p, n, margin=r.choice([1.0, 0.5]), p=r.choice([2, 1]), swap=r.random() < 0.3, reduction=red); extra = [a]
        elif op == 'mlm':
            x = rnd(r, [N_, C]); x.requires_grad_(); t = T.randint(-1, C, [N_, C], generator=T.Generator().manual_seed(s))
            y = F.multilabel_margin_loss(x, t, reduction=red); extra = [x]
        else:
            x = rnd(r, [N_, C]); x.requires_grad_(); t = T.randint(0, C, [N_], generator=T.Generator().manual_seed(s))
            y = F.multi_margin_loss(x, t, p=r.choice([1, 2]), margin=r.choice([1.0, 0.5]), reduction=red); extra = [x]

        y.sum().backward() if y.numel() else None
        return y, y.grad_fn.name() if y.grad_fn else None, extra[0].grad
    except (RuntimeError, ValueError, IndexError) as e:
        return type(e).__name__, str(e).split("\nException raised from")[0]


cases("loss_drawn", _draw, seed=list(range(400)), rtol=1e-4, atol=1e-5)
