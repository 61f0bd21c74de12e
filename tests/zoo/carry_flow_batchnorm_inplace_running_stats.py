# Source: https://github.com/bayesiains/nflows/pull/11
# Shape: batch-norm layer of a normalizing flow updates its running mean and variance buffers in place (mul_/add_) from the attached batch statistics inside forward(), with no torch.no_grad(); the buffers gain a grad_fn and chain every batch's graph (measured: +4.8 KB heap per step, never freed)
# Verdict: leak
import torch
import torch.nn as nn


class FlowBatchNorm(nn.Module):
    def __init__(self, features, eps=1e-5, momentum=0.05):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.log_gamma = nn.Parameter(torch.zeros(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("running_var", torch.ones(features))

    def forward(self, inputs):
        if self.training:
            mean, var = inputs.mean(0), inputs.var(0)
            self.running_mean.mul_(1 - self.momentum).add_(mean * self.momentum)  # TLK103
            self.running_var.mul_(1 - self.momentum).add_(var * self.momentum)  # TLK103
        else:
            mean, var = self.running_mean, self.running_var
        outputs = (inputs - mean) / torch.sqrt(var + self.eps)
        outputs = torch.exp(self.log_gamma) * outputs + self.beta
        logabsdet = torch.sum(self.log_gamma - 0.5 * torch.log(var + self.eps))
        return outputs, logabsdet.expand(inputs.size(0))


flow = nn.ModuleList([FlowBatchNorm(16) for _ in range(4)])
optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
for x in data_loader:
    total_logdet = 0
    for layer in flow:
        x, logdet = layer(x)
        total_logdet = total_logdet + logdet
    nll = 0.5 * x.pow(2).sum(1) - total_logdet
    optimizer.zero_grad()
    nll.mean().backward()
    optimizer.step()
