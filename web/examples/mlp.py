# An MLP learns a two-class problem with SGD; the loss curve is drawn as it trains (the playground's plot module).
import torch
from torch import nn

import plot

torch.manual_seed(0)
X = torch.randn(256, 2)
y = ((X[:, 0] ** 2 + X[:, 1] ** 2) < 1.0).long()

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
print(model)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
plot.title('training loss')
for step in range(200):
    loss = loss_fn(model(X), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    plot.point('loss', step, loss.item())
    if step % 20 == 0:
        print(f"step {step:3d}  loss {loss.item():.5f}")
with torch.no_grad():
    accuracy = (model(X).argmax(1) == y).float().mean().item()
print(f"accuracy {100 * accuracy:.1f}%")
