# Source: https://github.com/LeTien12/SentimentAnalysis/blob/main/src/engineer/student/update_model_student.py
# Shape: The DistillationTrainer subclass keeps per-step loss components and the student's entropy for its own log() override through store_metrics(), which appends the attached tensors to self._stored_metrics; they are only flushed every logging_steps, so every step's graph (the entropy branch keeps softmax/log-softmax of the student logits) stays alive until then.
# Verdict: leak
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


# --------------------------------------------------------------------------------------
# minimal stand-ins for transformers.TrainingArguments / Trainer / TrainerCallback
# --------------------------------------------------------------------------------------
@dataclass
class TrainingArguments:
    output_dir: str = "student"
    learning_rate: float = 5e-4
    per_device_train_batch_size: int = 16
    max_steps: int = 100
    logging_steps: int = 500
    gradient_accumulation_steps: int = 1
    max_grad_norm: float = 1.0
    seed: int = 42


@dataclass
class TrainerState:
    global_step: int = 0
    epoch: float = 0.0
    log_history: List[Dict[str, float]] = field(default_factory=list)


@dataclass
class TrainerControl:
    should_log: bool = False
    should_training_stop: bool = False


class TrainerCallback:
    def on_step_end(self, args, state, control, **kwargs):
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        return control


class DefaultFlowCallback(TrainerCallback):
    def on_step_end(self, args, state, control, **kwargs):
        if args.logging_steps > 0 and state.global_step % args.logging_steps == 0:
            control.should_log = True
        if state.global_step >= args.max_steps:
            control.should_training_stop = True
        return control


class ModelOutput(dict):
    def __getattr__(self, key):
        return self[key]


class Trainer:
    def __init__(self, model, args, train_dataset, callbacks=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.state = TrainerState()
        self.control = TrainerControl()
        self.callbacks = [DefaultFlowCallback()] + list(callbacks or [])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=args.learning_rate)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        loss = outputs["loss"]
        return (loss, outputs) if return_outputs else loss

    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
        loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss.detach()

    def log(self, logs: Dict[str, float]) -> None:
        logs["epoch"] = self.state.epoch
        self.state.log_history.append({**logs, "step": self.state.global_step})
        for cb in self.callbacks:
            self.control = cb.on_log(self.args, self.state, self.control, logs=logs)

    def train(self):
        args = self.args
        tr_loss = torch.tensor(0.0)
        logged_loss = 0.0
        for step, inputs in enumerate(self.train_dataset):
            tr_loss_step = self.training_step(self.model, inputs)
            tr_loss += tr_loss_step
            if (step + 1) % args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.max_grad_norm)
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.state.global_step += 1
                self.state.epoch = (step + 1) / len(self.train_dataset)
                for cb in self.callbacks:
                    self.control = cb.on_step_end(args, self.state, self.control, model=self.model)
                if self.control.should_log:
                    tr_loss_scalar = tr_loss.item()
                    self.log({"loss": (tr_loss_scalar - logged_loss) / args.logging_steps})
                    logged_loss = tr_loss_scalar
                    self.control.should_log = False
                if self.control.should_training_stop:
                    break
        return tr_loss.item() / max(self.state.global_step, 1)


# --------------------------------------------------------------------------------------
# student / teacher classifiers (stand-ins for AutoModelForSequenceClassification)
# --------------------------------------------------------------------------------------
class BagOfWordsClassifier(nn.Module):
    def __init__(self, vocab_size=2000, dim=64, hidden=128, num_labels=3, layers=1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        blocks = []
        for i in range(layers):
            blocks += [nn.Linear(dim if i == 0 else hidden, hidden), nn.GELU()]
        self.encoder = nn.Sequential(*blocks)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        logits = self.classifier(self.encoder(pooled))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return ModelOutput(loss=loss, logits=logits)


class DistillationTrainingArguments(TrainingArguments):
    def __init__(self, *args, alpha=0.5, temperature=2.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.alpha = alpha
        self.temperature = temperature


class DistillationTrainer(Trainer):
    def __init__(self, *args, teacher_model=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.teacher_model = teacher_model
        self.teacher_model.eval()
        self._stored_metrics = defaultdict(lambda: defaultdict(list))

    def store_metrics(self, metrics: Dict[str, torch.Tensor], train_eval: str = "train") -> None:
        for key, value in metrics.items():
            self._stored_metrics[train_eval][key].append(value)  # TLK102

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs_stu = model(**inputs)
        # Extract cross-entropy loss and logits from student
        loss_ce = outputs_stu.loss
        logits_stu = outputs_stu.logits
        # Extract logits from teacher
        with torch.no_grad():
            outputs_tea = self.teacher_model(**inputs)
            logits_tea = outputs_tea.logits
        # Soften probabilities and compute distillation loss
        loss_fct = torch.nn.KLDivLoss(reduction="batchmean")
        loss_kd = self.args.temperature ** 2 * loss_fct(
            F.log_softmax(logits_stu / self.args.temperature, dim=-1),
            F.softmax(logits_tea / self.args.temperature, dim=-1))
        # Return weighted student loss
        loss = self.args.alpha * loss_ce + (1. - self.args.alpha) * loss_kd

        probs = F.softmax(logits_stu, dim=-1)
        entropy = -(probs * F.log_softmax(logits_stu, dim=-1)).sum(-1).mean()
        self.store_metrics({"loss_ce": loss_ce, "loss_kd": loss_kd, "student_entropy": entropy})
        return (loss, outputs_stu) if return_outputs else loss

    def log(self, logs: Dict[str, float]) -> None:
        train_eval = "train" if "loss" in logs else "eval"
        for key, metrics in self._stored_metrics[train_eval].items():
            logs[key] = torch.stack([torch.as_tensor(m) for m in metrics]).mean().item()
        del self._stored_metrics[train_eval]
        return super().log(logs)


class StepTimerCallback(TrainerCallback):
    def __init__(self):
        self.history = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        self.history.append(dict(logs))
        return control


class SentimentBatches:
    """Stand-in for the tokenized, collated train dataloader (yields batches lazily)."""

    def __init__(self, num_batches, batch_size=16, seq_len=32, vocab_size=2000, num_labels=3, seed=42):
        self.num_batches = num_batches
        self.batch_size = batch_size
        self.seq_len = seq_len
        self.vocab_size = vocab_size
        self.num_labels = num_labels
        self.seed = seed

    def __len__(self):
        return self.num_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        span = self.vocab_size // self.num_labels
        for _ in range(self.num_batches):
            labels = torch.randint(0, self.num_labels, (self.batch_size,), generator=g)
            # label-dependent token ranges so the task is learnable
            input_ids = (labels[:, None] * span
                         + torch.randint(0, span, (self.batch_size, self.seq_len), generator=g)) % self.vocab_size
            lengths = torch.randint(self.seq_len // 2, self.seq_len + 1, (self.batch_size,), generator=g)
            attention_mask = (torch.arange(self.seq_len)[None, :] < lengths[:, None]).long()
            yield {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


def make_batches(num_batches, **kwargs):
    return SentimentBatches(num_batches, **kwargs)


def run(steps):
    torch.manual_seed(42)
    teacher = BagOfWordsClassifier(dim=128, hidden=256, layers=3)
    student = BagOfWordsClassifier(dim=64, hidden=128, layers=1)
    args = DistillationTrainingArguments(max_steps=steps, logging_steps=500, alpha=0.5, temperature=2.0)
    timer = StepTimerCallback()
    trainer = DistillationTrainer(model=student, args=args, train_dataset=make_batches(steps),
                                  teacher_model=teacher, callbacks=[timer])
    trainer.train()
    return trainer


if __name__ == "__main__":
    run(10)
