# Source: https://github.com/tristandeleu/pytorch-maml/issues/21
# Shape: the MAML meta-learner as the library writes it: adapt() takes num_adaptation_steps differentiable steps (create_graph=True), the adapted parameters only feed the task's outer loss, which is backwarded once per meta-batch; inner losses are logged as floats. Memory grows with the number of adaptation steps within an iteration, not across iterations.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


def gradient_update_parameters(model, loss, params, step_size, first_order=False):
    grads = torch.autograd.grad(loss, tuple(params.values()), create_graph=not first_order)
    return {name: param - step_size * grad for (name, param), grad in zip(params.items(), grads)}


class MetaLearner:
    def __init__(self, model: nn.Module, meta_optimizer, step_size=0.4, num_adaptation_steps=3, first_order=False):
        self.model = model
        self.meta_optimizer = meta_optimizer
        self.step_size = step_size
        self.num_adaptation_steps = num_adaptation_steps
        self.first_order = first_order

    def adapt(self, inputs, targets, inner_losses):
        params = dict(self.model.named_parameters())
        for step in range(self.num_adaptation_steps):
            inner_loss = F.cross_entropy(functional_call(self.model, params, (inputs,)), targets)
            inner_losses[step] = inner_loss.item()
            params = gradient_update_parameters(self.model, inner_loss, params, self.step_size, self.first_order)
        return params

    def train_iter(self, dataloader, max_batches=100):
        self.model.train()
        num_batches = 0
        while num_batches < max_batches:
            for train_inputs, train_targets, test_inputs, test_targets in dataloader:
                num_tasks = train_inputs.size(0)
                inner_losses = torch.zeros(self.num_adaptation_steps, num_tasks)
                self.meta_optimizer.zero_grad()
                mean_outer_loss = torch.tensor(0.0)
                for task_id in range(num_tasks):
                    params = self.adapt(train_inputs[task_id], train_targets[task_id], inner_losses[:, task_id])
                    test_logits = functional_call(self.model, params, (test_inputs[task_id],))
                    mean_outer_loss += F.cross_entropy(test_logits, test_targets[task_id])
                mean_outer_loss.div_(num_tasks)
                mean_outer_loss.backward()
                self.meta_optimizer.step()
                num_batches += 1
                yield {"inner_losses": inner_losses, "outer_loss": mean_outer_loss.item()}
                if num_batches >= max_batches:
                    return
