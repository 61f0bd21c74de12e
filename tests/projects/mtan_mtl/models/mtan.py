"""A tiny multi-task attention network: shared conv trunk, one soft attention mask per task."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class TaskAttention(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.att = nn.Sequential(nn.Conv2d(2 * ch, ch, 1), nn.BatchNorm2d(ch), nn.Sigmoid())

    def forward(self, low, high):
        return self.att(torch.cat((low, high), dim=1)) * high


class MTANet(nn.Module):
    def __init__(self, class_nb=3, ch=8):
        super().__init__()
        self.class_nb = class_nb
        self.enc1 = conv_block(3, ch)
        self.enc2 = conv_block(ch, ch)
        self.attn = nn.ModuleList([TaskAttention(ch) for _ in range(3)])
        self.heads = nn.ModuleList([nn.Conv2d(ch, class_nb, 1), nn.Conv2d(ch, 1, 1), nn.Conv2d(ch, 3, 1)])
        # task uncertainty, log(sigma^2), one per task (Kendall et al.)
        self.logsigma = nn.Parameter(torch.tensor([-0.5, -0.5, -0.5]))

    def shared_parameters(self):
        return list(self.enc1.parameters()) + list(self.enc2.parameters())

    def forward(self, x):
        low = self.enc1(x)
        high = self.enc2(low)
        feats = [a(low, high) for a in self.attn]
        sem = F.log_softmax(self.heads[0](feats[0]), dim=1)
        depth = self.heads[1](feats[1])
        normal = self.heads[2](feats[2])
        normal = normal / (torch.norm(normal, p=2, dim=1, keepdim=True) + 1e-6)
        return [sem, depth, normal], self.logsigma
