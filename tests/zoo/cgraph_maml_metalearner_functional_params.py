# Source: https://github.com/tristandeleu/pytorch-maml/blob/9da961a934ae38ce7abf0ae8af271a49797fb814/maml/utils.py
# Shape: a MAML meta-learner class adapts parameters functionally: a helper takes autograd.grad(create_graph=not first_order) and returns new parameter dicts, adapt() carries them through the inner steps, get_outer_loss() sums the query losses over the tasks, and the train_iter generator backwards that sum every meta-batch and yields float results; the second-order graph is consumed each iteration.
# Verdict: clean
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


def gradient_update_parameters(model, loss, params=None, step_size=0.5, first_order=False):
    if params is None:
        params = OrderedDict(model.named_parameters())
    grads = torch.autograd.grad(loss, params.values(), create_graph=not first_order)
    return OrderedDict((name, param - step_size * grad) for (name, param), grad in zip(params.items(), grads))


def compute_accuracy(logits, targets):
    return (logits.argmax(dim=-1) == targets).float().mean().item()


class ModelAgnosticMetaLearning:
    def __init__(self, model: nn.Module, meta_lr=1e-3, step_size=0.4, num_adaptation_steps=1, first_order=False):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=meta_lr)
        self.step_size = step_size
        self.num_adaptation_steps = num_adaptation_steps
        self.first_order = first_order

    def adapt(self, inputs, targets):
        params = None
        inner_losses = []
        for step in range(self.num_adaptation_steps):
            logits = functional_call(self.model, params, (inputs,)) if params is not None else self.model(inputs)
            inner_loss = F.cross_entropy(logits, targets)
            inner_losses.append(inner_loss.item())
            params = gradient_update_parameters(self.model, inner_loss, params=params, step_size=self.step_size,
                                                first_order=self.first_order)
        return params, inner_losses

    def get_outer_loss(self, batch):
        train_inputs, train_targets = batch["train"]
        test_inputs, test_targets = batch["test"]
        num_tasks = test_targets.size(0)
        results = {"inner_losses": [], "outer_losses": [], "accuracies_after": []}
        mean_outer_loss = torch.tensor(0.0, device=test_inputs.device)
        for task_id in range(num_tasks):
            params, inner_losses = self.adapt(train_inputs[task_id], train_targets[task_id])
            test_logits = functional_call(self.model, params, (test_inputs[task_id],))
            outer_loss = F.cross_entropy(test_logits, test_targets[task_id])
            results["inner_losses"].append(inner_losses)
            results["outer_losses"].append(outer_loss.item())
            results["accuracies_after"].append(compute_accuracy(test_logits, test_targets[task_id]))
            mean_outer_loss += outer_loss
        mean_outer_loss.div_(num_tasks)
        return mean_outer_loss, results

    def train_iter(self, dataloader, max_batches=500):
        num_batches = 0
        self.model.train()
        while num_batches < max_batches:
            for batch in dataloader:
                if num_batches >= max_batches:
                    break
                self.optimizer.zero_grad()
                outer_loss, results = self.get_outer_loss(batch)
                results["mean_outer_loss"] = outer_loss.item()
                outer_loss.backward()
                self.optimizer.step()
                num_batches += 1
                yield results
