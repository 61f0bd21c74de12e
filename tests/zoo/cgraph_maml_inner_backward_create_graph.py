# Source: https://discuss.pytorch.org/t/double-backward-with-checkpointed-model-and-learnable-inner-loop-learning-rates/108137
# Shape: The inner loop adapts a freshly initialised per-task head with loss.backward(create_graph=True) and reads param.grad to build fast weights; the head's .grad keeps a graph that points back at the head (param -> grad -> graph -> param), nobody resets those grads to None, so every task's head and its second-order graph stay alive after the task is over.
# Verdict: leak
from collections import defaultdict
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


class Args:
    n_way = 5
    k_shot = 4
    k_query = 6
    in_dim = 24
    feat_dim = 32
    tasks_per_batch = 2
    meta_lr = 1e-3
    init_inner_lr = 0.4
    mml_first_order = False


def make_batches(n_batches=4, args=Args, seed=0):
    """Synthetic few-shot episodes: each batch is a list of (xs, ys, xq, yq) tasks."""
    g = torch.Generator().manual_seed(seed)
    prototypes = torch.randn(20, args.in_dim, generator=g)
    batches = []
    for _ in range(n_batches):
        tasks = []
        for _ in range(args.tasks_per_batch):
            classes = torch.randperm(20, generator=g)[: args.n_way]
            ys = torch.arange(args.n_way).repeat_interleave(args.k_shot)
            yq = torch.arange(args.n_way).repeat_interleave(args.k_query)
            xs = prototypes[classes][ys] + 0.3 * torch.randn(len(ys), args.in_dim, generator=g)
            xq = prototypes[classes][yq] + 0.3 * torch.randn(len(yq), args.in_dim, generator=g)
            tasks.append((xs, ys, xq, yq))
        batches.append(tasks)
    return batches


class Backbone(nn.Module):
    def __init__(self, in_dim, feat_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, feat_dim), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class MetaModel(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.backbone = Backbone(args.in_dim, args.feat_dim)
        # learnable per-parameter inner-loop learning rates (weight, bias)
        init = torch.log(torch.expm1(torch.tensor(args.init_inner_lr)))
        self.inner_lrs = nn.ParameterList([nn.Parameter(init.clone()) for _ in range(2)])
        self.mml_first_order = args.mml_first_order
        self.mml_eval = False

    def new_head(self):
        head = nn.Linear(self.args.feat_dim, self.args.n_way)
        nn.init.zeros_(head.weight)
        nn.init.zeros_(head.bias)
        return head


def mml_inner(model: MetaModel, head: nn.Linear, loss: torch.Tensor,
              inner_lrs: List[nn.Parameter]):
    # Create graph for double backward in outer loop
    params = list(head.parameters())
    loss.backward(create_graph=not (model.mml_first_order or model.mml_eval), inputs=params)  # TLK302
    fast = {}
    for (name, param), lr in zip(head.named_parameters(), inner_lrs):
        update = F.softplus(lr) * param.grad
        fast[name] = param - update
    return fast


def task_loss(model, tasks):
    meta_loss = 0.0
    accs = []
    for xs, ys, xq, yq in tasks:
        head = model.new_head()
        support_logits = head(model.backbone(xs))
        support_loss = F.cross_entropy(support_logits, ys)
        fast = mml_inner(model, head, support_loss, list(model.inner_lrs))
        query_logits = F.linear(model.backbone(xq), fast["weight"], fast["bias"])
        meta_loss = meta_loss + F.cross_entropy(query_logits, yq)
        accs.append((query_logits.argmax(1) == yq).float().mean().item())
    return meta_loss / len(tasks), sum(accs) / len(accs)


def meta_train_step(model, meta_opt, tasks):
    model.train()
    meta_opt.zero_grad()
    meta_loss, acc = task_loss(model, tasks)
    meta_loss.backward()
    meta_opt.step()
    return {"meta_loss": meta_loss.item(), "query_acc": acc}


def evaluate(model, batches):
    # adaptation still needs gradients, but no meta update is taken
    model.eval()
    losses, accs = [], []
    for tasks in batches:
        loss, acc = task_loss(model, tasks)
        losses.append(loss.item())
        accs.append(acc)
    model.train()
    return {"val_loss": sum(losses) / len(losses), "val_acc": sum(accs) / len(accs)}


def run(steps):
    torch.manual_seed(0)
    args = Args()
    train_batches = make_batches(4, args, seed=0)
    val_batches = make_batches(1, args, seed=1)
    model = MetaModel(args)
    meta_opt = torch.optim.Adam(model.parameters(), lr=args.meta_lr)
    log = defaultdict(list)
    for step in range(steps):
        stats = meta_train_step(model, meta_opt, train_batches[step % len(train_batches)])
        for k, v in stats.items():
            log[k].append(v)
        log["inner_lr"].append([F.softplus(lr).item() for lr in model.inner_lrs])
        if (step + 1) % 5 == 0:
            val = evaluate(model, val_batches)
            log["val_acc"].append(val["val_acc"])
    return {"model": model, "log": dict(log)}


if __name__ == "__main__":
    run(10)
