"""Training utilities: EMA of generator weights, grad toggles, a text logger."""
import torch


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def zero_grad(model):
    """Zero gradients in place, keeping the .grad buffers allocated between steps."""
    for p in model.parameters():
        if p.grad is not None:
            p.grad.data.zero_()


def accumulate(ema_model, model, decay=0.999):
    ema_params = dict(ema_model.named_parameters())
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, p in params.items():
            ema_params[name].mul_(decay).add_(p, alpha=1 - decay)  # CLEAN: in-place under torch.no_grad()


def sample_data(batch_size, size=8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    while True:
        yield torch.tanh(torch.randn(batch_size, 3, size, size, generator=gen))


class TrainLogger:
    """Collects per-step scalars; written out as text at the end of training."""

    def __init__(self, every=1):
        self.every = every
        self.records = []

    def log(self, step, **values):
        if step % self.every == 0:
            self.records.append(dict(step=step, **values))  # expect: TLK301 (train.py)

    def to_text(self):
        lines = []
        for rec in self.records:
            parts = [f"{k}={float(v):.4f}" for k, v in rec.items() if k != "step"]
            lines.append(f"{rec['step']:6d} " + " ".join(parts))
        return "\n".join(lines)
