# Source: https://github.com/PrimeIntellect-ai/prime-rl/pull/909
# Shape: micro-batch losses are detached before they are added to running_loss, so the logging accumulator is a plain tensor and each micro-step graph is freed by its own backward.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class _SingleRankProcessGroup:
    """Stand-in for torch.distributed in a world of one rank."""

    world_size = 1

    def all_reduce(self, tensor, op="sum"):
        # with one rank the reduced value is the local value (in place, like c10d)
        return tensor


dist = _SingleRankProcessGroup()


def reduce_tensor(tensor, world_size):
    rt = tensor.clone()
    dist.all_reduce(rt, op="sum")
    rt /= world_size
    return rt


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=32, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.mix = nn.Linear(2 * dim, dim)
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, input_ids):
        h = self.embed(input_ids)
        prev = F.pad(h, (0, 0, 1, 0))[:, :-1]  # token t sees t-1 (causal)
        h = torch.tanh(self.mix(torch.cat([h, prev], dim=-1)))
        return self.lm_head(h)


class Progress:
    def __init__(self):
        self.step = 0
        self.total_tokens = 0


class Monitor:
    def __init__(self):
        self.history = []

    def log(self, metrics):
        self.history.append(dict(metrics))


class SFTTrainer:
    def __init__(self, model, grad_accum_steps=2, log_interval=50, max_norm=1.0, lr=3e-3):
        self.model = model
        self.grad_accum_steps = grad_accum_steps
        self.log_interval = log_interval
        self.max_norm = max_norm
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: 1.0)
        self.progress = Progress()
        self.monitor = Monitor()
        self.running_loss = torch.zeros(())
        self.running_steps = 0

    def compute_loss(self, micro_batch):
        input_ids = micro_batch["input_ids"]
        target_ids = micro_batch["target_ids"]
        loss_mask = micro_batch["loss_mask"]
        logits = self.model(input_ids)
        B, L, V = logits.shape
        loss = F.cross_entropy(logits.view(-1, V), target_ids.view(-1), reduction="none").view(B, L)
        return loss[loss_mask].mean()

    def log_running_loss(self):
        reduced = reduce_tensor(self.running_loss, dist.world_size) / max(self.running_steps, 1)
        self.monitor.log({"loss/mean": reduced.item(), "step": self.progress.step})
        self.running_loss = torch.zeros(())
        self.running_steps = 0

    def train(self, batches, probe=None):
        dataiter = iter(batches)
        num_steps = len(batches) // self.grad_accum_steps
        first_loss = None
        for _ in range(num_steps):
            for micro_step in range(self.grad_accum_steps):
                micro_batch = next(dataiter)
                loss = self.compute_loss(micro_batch)
                if first_loss is None:
                    first_loss = loss.item()
                # Accumulate average loss over gradient accumulation steps
                self.running_loss += loss.detach() / self.grad_accum_steps
                (loss / self.grad_accum_steps).backward()
                if probe is not None:
                    probe(micro_step)
            grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=self.max_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.scheduler.step()
            self.progress.step += 1
            self.progress.total_tokens += int(micro_batch["loss_mask"].sum())
            self.running_steps += 1
            self.monitor.log({"optim/grad_norm": grad_norm.item(), "step": self.progress.step})
            if self.progress.step % self.log_interval == 0:
                self.log_running_loss()
        last_loss = loss.item()
        if self.running_steps:
            self.log_running_loss()
        return first_loss, last_loss


def make_batches(n):
    g = torch.Generator().manual_seed(1234)
    batches = []
    for _ in range(n):
        start = torch.randint(0, 32, (4, 1), generator=g)
        seq = (start + torch.arange(13)) % 32  # learnable "count up" language
        loss_mask = torch.ones(4, 12, dtype=torch.bool)
        loss_mask[:, :3] = False  # prompt tokens are not trained on
        batches.append({"input_ids": seq[:, :-1].contiguous(), "target_ids": seq[:, 1:].contiguous(),
                        "loss_mask": loss_mask})
    return batches


def run(batches, probe=None):
    torch.manual_seed(0)
    trainer = SFTTrainer(TinyCausalLM(), grad_accum_steps=2, log_interval=50)
    first_loss, last_loss = trainer.train(batches, probe=probe)
    losses = [m["loss/mean"] for m in trainer.monitor.history if "loss/mean" in m]
    return {"first_loss": first_loss, "last_loss": last_loss, "logged_mean": losses[-1],
            "steps": trainer.progress.step}


if __name__ == "__main__":
    print(run(make_batches(5)))
