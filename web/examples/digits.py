# A small CNN learns the shipped handwritten digits (data/digits.csv: 8x8 pixels, label last); the loss is plotted.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import plot

rows = [[int(v) for v in line.split(",")] for line in open("data/digits.csv")]
X = torch.tensor([r[:64] for r in rows], dtype=torch.float32).reshape(-1, 1, 8, 8) / 16.0
y = torch.tensor([r[64] for r in rows])
torch.manual_seed(0)
train = DataLoader(TensorDataset(X[:1500], y[:1500]), batch_size=50, shuffle=True)

model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(8 * 4 * 4, 10),
)
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
plot.title('digits CNN: training loss')
step = 0
for epoch in range(3):
    for xb, yb in train:
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        plot.point('loss', step, loss.item())
        step += 1
    with torch.no_grad():
        accuracy = (model(X[1500:]).argmax(1) == y[1500:]).float().mean().item()
    print(f"epoch {epoch}: last batch loss {loss.item():.4f}, held-out accuracy {100 * accuracy:.1f}%")
