# Source: https://github.com/oscarknagg/few-shot/issues/6
# Shape: a MAML trainer stores each task's inner-loop gradients (from autograd.grad(create_graph=True)) in a list on self for later gradient-similarity analysis; the list lives across meta-batches and pins every task's double-backward graph (measured: +143 KB per meta-batch of 4 small tasks)
# Verdict: leak
import torch
import torch.nn.functional as F
from torch.func import functional_call


class MetaTrainer:
    def __init__(self, model, inner_lr=0.01, meta_lr=1e-3):
        self.model = model
        self.inner_lr = inner_lr
        self.meta_opt = torch.optim.Adam(model.parameters(), lr=meta_lr)
        self.task_gradients = []

    def meta_batch(self, tasks):
        self.meta_opt.zero_grad()
        for (sx, sy), (qx, qy) in tasks:
            fast = dict(self.model.named_parameters())
            support_loss = F.cross_entropy(functional_call(self.model, fast, (sx,)), sy)
            grads = torch.autograd.grad(support_loss, list(fast.values()), create_graph=True)
            named_grads = {name: g for name, g in zip(fast.keys(), grads)}
            self.task_gradients.append(named_grads)  # TLK301
            fast = {name: w - self.inner_lr * named_grads[name] for name, w in fast.items()}
            query_loss = F.cross_entropy(functional_call(self.model, fast, (qx,)), qy)
            (query_loss / len(tasks)).backward()
        self.meta_opt.step()


trainer = MetaTrainer(model)
for episode in range(40_000):
    trainer.meta_batch(sampler.sample(meta_batch_size=4))
