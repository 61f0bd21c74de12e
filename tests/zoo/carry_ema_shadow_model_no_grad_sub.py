# Source: https://www.zijianhu.com/post/pytorch/ema/
# Shape: an EMA wrapper module deep-copies the model into a shadow whose parameters are detach_()ed, and its update() method, decorated with @torch.no_grad(), moves every shadow parameter toward the live parameter in place (shadow.sub_((1 - decay) * (shadow - param))) and copies buffers; it is called after every optimizer step, so the state carried across iterations is updated from attached parameters but never records a graph.
# Verdict: clean
from collections import OrderedDict
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 100


class EMA(nn.Module):
    def __init__(self, model: nn.Module, decay: float):
        super().__init__()
        self.decay = decay
        self.model = model
        self.shadow = deepcopy(self.model)
        for param in self.shadow.parameters():
            param.detach_()

    @torch.no_grad()
    def update(self):
        if not self.training:
            return
        model_params = OrderedDict(self.model.named_parameters())
        shadow_params = OrderedDict(self.shadow.named_parameters())
        assert model_params.keys() == shadow_params.keys()
        for name, param in model_params.items():
            shadow_params[name].sub_((1.0 - self.decay) * (shadow_params[name] - param))
        model_buffers = OrderedDict(self.model.named_buffers())
        shadow_buffers = OrderedDict(self.shadow.named_buffers())
        for name, buffer in model_buffers.items():
            shadow_buffers[name].copy_(buffer)

    def forward(self, inputs):
        if self.training:
            return self.model(inputs)
        return self.shadow(inputs)


net = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 4))
ema = EMA(net, decay=0.995)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
ema.train()
for step in range(STEPS):
    x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))
    loss = F.cross_entropy(ema(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ema.update()
ema.eval()
with torch.no_grad():
    print(ema(torch.randn(8, 16)).shape)
