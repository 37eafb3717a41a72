"""torch.utils.data: datasets, samplers, collation and the DataLoader's exact shuffle order (and the state of the
global generator after each epoch)."""
from .harness import *  # noqa: F401,F403

X10 = [[float(i), float(i) * 0.5] for i in range(10)]
Y10 = list(range(10))


def ds(T, n=10):
    return T.utils.data.TensorDataset(T.tensor(X10[:n]), T.tensor(Y10[:n]))


def _epochs(T, loader, k=2):
    return [[b[1].tolist() for b in loader] for _ in range(k)]


def _seq(T):
    return [[x, y] for x, y in T.utils.data.DataLoader(ds(T), batch_size=4)]
case("loader_sequential", _seq)
case("loader_len", lambda T: (len(T.utils.data.DataLoader(ds(T), batch_size=4)),
                              len(T.utils.data.DataLoader(ds(T), batch_size=4, drop_last=True))))


def _shuffle(T, seed, bs, drop_last):
    T.manual_seed(seed)
    loader = T.utils.data.DataLoader(ds(T), batch_size=bs, shuffle=True, drop_last=drop_last)
    out = _epochs(T, loader, 3)
    return out, T.rand(2)      # the global stream position after the epochs
cases("loader_shuffle", _shuffle, seed=[0, 1, 42, 2 ** 40 + 7], bs=[1, 3, 4], drop_last=BOOLS, rtol=0, atol=0)


def _shuffle_generator(T):
    g = T.Generator().manual_seed(123)
    T.manual_seed(5)
    loader = T.utils.data.DataLoader(ds(T), batch_size=4, shuffle=True, generator=g)
    return _epochs(T, loader, 2), T.rand(1), g.initial_seed()
case("loader_shuffle_generator", _shuffle_generator, rtol=0, atol=0)


def _no_shuffle_draws(T):
    T.manual_seed(3)
    _epochs(T, T.utils.data.DataLoader(ds(T), batch_size=4), 2)
    return T.rand(2)
case("loader_no_shuffle_still_draws_base_seed", _no_shuffle_draws, rtol=0, atol=0)


def _collate(T):
    samples = [{'x': T.tensor([1.0, 2.0]), 'label': 3, 'w': 0.5, 'name': 'a', 'pair': (1, 2.5)},
               {'x': T.tensor([3.0, 4.0]), 'label': 4, 'w': 1.5, 'name': 'b', 'pair': (2, 3.5)}]
    out = T.utils.data.default_collate(samples)
    return out['x'], out['label'], out['w'], out['name'], out['pair']
case("default_collate_dict", _collate)
case("default_collate_bool", lambda T: T.utils.data.default_collate([True, False]))
case("default_collate_nested_list", lambda T: T.utils.data.default_collate([[1, 2], [3, 4]]))
error_case("default_collate_ragged", lambda T: T.utils.data.default_collate([[1, 2], [3]]))


def _batch_sampler(T):
    bs = T.utils.data.BatchSampler(T.utils.data.SequentialSampler(range(7)), batch_size=3, drop_last=False)
    return list(bs), len(bs)
case("batch_sampler", _batch_sampler)
error_case("batch_sampler_bad_size", lambda T: T.utils.data.BatchSampler(range(3), 0, False))


def _random_sampler(T, replacement, num_samples):
    T.manual_seed(7)
    s = T.utils.data.RandomSampler(range(10), replacement=replacement, num_samples=num_samples)
    return list(s), list(s), T.rand(1)
cases("random_sampler", _random_sampler, replacement=BOOLS, num_samples=[None, 4, 25, 70], rtol=0, atol=0)


def _subset_random(T):
    g = T.Generator().manual_seed(11)
    return list(T.utils.data.SubsetRandomSampler([10, 20, 30, 40, 50], generator=g))
case("subset_random_sampler", _subset_random)


def _weighted(T, replacement):
    g = T.Generator().manual_seed(9)
    return list(T.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 0.05], 4, replacement=replacement,
                                                   generator=g))
cases("weighted_random_sampler", _weighted, replacement=BOOLS)


def _random_split(T, lengths):
    g = T.Generator().manual_seed(42)
    parts = T.utils.data.random_split(range(10), lengths, generator=g)
    return [list(p) for p in parts]
cases("random_split", _random_split, lengths=[[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5]])


def _random_split_default(T):
    T.manual_seed(0)
    return [list(p) for p in T.utils.data.random_split(range(6), [2, 4])]
case("random_split_default_generator", _random_split_default)
error_case("random_split_bad_lengths", lambda T: T.utils.data.random_split(range(10), [3, 3]))


def _concat(T):
    c = T.utils.data.ConcatDataset([ds(T, 3), ds(T, 4)])
    return len(c), c[5][1], c[-1][1], c.cumulative_sizes
case("concat_dataset", _concat)


def _subset(T):
    s = T.utils.data.Subset(ds(T), [7, 2, 5])
    return len(s), s[0], s[2][1]
case("subset", _subset)


def _iterable(T):
    class Stream(T.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))
    return [b for b in T.utils.data.DataLoader(Stream(), batch_size=3)]
case("iterable_dataset", _iterable)
error_case("iterable_with_shuffle", lambda T: T.utils.data.DataLoader(
    type('S', (T.utils.data.IterableDataset,), {'__iter__': lambda self: iter(range(3))})(), shuffle=True))
error_case("sampler_and_shuffle", lambda T: T.utils.data.DataLoader(ds(T), shuffle=True,
                                                                   sampler=T.utils.data.SequentialSampler(ds(T))))


def _custom_collate(T):
    loader = T.utils.data.DataLoader(list(range(5)), batch_size=2, collate_fn=lambda b: [x * 10 for x in b])
    return list(loader)
case("custom_collate_fn", _custom_collate)


def _batch_size_none(T):
    return list(T.utils.data.DataLoader([1.5, 2.5], batch_size=None))
case("batch_size_none", _batch_size_none)

# pin_memory=True on a machine without an accelerator: torch's iterator warns when it is made, and still loads
case("dataloader_pin_memory_warns", lambda T: [b[0] for b in T.utils.data.DataLoader(T.utils.data.TensorDataset(T.arange(4.0)), batch_size=2, pin_memory=True)],
     warns=True)
case("dataloader_pin_memory_device_warns", lambda T: [b[0] for b in T.utils.data.DataLoader(T.utils.data.TensorDataset(T.arange(4.0)), batch_size=2,
                                                                                             pin_memory=True, pin_memory_device="cuda")], warns=True)
