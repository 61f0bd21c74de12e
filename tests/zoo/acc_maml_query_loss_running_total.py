# Source: https://github.com/facebookresearch/higher/issues/60
# Shape: functional MAML on Omniglot-style task batches: each task's query loss is backwarded on its own (gradients pile up in the meta-parameters), and a running total for the progress log adds the still-attached query loss across tasks and meta-iterations, keeping every task's second-order graph chained together.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


def adapt(learner, params, x_support, y_support, inner_steps, inner_lr):
    """A few SGD steps on the support set, differentiable w.r.t. the initial weights."""
    for _ in range(inner_steps):
        support_logits = functional_call(learner, params, (x_support,))
        support_loss = F.cross_entropy(support_logits, y_support)
        grads = torch.autograd.grad(support_loss, list(params.values()), create_graph=True)
        params = {name: w - inner_lr * g for (name, w), g in zip(params.items(), grads)}
    return params


def meta_train(learner: nn.Module, meta_opt, task_loader, inner_steps=5, inner_lr=0.1, log_every=20):
    learner.train()
    running_qry_loss = 0.0
    seen_tasks = 0
    for step, (x_spt, y_spt, x_qry, y_qry) in enumerate(task_loader):
        task_num = x_spt.size(0)
        meta_opt.zero_grad()
        qry_correct = 0
        for i in range(task_num):
            fast_weights = adapt(learner, dict(learner.named_parameters()), x_spt[i], y_spt[i], inner_steps, inner_lr)
            qry_logits = functional_call(learner, fast_weights, (x_qry[i],))
            qry_loss = F.cross_entropy(qry_logits, y_qry[i])
            (qry_loss / task_num).backward()
            running_qry_loss += qry_loss  # TLK101
            seen_tasks += 1
            qry_correct += (qry_logits.argmax(dim=1) == y_qry[i]).sum().item()
        meta_opt.step()
        if step % log_every == 0:
            acc = qry_correct / (task_num * x_qry.size(1))
            print(f"step {step}: mean query loss {float(running_qry_loss) / seen_tasks:.3f}, query acc {acc:.3f}")
