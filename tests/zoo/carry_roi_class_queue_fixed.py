# Source: https://github.com/shuangw98/MFDC/issues/3
# Shape: the queue is filled with detached keys and read back through clone().detach(), so the buffer never acquires a grad_fn across iterations.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class RoIContrastHead(nn.Module):
    def __init__(self, in_dim=16, proj_dim=8, num_classes=3, queue_len=12, temperature=0.2):
        super().__init__()
        self.cls = nn.Linear(in_dim, num_classes)
        self.proj = nn.Sequential(nn.Linear(in_dim, in_dim), nn.ReLU(), nn.Linear(in_dim, proj_dim))
        self.queue_len, self.t = queue_len, temperature
        self.register_buffer("queue", F.normalize(torch.randn(num_classes, queue_len, proj_dim), dim=-1))
        self.register_buffer("queue_ptr", torch.zeros(num_classes, dtype=torch.long))

    def _dequeue_and_enqueue(self, keys, gt_class):
        keys = keys[:self.queue_len]
        n = keys.shape[0]
        ptr = int(self.queue_ptr[gt_class])
        idx = (ptr + torch.arange(n)) % self.queue_len
        self.queue[gt_class].index_copy_(0, idx, keys.detach())
        self.queue_ptr[gt_class] = (ptr + n) % self.queue_len

    def contrast_loss(self, z, labels):
        bank = self.queue.clone().detach()
        sims = torch.einsum("nd,ckd->nck", z, bank) / self.t
        logits = sims.flatten(1)
        pos = F.one_hot(labels, bank.shape[0]).unsqueeze(-1).expand_as(sims).flatten(1).float()
        log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
        return -(log_prob * pos).sum(1).div(pos.sum(1)).mean()

    def forward(self, roi_feats, labels):
        logits = self.cls(roi_feats)
        z = F.normalize(self.proj(roi_feats), dim=-1)
        loss = F.cross_entropy(logits, labels) + 0.5 * self.contrast_loss(z, labels)
        for c in labels.unique().tolist():
            self._dequeue_and_enqueue(z[labels == c], c)
        return loss


class RoIExtractor(nn.Module):
    def __init__(self, out_dim=16):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.fc = nn.Linear(32, out_dim)

    def forward(self, crops):
        return F.relu(self.fc(self.conv(crops).flatten(1)))


def make_batches(n, rois=6):
    labels = torch.arange(rois) % 3
    return [(torch.randn(rois, 3, 6, 6), labels.clone()) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    extractor, head = RoIExtractor(), RoIContrastHead()
    opt = torch.optim.SGD(list(extractor.parameters()) + list(head.parameters()), lr=0.02, momentum=0.9)
    for crops, labels in batches:
        loss = head(extractor(crops), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
