# Learn the Basics, "Build the model" + "Optimizing model parameters" in miniature (no numpy, no data download):
# an MLP on a small synthetic two-class problem, trained with SGD; the printed losses must match real torch's.
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(64, 4)
y = (X[:, 0] + 0.5 * X[:, 1] - X[:, 2] > 0).long()


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4, 16),
            nn.ReLU(),
            nn.Linear(16, 2),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
print(model)
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:1]} \n")

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(5):
    for i in range(0, 64, 16):
        pred = model(X[i:i + 16])
        loss = loss_fn(pred, y[i:i + 16])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    with torch.no_grad():
        logits = model(X)
        test_loss = loss_fn(logits, y).item()
        correct = (logits.argmax(1) == y).type(torch.float).sum().item()
    print(f"epoch {epoch}: loss {loss.item():>7f}  test loss {test_loss:>8f}  accuracy {100 * correct / 64:>0.1f}%")

pred_probab = F.softmax(model(X[:3]), dim=1)
print(pred_probab)
print(pred_probab.argmax(1))
