# Source: https://github.com/YyzHarry/imbalanced-semi-self/blob/92c5fe605d4ad94d75b3d84888d21a182e06e732/moco/builder.py
# Shape: a cross-batch memory queue (MoCo-style dequeue/enqueue kept as a list of chunks) enqueues the query-encoder embeddings without detach, so every step's encoder graph stays alive in the queue.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=192, hidden=64, dim=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(),
                                      nn.Linear(hidden, hidden), nn.ReLU())
        self.fc = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc(self.backbone(x.flatten(1)))


class FeatureQueue:
    """Cross-batch memory: FIFO of past embeddings used as extra negatives."""

    def __init__(self, dim=32, K=4096, chunk=32):
        self.K = K
        # start full of random unit vectors, as MoCo does with its queue buffer
        self._chunks = [F.normalize(torch.randn(chunk, dim), dim=1) for _ in range(K // chunk)]
        self._size = K

    def __len__(self):
        return self._size

    def get(self):
        return torch.cat(self._chunks, dim=0)

    def dequeue_and_enqueue(self, feats):
        self._chunks.append(feats)  # TLK102
        self._size += feats.shape[0]
        while self._size > self.K:
            old = self._chunks.pop(0)
            self._size -= old.shape[0]


class MoCoXBM(nn.Module):
    def __init__(self, base_encoder, dim=32, K=4096, m=0.99, T=0.07):
        super().__init__()
        self.m, self.T = m, T
        self.encoder_q = base_encoder(dim=dim)
        self.encoder_k = base_encoder(dim=dim)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.memory = FeatureQueue(dim, K)

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1. - self.m)

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum('nc,nc->n', [q, k]).unsqueeze(-1)
        l_neg = torch.einsum('nc,kc->nk', [q, self.memory.get().clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1)
        logits = logits / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        # cross-batch memory: store the fresh query embeddings as future negatives
        self.memory.dequeue_and_enqueue(q)
        return logits, labels


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def make_batches(n):
    # sampler output: index batches into the (fixed-size) unlabeled image set
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 512, (32,), generator=g) for _ in range(n)]


class TwoCropsTransform:
    """Take two random crops of one image as the query and key."""

    def __init__(self, noise=0.05):
        self.noise = noise

    def __call__(self, x):
        return x + self.noise * torch.randn_like(x), x + self.noise * torch.randn_like(x)


def train_one_epoch(model, criterion, optimizer, dataset, batches, losses):
    model.train()
    transform = TwoCropsTransform()
    for idx in batches:
        im_q, im_k = transform(dataset[idx])
        output, target = model(im_q, im_k)
        loss = criterion(output, target)
        losses.update(loss.item(), im_q.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def run(batches):
    model = MoCoXBM(Encoder, dim=32, K=4096)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.03, momentum=0.9)
    dataset = torch.rand(512, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    losses = AverageMeter()
    train_one_epoch(model, criterion, optimizer, dataset, batches, losses)
    return losses.avg
