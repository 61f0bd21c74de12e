# Second-order MAML over a batch of tasks: clean.
import torch
from torch.func import functional_call

for iteration in range(num_iterations):
    meta_optimizer.zero_grad()
    meta_loss = 0.0
    for task in sample_tasks(meta_batch_size):
        params = dict(model.named_parameters())
        support_loss = loss_fn(functional_call(model, params, (task.support_x,)), task.support_y)
        grads = torch.autograd.grad(support_loss, params.values(), create_graph=True)
        adapted = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
        query_loss = loss_fn(functional_call(model, adapted, (task.query_x,)), task.query_y)
        meta_loss = meta_loss + query_loss
    meta_loss.backward()
    meta_optimizer.step()
