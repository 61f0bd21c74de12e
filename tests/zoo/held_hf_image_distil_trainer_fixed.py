# Source: https://github.com/huggingface/transformers/pull/25182
# Shape: fixed twin: both component losses are buffered for log() as Python floats (.item()), so no graph waits for the next logging step.
# Verdict: clean
from collections import defaultdict
from dataclasses import dataclass
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainingArguments:
    output_dir: str = "distil-out"
    learning_rate: float = 5e-4
    logging_steps: int = 500
    gradient_accumulation_steps: int = 1
    max_grad_norm: float = 1.0


class Trainer:
    """Minimal single-process stand-in for transformers.Trainer's inner loop."""

    def __init__(self, model, args, train_dataset=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.state = SimpleNamespace(global_step=0, log_history=[])

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        return (outputs.loss, outputs) if return_outputs else outputs.loss

    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
        loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss.detach()

    def log(self, logs, start_time=None):
        logs["step"] = self.state.global_step
        self.state.log_history.append(logs)

    def train(self):
        tr_loss = torch.tensor(0.0)
        for step, inputs in enumerate(self.train_dataset):
            tr_loss_step = self.training_step(self.model, inputs)
            tr_loss = tr_loss + tr_loss_step
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.state.global_step += 1
            if self.state.global_step % self.args.logging_steps == 0:
                self.log({"loss": round(tr_loss.item() / self.args.logging_steps, 4)})
                tr_loss = torch.tensor(0.0)
        return SimpleNamespace(global_step=self.state.global_step, training_loss=tr_loss.item())


class TinyViTForImageClassification(nn.Module):
    def __init__(self, patch_dim=48, hidden=64, num_labels=10, depth=2):
        super().__init__()
        self.embed = nn.Linear(patch_dim, hidden)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(hidden, 4, hidden * 2, dropout=0.0, batch_first=True)
                                     for _ in range(depth)])
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, pixel_values, labels=None):
        h = self.embed(pixel_values)
        for blk in self.blocks:
            h = blk(h)
        logits = self.classifier(h.mean(1))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return SimpleNamespace(loss=loss, logits=logits)


class ImageDistilTrainer(Trainer):
    def __init__(self, teacher_model=None, student_model=None, temperature=5.0, lambda_param=0.5, *args, **kwargs):
        super().__init__(model=student_model, *args, **kwargs)
        self.teacher = teacher_model
        self.student = student_model
        self.loss_function = nn.KLDivLoss(reduction="batchmean")
        self.teacher.eval()
        self.temperature = temperature
        self.lambda_param = lambda_param
        self._component_losses = defaultdict(list)

    def compute_loss(self, student, inputs, return_outputs=False, num_items_in_batch=None):
        student_output = self.student(**inputs)
        with torch.no_grad():
            teacher_output = self.teacher(**inputs)

        soft_teacher = F.softmax(teacher_output.logits / self.temperature, dim=-1)
        soft_student = F.log_softmax(student_output.logits / self.temperature, dim=-1)
        distillation_loss = self.loss_function(soft_student, soft_teacher) * (self.temperature ** 2)
        student_target_loss = student_output.loss
        loss = (1. - self.lambda_param) * student_target_loss + self.lambda_param * distillation_loss

        self._component_losses["distillation_loss"].append(distillation_loss.item())
        self._component_losses["student_loss"].append(student_target_loss.item())
        return (loss, student_output) if return_outputs else loss

    def log(self, logs, start_time=None):
        for key, values in self._component_losses.items():
            if values:
                logs[key] = round(float(sum(values) / len(values)), 4)
        self._component_losses.clear()
        super().log(logs, start_time)


def make_batches(n):
    return list(range(n))


def image_dataset(seeds, num_patches=16, patch_dim=48):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield {"pixel_values": torch.randn(8, num_patches, patch_dim, generator=g),
               "labels": torch.randint(0, 10, (8,), generator=g)}


def run(batches):
    torch.manual_seed(0)
    teacher = TinyViTForImageClassification(hidden=64, depth=3)
    student = TinyViTForImageClassification(hidden=32, depth=2)
    args = TrainingArguments(logging_steps=500)
    trainer = ImageDistilTrainer(teacher_model=teacher, student_model=student, args=args,
                                 train_dataset=image_dataset(batches))
    return trainer.train()


if __name__ == "__main__":
    print(run(make_batches(4)))
