# Source: https://github.com/huggingface/transformers/issues/36012
# Shape: the fix accumulates ce_loss.item() into self._ce_loss_accum, so the logging accumulator holds a float instead of chaining every step's graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class TrainingArguments:
    learning_rate: float = 5e-4
    logging_steps: int = 500
    max_steps: int = -1


class TrainerCallback:
    def on_step_begin(self, args, state, control, **kwargs):
        pass

    def on_step_end(self, args, state, control, **kwargs):
        pass


class TrainerState:
    def __init__(self):
        self.global_step = 0
        self.log_history = []


class Trainer:
    """Cut-down transformers.Trainer: training_step -> compute_loss -> backward -> step."""

    def __init__(self, model, args, train_dataset, callbacks=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.callbacks = callbacks or []
        self.state = TrainerState()
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        return (outputs["loss"], outputs) if return_outputs else outputs["loss"]

    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
        loss.backward()
        return loss.detach()

    def log(self, logs):
        self.state.log_history.append(dict(logs, step=self.state.global_step))

    def train(self):
        tr_loss = 0.0
        for inputs in self.train_dataset:
            for cb in self.callbacks:
                cb.on_step_begin(self.args, self.state, None)
            tr_loss += self.training_step(self.model, dict(inputs)).item()
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            self.state.global_step += 1
            for cb in self.callbacks:
                cb.on_step_end(self.args, self.state, None, model=self.model)
            if self.state.global_step % self.args.logging_steps == 0:
                self.log({"loss": tr_loss / self.args.logging_steps})
                tr_loss = 0.0
        return tr_loss / max(self.state.global_step, 1)


class TinyMoECausalLM(nn.Module):
    def __init__(self, vocab_size=256, d_model=96, n_experts=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.router = nn.Linear(d_model, n_experts)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.SiLU(), nn.Linear(2 * d_model, d_model)) for _ in range(n_experts)]
        )
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, input_ids, attention_mask=None):
        h = self.embed(input_ids)
        router_probs = self.router(h).softmax(-1)
        expert_out = torch.stack([e(h) for e in self.experts], dim=-1)
        h = h + (expert_out * router_probs.unsqueeze(-2)).sum(-1)
        load = router_probs.mean(dim=(0, 1))
        router_aux_loss = (load * load).sum() * load.numel()
        return {"logits": self.lm_head(h), "router_aux_loss": router_aux_loss}


class MemoryStatsCallback(TrainerCallback):
    def __init__(self, step_log_interval=10):
        self.step_log_interval = step_log_interval
        self.records = []

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step % self.step_log_interval == 0:
            n_params = sum(p.numel() for p in kwargs["model"].parameters())
            self.records.append((state.global_step, n_params))


class AuxLossTrainer(Trainer):
    def __init__(self, *args, aux_loss_coef=0.01, **kwargs):
        super().__init__(*args, **kwargs)
        self.aux_loss_coef = aux_loss_coef
        self._ce_loss_accum = 0.0
        self._aux_loss_accum = 0.0

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs["logits"][:, :-1]
        ce_loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        aux_loss = outputs["router_aux_loss"]
        self._ce_loss_accum += ce_loss.item()
        self._aux_loss_accum += aux_loss.item()
        loss = ce_loss + self.aux_loss_coef * aux_loss
        return (loss, outputs) if return_outputs else loss

    def log(self, logs):
        steps = self.args.logging_steps
        logs["ce_loss"] = float(self._ce_loss_accum) / steps
        logs["aux_loss"] = self._aux_loss_accum / steps
        self._ce_loss_accum = 0.0
        self._aux_loss_accum = 0.0
        super().log(logs)


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        input_ids = torch.randint(0, 256, (8, 32), generator=g)
        batches.append({"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids), "labels": input_ids.clone()})
    return batches


def run(batches):
    torch.manual_seed(0)
    model = TinyMoECausalLM()
    args = TrainingArguments(logging_steps=500)
    trainer = AuxLossTrainer(model, args, train_dataset=batches, callbacks=[MemoryStatsCallback()])
    return trainer.train()


if __name__ == "__main__":
    print(run(make_batches(5)))
