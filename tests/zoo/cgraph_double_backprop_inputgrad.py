# Source: https://github.com/pytorch/pytorch/issues/3818
# Shape: the input-gradient (double backpropagation) penalty is taken from x.grad after ce.backward(create_graph=True); x.grad's graph points back at x, so each batch's input leaf, its gradient and both graphs form a reference cycle that is never freed.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class TrainConfig:
    in_dim = 32
    hidden = 64
    num_classes = 10
    lr = 0.05
    grad_penalty = 0.1      # lambda for ||d CE / d x||^2


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.in_dim, cfg.hidden), nn.Softplus(), nn.Linear(cfg.hidden, cfg.hidden),
                                 nn.Softplus(), nn.Linear(cfg.hidden, cfg.num_classes))

    def forward(self, x):
        return self.net(x)


class InputGradRegTrainer:
    """Drucker & LeCun style double backpropagation for adversarial robustness."""

    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
        self.history = {"ce": [], "gnorm": []}

    def train_step(self, x, y):
        x = x.clone().requires_grad_(True)
        self.optimizer.zero_grad(set_to_none=True)
        logits = self.model(x)
        ce = F.cross_entropy(logits, y)
        ce.backward(create_graph=True)  # TLK302
        grad_pen = x.grad.pow(2).sum(dim=1).mean()
        (self.cfg.grad_penalty * grad_pen).backward()
        self.optimizer.step()
        self.history["ce"].append(ce.item())
        self.history["gnorm"].append(grad_pen.item())
        return ce.item()


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 512, (32,)).tolist() for _ in range(n)]


def run(batches):
    torch.manual_seed(1)
    cfg = TrainConfig
    data = torch.randn(512, cfg.in_dim)
    labels = data[:, : cfg.num_classes].argmax(dim=1)
    trainer = InputGradRegTrainer(MLP(cfg), cfg)
    for idx in batches:
        trainer.train_step(data[idx], labels[idx])
    return trainer.history["ce"][-1]
