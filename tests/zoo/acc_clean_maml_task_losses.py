# Source: https://github.com/learnables/learn2learn/issues/388
# Shape: MAML meta-batch: each task's adapted (create_graph) evaluation loss is summed into batch_loss, which is divided and backwarded in the same iteration; the only values kept across iterations are .item() floats.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    """Small 5-way classifier whose forward can run with an explicit list of (fast) weights."""

    def __init__(self, in_dim=16, hidden=32, ways=5):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, ways))

    def forward(self, x, params=None):
        if params is None:
            return self.net(x)
        w1, b1, w2, b2, w3, b3 = params
        x = F.relu(F.linear(x, w1, b1))
        x = F.relu(F.linear(x, w2, b2))
        return F.linear(x, w3, b3)


class MAML(nn.Module):
    def __init__(self, model, lr, first_order=False):
        super().__init__()
        self.module = model
        self.lr = lr
        self.first_order = first_order

    def clone(self):
        return ClonedLearner(self.module, list(self.module.parameters()), self.lr, self.first_order)


class ClonedLearner:
    def __init__(self, module, params, lr, first_order):
        self.module, self.params, self.lr, self.first_order = module, params, lr, first_order

    def __call__(self, x):
        return self.module(x, self.params)

    def adapt(self, loss):
        grads = torch.autograd.grad(loss, self.params, create_graph=not self.first_order)
        self.params = [p - self.lr * g for p, g in zip(self.params, grads)]


def accuracy(predictions, targets):
    predictions = predictions.argmax(dim=1).view(targets.shape)
    return (predictions == targets).sum().float() / targets.size(0)


class TaskSampler:
    """5-way, 1-shot tasks drawn from fixed class prototypes (size independent of the iteration count)."""

    def __init__(self, n_classes=20, in_dim=16, ways=5, shots=1):
        g = torch.Generator().manual_seed(42)
        self.prototypes = torch.randn(n_classes, in_dim, generator=g)
        self.ways, self.shots, self.in_dim = ways, shots, in_dim

    def sample(self, g):
        classes = torch.randperm(len(self.prototypes), generator=g)[:self.ways]
        n = 2 * self.shots
        data = self.prototypes[classes].repeat_interleave(n, 0) + 0.3 * torch.randn(self.ways * n, self.in_dim, generator=g)
        labels = torch.arange(self.ways).repeat_interleave(n)
        return data, labels


def fast_adapt(batch, learner, loss, adaptation_steps, shots, ways):
    data, labels = batch
    # Separate data into adaptation/evalutation sets
    adaptation_indices = torch.zeros(data.size(0), dtype=torch.bool)
    adaptation_indices[torch.arange(shots * ways) * 2] = True
    evaluation_indices = ~adaptation_indices
    adaptation_data, adaptation_labels = data[adaptation_indices], labels[adaptation_indices]
    evaluation_data, evaluation_labels = data[evaluation_indices], labels[evaluation_indices]

    # Adapt the model
    for step in range(adaptation_steps):
        train_error = loss(learner(adaptation_data), adaptation_labels)
        learner.adapt(train_error)

    # Evaluate the adapted model
    predictions = learner(evaluation_data)
    evaluation_error = loss(predictions, evaluation_labels)
    evaluation_accuracy = accuracy(predictions, evaluation_labels)
    return evaluation_error, evaluation_accuracy


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches, ways=5, shots=1, meta_lr=0.003, fast_lr=0.5, meta_batch_size=4, adaptation_steps=1):
    model = Learner(ways=ways)
    maml = MAML(model, lr=fast_lr, first_order=False)
    opt = torch.optim.Adam(maml.parameters(), meta_lr)
    loss = nn.CrossEntropyLoss(reduction='mean')
    train_tasks = TaskSampler(ways=ways, shots=shots)
    history = []

    for iteration, seed in enumerate(batches, 1):
        g = torch.Generator().manual_seed(seed)
        opt.zero_grad()
        meta_train_error = 0.0
        meta_train_accuracy = 0.0

        batch_loss = None
        for task in range(meta_batch_size):
            learner = maml.clone()
            batch = train_tasks.sample(g)
            evaluation_error, evaluation_accuracy = fast_adapt(batch, learner, loss, adaptation_steps, shots, ways)
            if batch_loss is None:
                batch_loss = evaluation_error
            else:
                batch_loss += evaluation_error
            meta_train_error += evaluation_error.item()
            meta_train_accuracy += evaluation_accuracy.item()

        # Average the accumulated loss and optimize
        batch_loss /= meta_batch_size
        batch_loss.backward()
        opt.step()
        history.append((meta_train_error / meta_batch_size, meta_train_accuracy / meta_batch_size))
    return history
