# Source: https://github.com/huggingface/trl/pull/6633
# Shape: looks like a Trainer-subclass logging leak (compute_loss appends per-step entropy and KL tensors to self._metrics until log() runs), but the values are computed from detached tensors under torch.no_grad and converted with .item() before they are stored; the attached loss is only returned to training_step.
# Verdict: clean
from collections import defaultdict
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    """Minimal single-process stand-in for transformers.Trainer's inner loop."""

    def __init__(self, model, args, train_dataset):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.state = SimpleNamespace(global_step=0, log_history=[])

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss.backward()
        return loss.detach()

    def log(self, logs):
        logs["step"] = self.state.global_step
        self.state.log_history.append(logs)

    def train(self):
        tr_loss = torch.tensor(0.0)
        for inputs in self.train_dataset:
            tr_loss += self.training_step(self.model, inputs)
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.state.global_step += 1
            if self.state.global_step % self.args.logging_steps == 0:
                self.log({"loss": tr_loss.item() / self.args.logging_steps})
                tr_loss -= tr_loss
        return SimpleNamespace(global_step=self.state.global_step, training_loss=tr_loss.item())


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=96, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        h, _ = self.rnn(self.embed(input_ids))
        return SimpleNamespace(logits=self.lm_head(h))


class DistillationTrainer(Trainer):
    def __init__(self, model, teacher_model, args, train_dataset, beta=1.0, temperature=1.0):
        super().__init__(model, args, train_dataset)
        self.teacher_model = teacher_model.eval()
        self.beta = beta
        self.temperature = temperature
        self._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}

    def compute_loss(self, model, inputs, return_outputs=False):
        student_logits = model(inputs["input_ids"]).logits / self.temperature
        with torch.no_grad():
            teacher_logits = self.teacher_model(inputs["input_ids"]).logits / self.temperature
        student_logp = F.log_softmax(student_logits, dim=-1)
        teacher_logp = F.log_softmax(teacher_logits, dim=-1)
        # reverse KL (beta=1): KL(student || teacher)
        per_token = (student_logp.exp() * (student_logp - teacher_logp)).sum(-1)
        mask = inputs["attention_mask"].float()
        loss = (per_token * mask).sum() / mask.sum()

        with torch.no_grad():
            probs = student_logp.detach().exp()
            entropy = -(probs * student_logp.detach()).sum(-1)
            n_valid = mask.sum()
            self._metrics["train"]["entropy"].append(((entropy * mask).sum() / n_valid).item())
            self._metrics["train"]["kl"].append(loss.detach().item())
        return (loss, student_logits) if return_outputs else loss

    def log(self, logs):
        mode = "train"
        metrics = {key: sum(val) / len(val) for key, val in self._metrics[mode].items() if val}
        logs = {**logs, **metrics}
        super().log(logs)
        self._metrics[mode].clear()


def make_batches(n):
    return list(range(n))


def dataset(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        ids = torch.randint(0, 96, (8, 24), generator=g)
        mask = torch.ones(8, 24, dtype=torch.long)
        mask[:, 20:] = 0
        yield {"input_ids": ids, "attention_mask": mask}


def run(batches):
    torch.manual_seed(0)
    args = SimpleNamespace(learning_rate=1e-3, logging_steps=500)
    trainer = DistillationTrainer(TinyCausalLM(dim=32), TinyCausalLM(dim=64), args, dataset(batches))
    return trainer.train()


if __name__ == "__main__":
    print(run(make_batches(4)))
