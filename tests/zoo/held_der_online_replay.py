# Source: https://github.com/ContinualAI/avalanche/blob/043effa674585a9fa0fab706b8952e0ceddb160f/avalanche/training/supervised/der.py
# Shape: an online DER++ strategy fills its reservoir buffer from the _after_training_iteration hook with rows of self.mb_output, which is still attached, so each stored logit row keeps its whole minibatch graph alive.
# Verdict: leak
import random
import torch
import torch.nn as nn
import torch.nn.functional as F


class ReservoirBufferWithLogits:
    def __init__(self, max_size):
        self.max_size = max_size
        self.examples, self.labels, self.logits = [], [], []
        self.num_seen_examples = 0

    def __len__(self):
        return len(self.examples)

    def _reservoir(self):
        if self.num_seen_examples < self.max_size:
            return self.num_seen_examples
        rand = random.randint(0, self.num_seen_examples)
        return rand if rand < self.max_size else -1

    def add_data(self, examples, labels, logits):
        for i in range(examples.shape[0]):
            index = self._reservoir()
            self.num_seen_examples += 1
            if index == len(self.examples):
                self.examples.append(examples[i].clone())
                self.labels.append(labels[i].clone())
                self.logits.append(logits[i].clone())
            elif index >= 0:
                self.examples[index] = examples[i].clone()
                self.labels[index] = labels[i].clone()
                self.logits[index] = logits[i].clone()

    def get_data(self, size):
        choice = random.sample(range(len(self.examples)), min(size, len(self.examples)))
        return (torch.stack([self.examples[c] for c in choice]),
                torch.stack([self.labels[c] for c in choice]),
                torch.stack([self.logits[c] for c in choice]))


class OnlineDER:
    """DER++ with the buffer updated after every iteration (as in the authors' code)."""

    def __init__(self, model, optimizer, mem_size=64, batch_size_mem=16, alpha=0.1, beta=0.5):
        self.model = model
        self.optimizer = optimizer
        self.storage_policy = ReservoirBufferWithLogits(mem_size)
        self.batch_size_mem = batch_size_mem
        self.alpha, self.beta = alpha, beta
        self.mb_x = self.mb_y = self.mb_output = None
        self.loss = None

    def _after_training_iteration(self):
        self.storage_policy.add_data(self.mb_x, self.mb_y, self.mb_output)  # TLK102

    def training_iteration(self, x, y):
        self.mb_x, self.mb_y = x, y
        self.optimizer.zero_grad()
        self.mb_output = self.model(self.mb_x)
        self.loss = F.cross_entropy(self.mb_output, self.mb_y)
        if len(self.storage_policy) >= self.batch_size_mem:
            buf_x, buf_y, buf_logits = self.storage_policy.get_data(self.batch_size_mem)
            buf_out = self.model(buf_x)
            self.loss = self.loss + self.alpha * F.mse_loss(buf_out, buf_logits.detach())
            self.loss = self.loss + self.beta * F.cross_entropy(buf_out, buf_y)
        self.loss.backward()
        self.optimizer.step()
        self._after_training_iteration()
        return self.loss.item()

    def train(self, data, targets, batches):
        self.model.train()
        losses = []
        for idx in batches:
            losses.append(self.training_iteration(data[idx], targets[idx]))
        return losses


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(width, width), nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return F.relu(x + self.fc2(F.relu(self.fc1(self.norm(x)))))


class ResNetMLP(nn.Module):
    """Reduced backbone standing in for the ResNet18 used on Seq-CIFAR."""

    def __init__(self, in_dim, width, num_classes, num_blocks=4):
        super().__init__()
        self.stem = nn.Linear(in_dim, width)
        self.blocks = nn.Sequential(*[ResidualBlock(width) for _ in range(num_blocks)])
        self.classifier = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.classifier(self.blocks(F.relu(self.stem(x))))


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 512, (32,), generator=g) for _ in range(n)]


def run(batches):
    random.seed(0)
    model = ResNetMLP(32, 64, 50, num_blocks=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    data = torch.randn(512, 32, generator=torch.Generator().manual_seed(1))
    targets = torch.randint(0, 50, (512,), generator=torch.Generator().manual_seed(2))
    strategy = OnlineDER(model, optimizer)
    losses = strategy.train(data, targets, batches)
    return sum(losses) / len(losses)
