# What a learner sees when a call is wrong: torch's exception types and messages, from the C core through the
# JS door (argument errors included), re-raised as the Python exception of the same kind.
import torch

a = torch.ones(2, 3)
tries = [
    lambda: a @ a,
    lambda: a.view(4, 2),
    lambda: a[2],
    lambda: a[0, 0, 0],
    lambda: torch.cat([a, torch.ones(3)]),
    lambda: a.sum(dim=5),
    lambda: torch.tensor([1, 2]).float().backward(),
    lambda: a.add(a, alpha="x"),
    lambda: torch.zeros(2).mean(),
    lambda: torch.ones(2, dtype=torch.int64).mean(),
    lambda: (torch.ones(2, requires_grad=True) * 2).sum().backward() or torch.ones(3).unsqueeze(3),
]
for i, f in enumerate(tries):
    try:
        r = f()
        print(i, 'ok', r)
    except Exception as e:
        print(i, type(e).__name__, str(e).split('\n')[0])
