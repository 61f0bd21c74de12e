# Source: https://github.com/VinAIResearch/LFM/issues/9
# Shape: fixed twin: the gathered loss is detached and turned into a float before it is added to the running sum.
# Verdict: clean
import contextlib
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Accelerator:
    """Single-process stand-in for accelerate.Accelerator (DistributedType.NO)."""

    def __init__(self, gradient_accumulation_steps=1, mixed_precision="no"):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.mixed_precision = mixed_precision
        self.num_processes = 1
        self.step = 0
        self.sync_gradients = True

    def prepare(self, *objs):
        return objs

    @contextlib.contextmanager
    def accumulate(self, model):
        self.step += 1
        self.sync_gradients = self.step % self.gradient_accumulation_steps == 0
        yield

    def autocast(self):
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.mixed_precision == "bf16")

    def backward(self, loss, **kwargs):
        (loss / self.gradient_accumulation_steps).backward(**kwargs)

    def clip_grad_norm_(self, parameters, max_norm):
        if self.sync_gradients:
            return torch.nn.utils.clip_grad_norm_(parameters, max_norm)

    def gather(self, tensor):
        # accelerate.utils.gather: with a single process the tensor is returned as is
        if self.num_processes == 1:
            return tensor
        raise NotImplementedError


class TextEncoder(nn.Module):
    def __init__(self, vocab=128, dim=32, embed_dim=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, embed_dim))

    def forward(self, ids):
        return self.mlp(self.tok(ids).mean(1))


class ImageEncoder(nn.Module):
    def __init__(self, in_dim=192, dim=64, embed_dim=32):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, dim), nn.GELU(), nn.Linear(dim, embed_dim))

    def forward(self, pixels):
        return self.mlp(pixels)


class CLIPModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = ImageEncoder()
        self.text = TextEncoder()
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, pixel_values, input_ids):
        image_embeds = F.normalize(self.visual(pixel_values), dim=-1)
        text_embeds = F.normalize(self.text(input_ids), dim=-1)
        logits_per_image = self.logit_scale.exp() * image_embeds @ text_embeds.t()
        return logits_per_image


def clip_loss(logits_per_image):
    labels = torch.arange(logits_per_image.size(0))
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.t(), labels)) / 2


def update_epoch_logs(epoch_logs, accelerator, loss, logits_per_image):
    bs = logits_per_image.size(0)
    labels = torch.arange(bs)
    epoch_logs["loss_sum"] = epoch_logs.get("loss_sum", 0.0) + accelerator.gather(loss.detach()).item() * bs
    epoch_logs["correct"] = epoch_logs.get("correct", 0) + (logits_per_image.argmax(-1) == labels).sum().item()
    epoch_logs["seen"] = epoch_logs.get("seen", 0) + bs
    return epoch_logs


def train_one_epoch(accelerator, model, loader, optimizer, lr_scheduler):
    model.train()
    epoch_logs = {}
    for batch in loader:
        with accelerator.accumulate(model):
            with accelerator.autocast():
                logits_per_image = model(batch["pixel_values"], batch["input_ids"])
                loss = clip_loss(logits_per_image)
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            if accelerator.sync_gradients:
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
                with torch.no_grad():
                    model.logit_scale.clamp_(0, math.log(100))
        update_epoch_logs(epoch_logs, accelerator, loss, logits_per_image)
    return epoch_logs


def summarize(epoch_logs):
    return {"loss": float(epoch_logs["loss_sum"] / epoch_logs["seen"]),
            "acc": epoch_logs["correct"] / epoch_logs["seen"]}


def make_batches(n):
    return list(range(n))


def loader(seeds, bs=16):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield {"pixel_values": torch.randn(bs, 192, generator=g), "input_ids": torch.randint(0, 128, (bs, 12), generator=g)}


def run(batches):
    torch.manual_seed(0)
    accelerator = Accelerator(gradient_accumulation_steps=2)
    model = CLIPModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.1)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 10))
    model, optimizer, lr_scheduler = accelerator.prepare(model, optimizer, lr_scheduler)
    epoch_logs = train_one_epoch(accelerator, model, loader(batches), optimizer, lr_scheduler)
    return summarize(epoch_logs)


if __name__ == "__main__":
    print(run(make_batches(4)))
