# Source: https://github.com/huggingface/transformers/pull/45558
# Shape: the same Trainer subclass, but compute_loss adds ce_loss.detach() and kl_loss.detach() to the running sums it keeps on self for log(), as the Trainer does for its own tr_loss; the sums hold no graph between logging steps.
# Verdict: clean
from collections import defaultdict

import torch
import torch.nn.functional as F
from transformers import Trainer


class DistillTrainer(Trainer):
    def __init__(self, *args, teacher=None, kl_weight=0.5, temperature=2.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.teacher = teacher.eval()
        self.kl_weight = kl_weight
        self.temperature = temperature
        self._aux_totals = defaultdict(float)
        self._aux_steps = 0

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        ce_loss = outputs.loss
        with torch.no_grad():
            teacher_logits = self.teacher(**inputs).logits
        t = self.temperature
        kl_loss = F.kl_div(F.log_softmax(outputs.logits / t, dim=-1), F.softmax(teacher_logits / t, dim=-1),
                           reduction="batchmean") * t * t
        loss = (1 - self.kl_weight) * ce_loss + self.kl_weight * kl_loss
        if model.training:
            self._aux_totals["ce_loss"] += ce_loss.detach()
            self._aux_totals["kl_loss"] += kl_loss.detach()
            self._aux_steps += 1
        return (loss, outputs) if return_outputs else loss

    def log(self, logs, *args, **kwargs):
        if self._aux_steps:
            for key, total in self._aux_totals.items():
                logs[key] = round(float(total) / self._aux_steps, 4)
            self._aux_totals.clear()
            self._aux_steps = 0
        super().log(logs, *args, **kwargs)
