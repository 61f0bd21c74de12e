# Source: https://github.com/facebookresearch/MetaBalance/issues/2
# Shape: a MetaBalance-style gradient balancer collects per-task gradients of a shared trunk by calling loss.backward(retain_graph=True) for every task loss in turn inside its step(); the last task's backward also retains, so the whole multi-task graph (trunk activations included) survives the step and is only dropped when the next batch rebinds the losses, which the reporter saw as CUDA memory climbing until the crash.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 10


class MetaBalance(torch.optim.Optimizer):
    def __init__(self, params, relax_factor=0.7, beta=0.9):
        super().__init__(params, dict(relax_factor=relax_factor, beta=beta))

    @torch.no_grad()
    def _combine(self, group, p, task_grads):
        state = self.state[p]
        norms = [g.norm() for g in task_grads]
        if "norms" not in state:
            state["norms"] = torch.stack(norms)
        state["norms"] = group["beta"] * state["norms"] + (1 - group["beta"]) * torch.stack(norms)
        main = state["norms"][0]
        combined = task_grads[0].clone()
        for i, g in enumerate(task_grads[1:], start=1):
            scaled = g * main / (state["norms"][i] + 1e-8)
            combined += scaled * group["relax_factor"] + g * (1 - group["relax_factor"])
        p.grad = combined

    def step(self, losses):
        per_param = {}
        for loss in losses:
            loss.backward(retain_graph=True)  # TLK201
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        per_param.setdefault(p, []).append(p.grad.clone())
                        p.grad.zero_()
        for group in self.param_groups:
            for p in group["params"]:
                if p in per_param:
                    self._combine(group, p, per_param[p])


class SharedBottom(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.main_head = nn.Linear(32, 10)
        self.aux_head = nn.Linear(32, 1)

    def forward(self, x):
        h = self.trunk(x).mean(dim=(2, 3))
        return self.main_head(h), self.aux_head(h).squeeze(-1)


model = SharedBottom()
trunk_params = list(model.trunk.parameters())
balancer = MetaBalance(trunk_params)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(8, 3, 48, 48)
    y, aux_target = torch.randint(0, 10, (8,)), torch.randn(8)
    optimizer.zero_grad()
    logits, aux = model(x)
    main_loss = F.cross_entropy(logits, y)
    aux_loss = F.mse_loss(aux, aux_target)
    balancer.step([main_loss, aux_loss])
    optimizer.step()
print("done", main_loss.item(), aux_loss.item())
