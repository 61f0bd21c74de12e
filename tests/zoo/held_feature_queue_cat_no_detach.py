# Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/142
# Shape: a queue of negatives for a contrastive loss: the loss reads a detached copy of the queue, but the enqueue is a plain torch.cat of the current, still attached embeddings, so the queue keeps the graph of every batch it holds.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class QueueContrastiveLoss(nn.Module):
    def __init__(self, embedding_size=128, memory_size=8192, temperature=0.07):
        super().__init__()
        self.memory_size = memory_size
        self.temperature = temperature
        self.queue = torch.empty(0, embedding_size)
        self.queue_labels = torch.empty(0, dtype=torch.long)

    def forward(self, embeddings, labels):
        embeddings = F.normalize(embeddings, dim=1)
        negatives = self.queue.clone().detach().to(embeddings.device)
        bank = torch.cat([embeddings, negatives])
        bank_labels = torch.cat([labels, self.queue_labels.to(labels.device)])
        logits = embeddings @ bank.T / self.temperature
        positives = (labels[:, None] == bank_labels[None, :]).float()
        loss = -(F.log_softmax(logits, dim=1) * positives).sum(1).div(positives.sum(1)).mean()
        self.queue = torch.cat([self.queue.to(embeddings.device), embeddings])[-self.memory_size:]  # TLK102
        self.queue_labels = torch.cat([self.queue_labels.to(labels.device), labels])[-self.memory_size:]
        return loss


def train(trunk, loader, epochs=10):
    criterion = QueueContrastiveLoss()
    optimizer = torch.optim.Adam(trunk.parameters(), lr=1e-4)
    for _ in range(epochs):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = criterion(trunk(images.cuda()), labels.cuda())
            loss.backward()
            optimizer.step()
