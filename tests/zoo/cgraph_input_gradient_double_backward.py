# Source: https://github.com/pytorch/pytorch/issues/3824
# Shape: a double-backpropagation training step takes dx = grad(loss, x, create_graph=True) with respect to the input, perturbs the input with it and adds an input-gradient penalty, then backwards the combined loss; the create_graph result is consumed by that backward in the same iteration and only dx.norm().item() is logged, so memory stays flat once the (since fixed) autograd bug of the report is gone.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad

STEPS = 50


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        h = F.softplus(self.c1(x))
        h = F.softplus(self.c2(h))
        return self.fc(h.mean(dim=(2, 3)))


model = SmallCNN()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
grad_norms = []
for step in range(STEPS):
    x = torch.rand(8, 3, 16, 16, requires_grad=True)
    y = torch.randint(0, 10, (8,))
    ce = F.cross_entropy(model(x), y)
    dx, = grad(ce, x, create_graph=True)
    x_adv = x + 0.03 * dx
    loss = ce + F.cross_entropy(model(x_adv), y) + 0.1 * dx.pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    grad_norms.append(dx.norm().item())
print(len(grad_norms), sum(grad_norms) / len(grad_norms))
