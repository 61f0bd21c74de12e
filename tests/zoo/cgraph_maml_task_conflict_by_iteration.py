# Source: https://discuss.pytorch.org/t/how-can-you-do-memory-efficient-maml/131672
# Shape: a memory-efficient MAML step adapts each task with autograd.grad(create_graph=True), sums per-task meta-gradients taken with a plain autograd.grad, and records a task-conflict score (cosine similarity of the tasks' inner gradients) in a dict keyed by iteration; the score is still attached to the inner second-order graphs.
# Verdict: leak
import torch
import torch.nn.functional as F
from torch.func import functional_call


class MetaTrainer:
    def __init__(self, net, inner_lr=0.4, meta_lr=1e-3, inner_steps=1):
        self.net = net
        self.inner_lr = inner_lr
        self.inner_steps = inner_steps
        self.meta_opt = torch.optim.Adam(net.parameters(), lr=meta_lr)
        self.task_conflict = {}

    def adapt(self, x_s, y_s):
        params = dict(self.net.named_parameters())
        grads = None
        for _ in range(self.inner_steps):
            support_loss = F.cross_entropy(functional_call(self.net, params, (x_s,)), y_s)
            grads = torch.autograd.grad(support_loss, tuple(params.values()), create_graph=True)
            params = {name: w - self.inner_lr * g for (name, w), g in zip(params.items(), grads)}
        return params, grads

    def meta_step(self, iteration, task_batch):
        meta_grads = [torch.zeros_like(p) for p in self.net.parameters()]
        inner_directions = []
        query_losses = []
        for x_s, y_s, x_q, y_q in task_batch:
            fast, inner_grads = self.adapt(x_s, y_s)
            query_loss = F.cross_entropy(functional_call(self.net, fast, (x_q,)), y_q)
            task_meta_grads = torch.autograd.grad(query_loss, tuple(self.net.parameters()))
            for acc, g in zip(meta_grads, task_meta_grads):
                acc += g / len(task_batch)
            inner_directions.append(torch.cat([g.flatten() for g in inner_grads]))
            query_losses.append(query_loss.item())
        flat = F.normalize(torch.stack(inner_directions), dim=1)
        sim = flat @ flat.t()
        off_diag = ~torch.eye(len(task_batch), dtype=torch.bool)
        self.task_conflict[iteration] = sim[off_diag].mean()  # TLK301
        for p, g in zip(self.net.parameters(), meta_grads):
            p.grad = g
        self.meta_opt.step()
        self.meta_opt.zero_grad(set_to_none=True)
        return sum(query_losses) / len(query_losses)

    def train(self, task_loader):
        history = []
        for iteration, task_batch in enumerate(task_loader):
            history.append(self.meta_step(iteration, task_batch))
        return history
