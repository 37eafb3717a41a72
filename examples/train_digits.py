"""Train a small CNN on handwritten digits — the same program runs under wick and under real PyTorch.

    python3 examples/train_digits.py            # wick (import wick as torch)
    python3 examples/train_digits.py --torch    # real PyTorch, unchanged otherwise
    python3 examples/train_digits.py --mnist DIR  # MNIST's IDX files (optionally .gz) instead of the 8x8 digits

It prints a progress bar per epoch and the held-out accuracy, saves a checkpoint that real torch can load
(`digits_cnn.pt`) and draws the loss curve into `digits_loss.png`. Data: examples/data/digits.csv (see its README).
"""
import argparse
import gzip
import math
import os
import struct
import sys
import time
import zlib

parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
parser.add_argument('--torch', action='store_true', help='run with real PyTorch instead of wick')
parser.add_argument('--mnist', metavar='DIR', help='train on MNIST IDX files from DIR')
parser.add_argument('--epochs', type=int, default=8)
parser.add_argument('--batch-size', type=int, default=32)
parser.add_argument('--lr', type=float, default=2e-3)
parser.add_argument('--seed', type=int, default=0)
parser.add_argument('--out', default='.', help='directory for the checkpoint and the picture')
args = parser.parse_args()

if args.torch:
    import torch
else:
    import wick as torch
nn = torch.nn
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- data ------------------------------------------------------------------------------------------------------
def load_digits():
    """1797 8x8 images with values 0..16 -> (N, 1, 8, 8) floats in [0, 1], labels 0..9."""
    images, labels = [], []
    with open(os.path.join(HERE, 'data', 'digits.csv')) as f:
        for line in f:
            row = [int(v) for v in line.split(',')]
            images.append([[row[r * 8 + c] / 16.0 for c in range(8)] for r in range(8)])
            labels.append(row[64])
    return torch.tensor(images).unsqueeze(1), torch.tensor(labels)


def read_idx(path):
    """An MNIST IDX file: magic (0, 0, type, ndim), big-endian sizes, then the data."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError('%s is not an unsigned-byte IDX file' % path)
    ndim = raw[3]
    dims = struct.unpack('>' + 'I' * ndim, raw[4:4 + 4 * ndim])
    count = math.prod(dims)
    data = raw[4 + 4 * ndim:4 + 4 * ndim + count]
    if len(data) != count:
        raise ValueError('%s is truncated' % path)
    return dims, data


def load_mnist(folder, split):
    def find(stem):
        for name in (stem, stem + '.gz', stem.replace('-idx', '.idx'), stem.replace('-idx', '.idx') + '.gz'):
            if os.path.exists(os.path.join(folder, name)):
                return os.path.join(folder, name)
        raise FileNotFoundError('no %s[.gz] in %s' % (stem, folder))
    prefix = 'train' if split == 'train' else 't10k'
    (n, h, w), pixels = read_idx(find(prefix + '-images-idx3-ubyte'))
    (m,), labels = read_idx(find(prefix + '-labels-idx1-ubyte'))
    if n != m:
        raise ValueError('MNIST images and labels differ in count: %d vs %d' % (n, m))
    x = torch.tensor(list(pixels), dtype=torch.uint8).reshape(n, 1, h, w).float() / 255.0
    return x, torch.tensor(list(labels))


# ---- model -----------------------------------------------------------------------------------------------------
class SmallCNN(nn.Module):
    def __init__(self, side):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * (side // 4) ** 2, 64), nn.ReLU(),
                                        nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


# ---- a picture of the loss curve, written as a PNG with the standard library only --------------------------------
GLYPHS = {  # a 3x5 pixel font for the axis labels: each glyph is 5 rows of 3 bits
    '0': (7, 5, 5, 5, 7), '1': (2, 6, 2, 2, 7), '2': (7, 1, 7, 4, 7), '3': (7, 1, 7, 1, 7), '4': (5, 5, 7, 1, 1),
    '5': (7, 4, 7, 1, 7), '6': (7, 4, 7, 5, 7), '7': (7, 1, 1, 1, 1), '8': (7, 5, 7, 5, 7), '9': (7, 5, 7, 1, 7),
    '.': (0, 0, 0, 0, 2), ' ': (0, 0, 0, 0, 0), 'l': (4, 4, 4, 4, 7), 'o': (0, 7, 5, 5, 7), 's': (0, 7, 6, 3, 7),
    'e': (7, 5, 7, 4, 7), 'p': (7, 5, 7, 4, 4), 'c': (0, 7, 4, 4, 7), 'h': (4, 4, 7, 5, 5), 'b': (4, 4, 7, 5, 7),
    'a': (0, 7, 1, 7, 7), 't': (2, 7, 2, 2, 3), 'i': (2, 0, 2, 2, 2), 'n': (0, 6, 5, 5, 5), 'g': (7, 5, 7, 1, 6),
    'r': (0, 7, 4, 4, 4), 'u': (0, 5, 5, 5, 7), 'y': (5, 5, 7, 1, 7),
}


def save_loss_png(path, losses, epoch_ends, width=640, height=360):
    img = [[(255, 255, 255)] * width for _ in range(height)]
    left, right, top, bottom = 60, width - 15, 15, height - 40

    def put(x, y, color):
        if 0 <= x < width and 0 <= y < height:
            img[y][x] = color

    def line(x0, y0, x1, y1, color):
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in range(steps + 1):
            put(round(x0 + (x1 - x0) * i / steps), round(y0 + (y1 - y0) * i / steps), color)

    def text(x, y, s, scale=2):
        for ch in s:
            for r, bits in enumerate(GLYPHS.get(ch, GLYPHS[' '])):
                for c in range(3):
                    if bits >> (2 - c) & 1:
                        for dy in range(scale):
                            for dx in range(scale):
                                put(x + c * scale + dx, y + r * scale + dy, (0, 0, 0))
            x += 4 * scale

    hi = max(losses) * 1.05
    for k in range(5):
        label = '%.2f' % (hi * k / 4)
        text(left - 8 - 8 * len(label), bottom - round((bottom - top) * k / 4) - 5, label)
    for n, e in enumerate(epoch_ends, 1):
        text(left + round((right - left) * e / len(losses)) - 8 * len(str(n)) // 2, bottom + 10, str(n))
    text(width // 2 - 40, height - 14, 'epoch')
    text(left + 8, top, 'training loss per batch')
    line(left, top, left, bottom, (0, 0, 0))
    line(left, bottom, right, bottom, (0, 0, 0))
    for k in range(5):                                   # horizontal grid lines at 0, 1/4 .. of the top loss
        y = bottom - round((bottom - top) * k / 4)
        for x in range(left + 1, right, 4):
            put(x, y, (200, 200, 200))
    for e in epoch_ends:                                 # a tick at each epoch's end
        x = left + round((right - left) * e / len(losses))
        line(x, bottom, x, bottom + 5, (0, 0, 0))
    pts = [(left + round((right - left) * i / max(len(losses) - 1, 1)), bottom - round((bottom - top) * v / hi))
           for i, v in enumerate(losses)]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        line(x0, y0, x1, y1, (31, 119, 180))
    raw = b''.join(b'\x00' + bytes(c for px in row for c in px) for row in img)

    def chunk(tag, data):
        return struct.pack('>I', len(data)) + tag + data + struct.pack('>I', zlib.crc32(tag + data) & 0xffffffff)
    png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) +
           chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
    with open(path, 'wb') as f:
        f.write(png)


def progress(epoch, epochs, done, total, loss, width=30):
    if done != total and not sys.stdout.isatty():
        return                          # in a log file, one finished bar per epoch
    filled = width * done // total
    bar = '#' * filled + '-' * (width - filled)
    end = '\n' if done == total else ''
    sys.stdout.write('\repoch %2d/%d [%s] %3d/%d  loss %.4f%s' % (epoch, epochs, bar, done, total, loss, end))
    sys.stdout.flush()


# ---- training --------------------------------------------------------------------------------------------------
def main():
    torch.manual_seed(args.seed)
    if args.mnist:
        x_train, y_train = load_mnist(args.mnist, 'train')
        x_test, y_test = load_mnist(args.mnist, 'test')
    else:
        x, y = load_digits()
        x_train, y_train, x_test, y_test = x[:1500], y[:1500], x[1500:], y[1500:]   # a fixed held-out split
    side = x_train.shape[-1]
    model = SmallCNN(side)
    print(model)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    losses, epoch_ends = [], []
    start = time.time()
    for epoch in range(1, args.epochs + 1):
        model.train()
        for i, (xb, yb) in enumerate(loader, 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            progress(epoch, args.epochs, i, len(loader), loss.item())
        epoch_ends.append(len(losses))
    model.eval()
    with torch.no_grad():
        predicted = model(x_test).argmax(dim=1)
        correct = int((predicted == y_test).sum())
    print('held-out accuracy: %d/%d = %.2f%%' % (correct, len(y_test), 100.0 * correct / len(y_test)))
    print('final training loss: %.6f' % losses[-1])
    ckpt = os.path.join(args.out, 'digits_cnn.pt')
    torch.save(model.state_dict(), ckpt)
    save_loss_png(os.path.join(args.out, 'digits_loss.png'), losses, epoch_ends)
    print('saved %s and %s (%.1fs)' % (ckpt, os.path.join(args.out, 'digits_loss.png'), time.time() - start),
          file=sys.stderr)


if __name__ == '__main__':
    main()
