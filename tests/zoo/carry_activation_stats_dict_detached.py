# Source: https://github.com/growingnet/gromo/issues/137
# Shape: the same per-layer moving average of activation norms, but the value is detached before it is blended into the dict slot, so the averages carry no graph
# Verdict: clean
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
)
decay = 0.98
act_norm = {}
latest = {}


def remember(name):
    def hook(module, inputs, output):
        latest[name] = output
    return hook


for name, module in model.named_modules():
    if isinstance(module, nn.Conv2d):
        module.register_forward_hook(remember(name))

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
for images, labels in train_loader:
    loss = criterion(model(images), labels)
    for k, act in latest.items():
        value = act.detach().pow(2).mean().sqrt()
        if k not in act_norm:
            act_norm[k] = value
        else:
            act_norm[k] = decay * act_norm[k] + (1 - decay) * value
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
