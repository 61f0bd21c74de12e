# Source: https://github.com/wyharveychen/CloserLookFewShot/issues/62
# Shape: MAML with fast-weight layers: each task resets every parameter's .fast slot, adapts it with autograd.grad(create_graph=True) for a few inner steps, and returns the query loss; the train loop gathers the task losses of a meta-batch in a list, backwards their sum, steps and empties the list, so each second-order graph is consumed once per meta-batch and only floats are averaged.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LinearFW(nn.Linear):
    def __init__(self, in_features, out_features):
        super().__init__(in_features, out_features)
        self.weight.fast = None
        self.bias.fast = None

    def forward(self, x):
        if self.weight.fast is not None and self.bias.fast is not None:
            return F.linear(x, self.weight.fast, self.bias.fast)
        return super().forward(x)


class MAML(nn.Module):
    def __init__(self, n_in, n_way, task_update_num=5, train_lr=0.01, n_task=4):
        super().__init__()
        self.feature = nn.Sequential(LinearFW(n_in, 64), nn.ReLU())
        self.classifier = LinearFW(64, n_way)
        self.task_update_num = task_update_num
        self.train_lr = train_lr
        self.n_task = n_task

    def forward(self, x):
        return self.classifier(self.feature(x))

    def set_forward_loss(self, support_x, support_y, query_x, query_y):
        fast_parameters = list(self.parameters())
        for weight in self.parameters():
            weight.fast = None
        self.zero_grad()
        for _ in range(self.task_update_num):
            set_loss = F.cross_entropy(self.forward(support_x), support_y)
            grads = torch.autograd.grad(set_loss, fast_parameters, create_graph=True)
            fast_parameters = []
            for k, weight in enumerate(self.parameters()):
                base = weight if weight.fast is None else weight.fast
                weight.fast = base - self.train_lr * grads[k]
                fast_parameters.append(weight.fast)
        return F.cross_entropy(self.forward(query_x), query_y)

    def train_loop(self, epoch, tasks, optimizer):
        avg_loss = 0.0
        task_count = 0
        loss_all = []
        optimizer.zero_grad()
        for i, (support_x, support_y, query_x, query_y) in enumerate(tasks):
            loss = self.set_forward_loss(support_x, support_y, query_x, query_y)
            avg_loss += loss.item()
            loss_all.append(loss)
            task_count += 1
            if task_count == self.n_task:
                loss_q = torch.stack(loss_all).sum(0)
                loss_q.backward()
                optimizer.step()
                task_count = 0
                loss_all = []
                optimizer.zero_grad()
        print(f"epoch {epoch}: loss {avg_loss / max(1, len(tasks)):.4f}")
