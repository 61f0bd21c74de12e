import math

import torch
from torch import nn

from .alias_multinomial import AliasMethod


class NCEAverage(nn.Module):
    """Non-parametric instance memory (the "lemniscate") with NCE scores.

    Upstream wraps forward/backward in a custom autograd Function and refreshes the
    memory inside backward(). Here the same computation runs as plain module code:
    scores against K sampled memory rows plus the instance's own row, then the
    proximal (momentum) update of the positives' memory rows.
    """

    def __init__(self, inputSize, outputSize, K, T=0.07, momentum=0.5, Z=None):
        super(NCEAverage, self).__init__()
        self.nLem = outputSize
        self.unigrams = torch.ones(self.nLem)
        self.multinomial = AliasMethod(self.unigrams)
        self.multinomial.cuda()
        self.K = K

        self.register_buffer('params', torch.tensor([K, T, -1, momentum]))
        stdv = 1. / math.sqrt(inputSize / 3)
        self.register_buffer('memory', torch.rand(outputSize, inputSize).mul_(2 * stdv).add_(-stdv))

    def forward(self, x, y):
        batchSize = x.size(0)
        idx = self.multinomial.draw(batchSize * (self.K + 1)).view(batchSize, -1)
        out = self._scores(x, y, idx)
        self._update_memory(x, y)
        return out

    def _scores(self, x, y, idx):
        K = int(self.params[0].item())
        T = self.params[1].item()
        Z = self.params[2].item()
        batchSize = x.size(0)
        outputSize = self.memory.size(0)
        inputSize = self.memory.size(1)

        # sample positives & negatives
        idx.select(1, 0).copy_(y)

        # sample correspoinding weights (the memory is a constant for the gradient)
        weight = torch.index_select(self.memory, 0, idx.view(-1)).detach()
        weight = weight.view(batchSize, K + 1, inputSize)

        # inner product
        out = torch.bmm(weight, x.view(batchSize, inputSize, 1))
        out = torch.exp(out / T)  # batchSize * self.K+1

        if Z < 0:
            Z = (out.mean() * outputSize).item()
            self.params[2] = Z
            print("normalization constant Z is set to {:.1f}".format(Z))

        return (out / Z).view(batchSize, K + 1)

    def _update_memory(self, x, y):
        momentum = self.params[3].item()
        # update the non-parametric data
        weight_pos = torch.index_select(self.memory, 0, y.view(-1))
        weight_pos.mul_(momentum)
        weight_pos.add_(torch.mul(x, 1 - momentum))  # known-miss: TLK103
        w_norm = weight_pos.pow(2).sum(1, keepdim=True).pow(0.5)
        updated_weight = weight_pos.div(w_norm)
        self.memory.index_copy_(0, y, updated_weight)
