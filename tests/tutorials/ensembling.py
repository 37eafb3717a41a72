"""pytorch/tutorials intermediate_source/ensembling.py with offline data (seeded randn, as the tutorial's) and
smaller sizes. Run as `python3 ensembling.py torch|wick` (tests/test_tutorials.py)."""
import copy
import importlib
import sys

torch = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else 'torch')
nn, F = torch.nn, torch.nn.functional
torch.set_printoptions(precision=3)
torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


device = 'cpu'
num_models = 10
data = torch.randn(20, 16, 1, 28, 28, device=device)
targets = torch.randint(10, (320,), device=device)
models = [SimpleMLP().to(device) for _ in range(num_models)]

minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

stack_module_state, functional_call, vmap = torch.func.stack_module_state, torch.func.functional_call, torch.func.vmap
params, buffers = stack_module_state(models)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print([p.size(0) for p in params.values()])
assert minibatches.shape == (num_models, 16, 1, 28, 28)
predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)
print(predictions1_vmap.shape, predictions2_vmap.shape)
print(predictions1_vmap[3, :2])
print(predictions2_vmap[:, 0].argmax(dim=1))
