# Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/54
# Shape: a cross-batch-memory loss wrapper keeps a ring buffer of past embeddings and labels (plain tensors created in __init__) and, after computing the contrastive loss of the current batch against the buffer, writes the current embeddings into the buffer slots with embeddings.detach() (including the wrap-around split); the buffer outlives every iteration but never receives a graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 80


class ContrastiveLoss(nn.Module):
    def __init__(self, pos_margin=0.0, neg_margin=0.5):
        super().__init__()
        self.pos_margin, self.neg_margin = pos_margin, neg_margin

    def forward(self, emb, labels, ref_emb, ref_labels):
        dist = torch.cdist(emb, ref_emb)
        same = labels.unsqueeze(1) == ref_labels.unsqueeze(0)
        pos = F.relu(dist - self.pos_margin)[same]
        neg = F.relu(self.neg_margin - dist)[~same]
        return pos.mean() + neg.mean()


class CrossBatchMemory(nn.Module):
    def __init__(self, loss, embedding_size, memory_size=256):
        super().__init__()
        self.loss = loss
        self.memory_size = memory_size
        self.embedding_memory = torch.zeros(memory_size, embedding_size)
        self.label_memory = torch.zeros(memory_size, dtype=torch.long)
        self.queue_idx = 0
        self.has_been_filled = False

    def forward(self, embeddings, labels):
        batch_size = embeddings.size(0)
        self.add_to_memory(embeddings, labels, batch_size)
        if self.has_been_filled:
            ref_emb, ref_labels = self.embedding_memory, self.label_memory
        else:
            ref_emb, ref_labels = self.embedding_memory[:self.queue_idx], self.label_memory[:self.queue_idx]
        return self.loss(embeddings, labels, ref_emb, ref_labels)

    def add_to_memory(self, embeddings, labels, batch_size):
        end_idx = ((self.queue_idx + batch_size - 1) % self.memory_size) + 1
        if end_idx > self.queue_idx:
            self.embedding_memory[self.queue_idx:end_idx] = embeddings.detach()
            self.label_memory[self.queue_idx:end_idx] = labels.detach()
        else:
            se = self.memory_size - self.queue_idx
            self.embedding_memory[self.queue_idx:] = embeddings[:se].detach()
            self.embedding_memory[:end_idx] = embeddings[se:].detach()
            self.label_memory[self.queue_idx:] = labels[:se].detach()
            self.label_memory[:end_idx] = labels[se:].detach()
        prev_queue_idx = self.queue_idx
        self.queue_idx = (self.queue_idx + batch_size) % self.memory_size
        if (not self.has_been_filled) and (self.queue_idx <= prev_queue_idx):
            self.has_been_filled = True


trunk = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 64))
loss_fn = CrossBatchMemory(ContrastiveLoss(), embedding_size=64, memory_size=200)
optimizer = torch.optim.Adam(trunk.parameters(), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(48, 32), torch.randint(0, 8, (48,))
    embeddings = F.normalize(trunk(x), dim=1)
    loss = loss_fn(embeddings, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item(), loss_fn.has_been_filled)
