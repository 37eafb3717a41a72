"""torchvision.datasets from files in torchvision's formats written by the cases (idx files, CIFAR pickles, an
image folder), FakeData, and utils.make_grid / save_image."""
import os
import pickle
import struct
import tempfile

from .harness import case


def _idx(path, arr_bytes, dims, code=8):
    with open(path, 'wb') as f:
        f.write(struct.pack('>BBBB', 0, 0, code, len(dims)) + b''.join(struct.pack('>I', d) for d in dims) + arr_bytes)


def _mnist_root(cls, n_train=5, n_test=3):
    root = tempfile.mkdtemp()
    raw = os.path.join(root, cls, 'raw')
    os.makedirs(raw)
    for prefix, n in (('train', n_train), ('t10k', n_test)):
        pix = bytes((i * 7 + n) % 256 for i in range(n * 28 * 28))
        _idx(os.path.join(raw, f'{prefix}-images-idx3-ubyte'), pix, [n, 28, 28])
        _idx(os.path.join(raw, f'{prefix}-labels-idx1-ubyte'), bytes((i * 3 + 1) % 10 for i in range(n)), [n])
    return root


def _describe(T, ds, k=2):
    items = []
    for i in range(min(k, len(ds))):
        x, y = ds[i]
        items.append([x if isinstance(x, T.Tensor) else (x.mode, list(x.size), list(x.tobytes())[:40]), y])
    return len(ds), items


@case(needs=('PIL',))
def mnist_family(T, V):
    out = []
    for cls in ('MNIST', 'FashionMNIST', 'KMNIST'):
        root = _mnist_root(cls)
        ds = getattr(V.datasets, cls)(root, train=True, transform=V.transforms.ToTensor())
        test = getattr(V.datasets, cls)(root, train=False)
        out.append([_describe(T, ds), _describe(T, test), ds.classes, ds.class_to_idx, ds.data.shape, ds.targets,
                    repr(ds).replace(root, 'ROOT'), repr(test).replace(root, 'ROOT')])
    return out


@case()
def mnist_missing(T, V):
    out = []
    for download in (False, True):
        try:
            V.datasets.MNIST(tempfile.mkdtemp(), download=download)
        except RuntimeError as e:
            out.append(str(e) if not download else 'RuntimeError')
    return out


def _cifar_root(base, train_names, test_name, meta_name, key, label_key, n=4):
    root = tempfile.mkdtemp()
    d = os.path.join(root, base)
    os.makedirs(d)
    for j, name in enumerate(train_names + [test_name]):
        data = bytes((i * 13 + j * 5) % 256 for i in range(n * 3072))
        import numpy as np
        entry = {'data': np.frombuffer(data, dtype=np.uint8).reshape(n, 3072), label_key: [(i + j) % 10 for i in range(n)],
                 'batch_label': f'batch {j}'}
        with open(os.path.join(d, name), 'wb') as f:
            pickle.dump(entry, f)
    with open(os.path.join(d, meta_name), 'wb') as f:
        pickle.dump({key: [f'class{i}' for i in range(10)]}, f)
    return root


@case(needs=('PIL',))
def cifar(T, V):
    import importlib
    cifar_mod = importlib.import_module(V.__name__ + '.datasets.cifar')
    saved = cifar_mod.check_integrity
    cifar_mod.check_integrity = lambda path, md5=None: os.path.isfile(path)   # the files are ours, not CIFAR's
    try:
        r10 = _cifar_root('cifar-10-batches-py', [f'data_batch_{i}' for i in range(1, 6)], 'test_batch',
                          'batches.meta', 'label_names', 'labels')
        r100 = _cifar_root('cifar-100-python', ['train'], 'test', 'meta', 'fine_label_names', 'fine_labels')
        c10 = V.datasets.CIFAR10(r10, transform=V.transforms.Compose([V.transforms.ToTensor(),
                                                                     V.transforms.Normalize([0.5] * 3, [0.25] * 3)]))
        c10t = V.datasets.CIFAR10(r10, train=False)
        c100 = V.datasets.CIFAR100(r100, train=True, target_transform=lambda y: y * 100)
        return [_describe(T, c10), _describe(T, c10t), _describe(T, c100), c10.data.shape, c10.targets, c10.classes,
                c100.class_to_idx, repr(c10).replace(r10, 'ROOT')]
    finally:
        cifar_mod.check_integrity = saved


@case()
def cifar_corrupted(T, V):
    root = _cifar_root('cifar-10-batches-py', [f'data_batch_{i}' for i in range(1, 6)], 'test_batch', 'batches.meta',
                       'label_names', 'labels')
    try:
        V.datasets.CIFAR10(root)
    except RuntimeError as e:
        return str(e)


@case(needs=('PIL',))
def fake_data(T, V):
    ds = V.datasets.FakeData(size=4, image_size=(3, 5, 6), num_classes=7, transform=V.transforms.PILToTensor())
    before = T.rand(1)
    items = [ds[i] for i in range(4)]
    after = T.rand(1)       # the global generator is untouched by ds[i]
    off = V.datasets.FakeData(size=2, image_size=(1, 4, 4), random_offset=10, transform=V.transforms.ToTensor())
    try:
        ds[4]
    except IndexError as e:
        err = str(e)
    return items, [off[0], off[1]], len(ds), before, after, err, repr(ds)


@case(needs=('PIL',))
def image_folder(T, V):
    from PIL import Image
    root = tempfile.mkdtemp()
    for cls, n in (('dog', 2), ('cat', 3), ('bird', 1)):
        os.makedirs(os.path.join(root, cls, 'sub'))
        for i in range(n):
            arr = bytes((i * 31 + len(cls) * 17 + k) % 256 for k in range(4 * 5 * 3))
            Image.frombytes('RGB', (5, 4), arr).save(os.path.join(root, cls, ('sub/' if i == 2 else '') + f'{i}.png'))
    open(os.path.join(root, 'cat', 'notes.txt'), 'w').close()
    ds = V.datasets.ImageFolder(root, transform=V.transforms.PILToTensor())
    only_png = V.datasets.DatasetFolder(root, loader=lambda p: os.path.basename(p), extensions=('.png',))
    valid = V.datasets.ImageFolder(root, is_valid_file=lambda p: p.endswith('0.png'))
    samples = [[os.path.relpath(p, root), y] for p, y in ds.samples]
    return (ds.classes, ds.class_to_idx, samples, ds.targets, [ds[i] for i in range(len(ds))],
            [only_png[i] for i in range(len(only_png))], len(valid), repr(ds).replace(root, 'ROOT'))


@case()
def image_folder_errors(T, V):
    out = []
    empty = tempfile.mkdtemp()
    try:
        V.datasets.ImageFolder(empty)
    except FileNotFoundError as e:
        out.append(str(e).replace(empty, 'ROOT'))
    os.makedirs(os.path.join(empty, 'a'))
    open(os.path.join(empty, 'a', 'x.txt'), 'w').close()
    try:
        V.datasets.ImageFolder(empty)
    except FileNotFoundError as e:
        out.append(str(e))
    out.append(len(V.datasets.ImageFolder(empty, allow_empty=True)))
    return out


@case()
def make_grid(T, V):
    u = V.utils
    x = T.arange(5 * 3 * 4 * 3, dtype=T.float32).reshape(5, 3, 4, 3) / 10 - 2
    return [u.make_grid(x), u.make_grid(x, nrow=2, padding=1, pad_value=0.5), u.make_grid(x, normalize=True),
            u.make_grid(x, normalize=True, value_range=(-1, 1), scale_each=True), u.make_grid(list(x[:2, :1])),
            u.make_grid(x[0]), u.make_grid(x[0, 0])]


@case()
def make_grid_errors(T, V):
    out = []
    for bad in (3, [T.zeros(3, 2, 2), 4]):
        try:
            V.utils.make_grid(bad)
        except TypeError as e:
            out.append(str(e))
    try:
        V.utils.make_grid(T.zeros(2, 3, 2, 2), normalize=True, value_range=[0, 1])
    except TypeError as e:
        out.append(str(e))
    return out


@case(needs=('PIL',))
def save_image(T, V):
    from PIL import Image
    x = T.arange(4 * 3 * 5 * 6, dtype=T.float32).reshape(4, 3, 5, 6) / 360
    d = tempfile.mkdtemp()
    V.utils.save_image(x, os.path.join(d, 'grid.png'), nrow=3, padding=1)
    V.utils.save_image(x[0], os.path.join(d, 'one.bmp'))
    out = []
    for name in ('grid.png', 'one.bmp'):
        with Image.open(os.path.join(d, name)) as im:
            out.append((im.format, im.mode, list(im.size), list(im.tobytes())))
    return out
