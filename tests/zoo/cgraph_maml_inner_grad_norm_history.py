# Source: https://github.com/tristandeleu/pytorch-maml/issues/21
# Shape: second-order MAML meta-learner whose adapt() records the norm of every inner-loop gradient (computed with create_graph=True) in a history list on the learner for diagnostics; the norms stay attached to the double-backward graph, so the list keeps the gradients and their graph of every inner step of every meta-iteration.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


class ModelAgnosticMetaLearning:
    def __init__(self, model: nn.Module, meta_optimizer, step_size=0.1, num_adaptation_steps=1, first_order=False):
        self.model = model
        self.meta_optimizer = meta_optimizer
        self.step_size = step_size
        self.num_adaptation_steps = num_adaptation_steps
        self.first_order = first_order
        self.grad_norm_history = []

    def adapt(self, inputs, targets):
        params = dict(self.model.named_parameters())
        for _ in range(self.num_adaptation_steps):
            inner_loss = F.cross_entropy(functional_call(self.model, params, (inputs,)), targets)
            grads = torch.autograd.grad(inner_loss, tuple(params.values()), create_graph=not self.first_order)
            grad_norm = torch.sqrt(sum(g.pow(2).sum() for g in grads))
            self.grad_norm_history.append(grad_norm)  # TLK301
            params = {name: p - self.step_size * g for (name, p), g in zip(params.items(), grads)}
        return params

    def get_outer_loss(self, batch):
        train_inputs, train_targets, test_inputs, test_targets = batch
        outer_loss = torch.tensor(0.0)
        for task_id in range(train_inputs.size(0)):
            params = self.adapt(train_inputs[task_id], train_targets[task_id])
            test_logits = functional_call(self.model, params, (test_inputs[task_id],))
            outer_loss = outer_loss + F.cross_entropy(test_logits, test_targets[task_id])
        return outer_loss / train_inputs.size(0)

    def train(self, dataloader, max_batches=500):
        self.model.train()
        for batch_idx, batch in enumerate(dataloader):
            self.meta_optimizer.zero_grad()
            outer_loss = self.get_outer_loss(batch)
            outer_loss.backward()
            self.meta_optimizer.step()
            if batch_idx % 50 == 0:
                recent = self.grad_norm_history[-10:]
                print(f"batch {batch_idx}: outer loss {outer_loss.item():.4f}, inner grad norm {float(sum(recent) / len(recent)):.3f}")
            if batch_idx + 1 >= max_batches:
                break
