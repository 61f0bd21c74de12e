# Source: https://github.com/KevinMusgrave/pytorch-metric-learning/blob/043133e5d801912812a39d608fff75dc2cec7d9d/src/pytorch_metric_learning/losses/cross_batch_memory.py
# Shape: CrossBatchMemory.add_to_memory writes the attached batch embeddings into the embedding_memory buffer (the detach only happens where the memory is read), so the buffer's index_put history keeps every enqueued batch's graph alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_all_pairs_masks(labels, ref_labels):
    matches = labels.unsqueeze(1) == ref_labels.unsqueeze(0)
    return matches, ~matches


class ContrastiveLoss(nn.Module):
    def __init__(self, pos_margin=0.0, neg_margin=0.5):
        super().__init__()
        self.pos_margin = pos_margin
        self.neg_margin = neg_margin

    def forward(self, embeddings, labels, pair_masks, ref_emb, ref_labels):
        pos_mask, neg_mask = pair_masks
        dist = torch.cdist(embeddings, ref_emb)
        pos_loss = F.relu(dist - self.pos_margin) * pos_mask
        neg_loss = F.relu(self.neg_margin - dist) * neg_mask
        pos_loss = pos_loss.sum() / (pos_loss > 0).sum().clamp(min=1)
        neg_loss = neg_loss.sum() / (neg_loss > 0).sum().clamp(min=1)
        return pos_loss + neg_loss


class CrossBatchMemory(nn.Module):
    def __init__(self, loss, embedding_size, memory_size=1024, miner=None):
        super().__init__()
        self.loss = loss
        self.miner = miner
        self.embedding_size = embedding_size
        self.memory_size = memory_size
        self.reset_queue()

    def forward(self, embeddings, labels):
        assert len(embeddings) <= len(self.embedding_memory)
        batch_size = len(embeddings)
        self.add_to_memory(embeddings, labels, batch_size)
        if not self.has_been_filled:
            E_mem = self.embedding_memory[: self.queue_idx]
            L_mem = self.label_memory[: self.queue_idx]
        else:
            E_mem = self.embedding_memory
            L_mem = self.label_memory
        # memory entries are constants: no gradient flows into the queue
        E_mem = E_mem.detach()
        pair_masks = self.create_pair_masks(labels, L_mem)
        return self.loss(embeddings, labels, pair_masks, E_mem, L_mem)

    def add_to_memory(self, embeddings, labels, batch_size):
        self.curr_batch_idx = torch.arange(self.queue_idx, self.queue_idx + batch_size) % self.memory_size
        self.embedding_memory[self.curr_batch_idx] = embeddings  # TLK102
        self.label_memory[self.curr_batch_idx] = labels.detach()
        prev_queue_idx = self.queue_idx
        self.queue_idx = (self.queue_idx + batch_size) % self.memory_size
        if (not self.has_been_filled) and (self.queue_idx <= prev_queue_idx):
            self.has_been_filled = True

    def create_pair_masks(self, labels, L_mem):
        pos_mask, neg_mask = get_all_pairs_masks(labels, L_mem)
        # remove self comparisons: the current batch sits in the queue at curr_batch_idx
        pos_mask[torch.arange(len(labels)), self.curr_batch_idx] = False
        return pos_mask, neg_mask

    def reset_queue(self):
        self.embedding_memory = torch.zeros(self.memory_size, self.embedding_size)
        self.label_memory = torch.zeros(self.memory_size).long()
        self.has_been_filled = False
        self.queue_idx = 0


class Embedder(nn.Module):
    def __init__(self, embedding_size=32, width=16):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.embedder = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, embedding_size))

    def forward(self, x):
        return F.normalize(self.embedder(self.trunk(x)), dim=1)


class CUBSubset:
    def __init__(self, size=256, num_classes=16):
        g = torch.Generator().manual_seed(9)
        self.labels = torch.randint(0, num_classes, (size,), generator=g)
        protos = torch.randn(num_classes, 3, 16, 16, generator=g)
        self.images = protos[self.labels] + 0.5 * torch.randn(size, 3, 16, 16, generator=g)
        self.order = torch.randperm(size, generator=g)

    def sample(self, start, batch_size=16):
        return self.order[start:start + batch_size]


class MetricTrainer:
    def __init__(self):
        self.model = Embedder()
        self.loss_fn = CrossBatchMemory(ContrastiveLoss(), embedding_size=32, memory_size=64)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.data = CUBSubset()
        self.losses = []

    def train(self, batches):
        self.model.train()
        for start in batches:
            idx = self.data.sample(start)
            embeddings = self.model(self.data.images[idx])
            loss = self.loss_fn(embeddings, self.data.labels[idx])
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.losses.append(loss.item())
        return self.losses


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 256 - 16, (n,))]


def run(batches):
    torch.manual_seed(0)
    trainer = MetricTrainer()
    return trainer.train(batches)
