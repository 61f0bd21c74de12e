# Source: https://github.com/facebookresearch/MetaBalance/issues/2
# Shape: the balanced multi-task step takes each task's gradient on the shared trunk with torch.autograd.grad(loss, shared, retain_graph=True), then backwards the summed task losses once through the same graph without retaining it (filling the heads' .grad and freeing the graph), and finally overwrites the trunk's .grad with the rescaled combination; every retain_graph=True is followed by a pass that needs the graph, and the last pass frees it, so nothing is held past the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 10


class SharedBottom(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.main_head = nn.Linear(32, 10)
        self.aux_head = nn.Linear(32, 1)

    def forward(self, x):
        h = self.trunk(x).mean(dim=(2, 3))
        return self.main_head(h), self.aux_head(h).squeeze(-1)


def balanced_step(losses, shared, relax_factor=0.7):
    task_grads = [torch.autograd.grad(loss, shared, retain_graph=True) for loss in losses]
    total = sum(losses)
    total.backward()
    with torch.no_grad():
        for j, p in enumerate(shared):
            main = task_grads[0][j]
            combined = main.clone()
            for grads in task_grads[1:]:
                g = grads[j]
                scaled = g * main.norm() / (g.norm() + 1e-8)
                combined += relax_factor * scaled + (1 - relax_factor) * g
            p.grad = combined


model = SharedBottom()
shared = list(model.trunk.parameters())
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(8, 3, 48, 48)
    y, aux_target = torch.randint(0, 10, (8,)), torch.randn(8)
    optimizer.zero_grad()
    logits, aux = model(x)
    main_loss = F.cross_entropy(logits, y)
    aux_loss = F.mse_loss(aux, aux_target)
    balanced_step([main_loss, aux_loss], shared)
    optimizer.step()
print("done", main_loss.item(), aux_loss.item())
