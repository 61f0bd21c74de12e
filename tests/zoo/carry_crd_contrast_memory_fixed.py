# Source: https://github.com/HobbitLong/RepDistiller/blob/97c4c00b511b6a625870ddfe969cfe0e14539c3b/crd/memory.py
# Shape: ContrastMemory does its momentum update of memory_v1/memory_v2 under torch.no_grad (as CRD does), so the memory buffers stay plain tensors.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

eps = 1e-7


class ContrastMemory(nn.Module):
    """memory buffer that supplies large amount of negative samples."""

    def __init__(self, inputSize, outputSize, K, T=0.07, momentum=0.5):
        super().__init__()
        self.nLem = outputSize
        self.K = K
        self.register_buffer('params', torch.tensor([K, T, -1, -1, momentum]))
        stdv = 1. / math.sqrt(inputSize / 3)
        self.register_buffer('memory_v1', torch.rand(outputSize, inputSize).mul_(2 * stdv).add_(-stdv))
        self.register_buffer('memory_v2', torch.rand(outputSize, inputSize).mul_(2 * stdv).add_(-stdv))

    def forward(self, v1, v2, y, idx=None):
        K = int(self.params[0].item())
        T = self.params[1].item()
        Z_v1 = self.params[2].item()
        Z_v2 = self.params[3].item()
        momentum = self.params[4].item()
        batchSize = v1.size(0)
        outputSize = self.memory_v1.size(0)
        inputSize = self.memory_v1.size(1)

        if idx is None:
            idx = torch.randint(0, outputSize, (batchSize, self.K + 1))
            idx.select(1, 0).copy_(y.data)
        weight_v1 = torch.index_select(self.memory_v1, 0, idx.view(-1)).detach()
        weight_v1 = weight_v1.view(batchSize, K + 1, inputSize)
        out_v2 = torch.exp(torch.div(torch.bmm(weight_v1, v2.view(batchSize, inputSize, 1)), T))
        weight_v2 = torch.index_select(self.memory_v2, 0, idx.view(-1)).detach()
        weight_v2 = weight_v2.view(batchSize, K + 1, inputSize)
        out_v1 = torch.exp(torch.div(torch.bmm(weight_v2, v1.view(batchSize, inputSize, 1)), T))

        if Z_v1 < 0:
            self.params[2] = out_v1.mean().detach() * outputSize
            Z_v1 = self.params[2].clone().detach().item()
        if Z_v2 < 0:
            self.params[3] = out_v2.mean().detach() * outputSize
            Z_v2 = self.params[3].clone().detach().item()

        out_v1 = torch.div(out_v1, Z_v1).contiguous()
        out_v2 = torch.div(out_v2, Z_v2).contiguous()

        # update memory
        self.update_memory(v1, v2, y, momentum)
        return out_v1, out_v2

    @torch.no_grad()
    def update_memory(self, v1, v2, y, momentum):
        l_pos = torch.index_select(self.memory_v1, 0, y.view(-1))
        l_pos.mul_(momentum)
        l_pos.add_(torch.mul(v1, 1 - momentum))
        l_norm = l_pos.pow(2).sum(1, keepdim=True).pow(0.5)
        updated_v1 = l_pos.div(l_norm)
        self.memory_v1.index_copy_(0, y, updated_v1)

        ab_pos = torch.index_select(self.memory_v2, 0, y.view(-1))
        ab_pos.mul_(momentum)
        ab_pos.add_(torch.mul(v2, 1 - momentum))
        ab_norm = ab_pos.pow(2).sum(1, keepdim=True).pow(0.5)
        updated_v2 = ab_pos.div(ab_norm)
        self.memory_v2.index_copy_(0, y, updated_v2)


class ContrastLoss(nn.Module):
    def __init__(self, n_data):
        super().__init__()
        self.n_data = n_data

    def forward(self, x):
        bsz = x.shape[0]
        m = x.size(1) - 1
        Pn = 1. / float(self.n_data)
        P_pos = x.select(1, 0)
        log_D1 = torch.div(P_pos, P_pos.add(m * Pn + eps)).log_()
        P_neg = x.narrow(1, 1, m)
        log_D0 = torch.div(P_neg.clone().fill_(m * Pn), P_neg.add(m * Pn + eps)).log_()
        return - (log_D1.sum(0) + log_D0.view(-1, 1).sum(0)) / bsz


class Embed(nn.Module):
    def __init__(self, dim_in, dim_out=32):
        super().__init__()
        self.linear = nn.Linear(dim_in, dim_out)

    def forward(self, x):
        return F.normalize(self.linear(x.view(x.shape[0], -1)), dim=1)


class CRDLoss(nn.Module):
    def __init__(self, s_dim, t_dim, feat_dim, n_data, nce_k=64, nce_t=0.07, nce_mom=0.5):
        super().__init__()
        self.embed_s = Embed(s_dim, feat_dim)
        self.embed_t = Embed(t_dim, feat_dim)
        self.contrast = ContrastMemory(feat_dim, n_data, nce_k, nce_t, nce_mom)
        self.criterion_t = ContrastLoss(n_data)
        self.criterion_s = ContrastLoss(n_data)

    def forward(self, f_s, f_t, idx, contrast_idx=None):
        f_s = self.embed_s(f_s)
        f_t = self.embed_t(f_t)
        out_s, out_t = self.contrast(f_s, f_t, idx, contrast_idx)
        return self.criterion_s(out_s) + self.criterion_t(out_t)


class ConvNet(nn.Module):
    def __init__(self, width, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, padding=1)
        self.conv2 = nn.Conv2d(width, width, 3, stride=2, padding=1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x, is_feat=False):
        f0 = F.relu(self.conv1(x))
        f1 = F.relu(self.conv2(f0))
        feat = F.adaptive_avg_pool2d(f1, 1).flatten(1)
        logit = self.fc(feat)
        return ([f0, f1, feat], logit) if is_feat else logit


class DistillKL(nn.Module):
    def __init__(self, T):
        super().__init__()
        self.T = T

    def forward(self, y_s, y_t):
        p_s = F.log_softmax(y_s / self.T, dim=1)
        p_t = F.softmax(y_t / self.T, dim=1)
        return F.kl_div(p_s, p_t, reduction='sum') * (self.T ** 2) / y_s.shape[0]


class CIFARInstance:
    def __init__(self, size=512):
        g = torch.Generator().manual_seed(17)
        self.images = torch.randn(size, 3, 8, 8, generator=g)
        self.targets = torch.randint(0, 10, (size,), generator=g)


def train_distill(batches, model_s, model_t, criterion_cls, criterion_div, criterion_kd, optimizer, data, opt):
    model_s.train()
    model_t.eval()
    losses = []
    for index in batches:
        input, target = data.images[index], data.targets[index]
        feat_s, logit_s = model_s(input, is_feat=True)
        with torch.no_grad():
            feat_t, logit_t = model_t(input, is_feat=True)
            feat_t = [f.detach() for f in feat_t]
        loss_cls = criterion_cls(logit_s, target)
        loss_div = criterion_div(logit_s, logit_t)
        loss_kd = criterion_kd(feat_s[-1], feat_t[-1], index)
        loss = opt["gamma"] * loss_cls + opt["alpha"] * loss_div + opt["beta"] * loss_kd
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randperm(512)[:16].clone() for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    data = CIFARInstance()
    model_t = ConvNet(width=32)
    model_s = ConvNet(width=16)
    criterion_kd = CRDLoss(s_dim=16, t_dim=32, feat_dim=32, n_data=512)
    trainable = nn.ModuleList([model_s, criterion_kd.embed_s, criterion_kd.embed_t])
    optimizer = torch.optim.SGD(trainable.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    opt = {"gamma": 1.0, "alpha": 0.9, "beta": 0.8}
    return train_distill(batches, model_s, model_t, nn.CrossEntropyLoss(), DistillKL(4.0), criterion_kd,
                         optimizer, data, opt)
