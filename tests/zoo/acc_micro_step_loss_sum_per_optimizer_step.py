# Source: https://github.com/karpathy/nanoGPT/blob/e2221318e607eb5ee0669d6b7641af25a2111545/train.py
# Shape: a GPT trainer's train_step runs gradient_accumulation_steps micro-steps under autocast with a GradScaler, backwarding each scaled micro-loss, and sums the attached micro-losses into step_loss, which is created anew for every optimizer step and read with .item() at its end; it holds at most one optimizer step's micro-batch graphs, never more.
# Verdict: clean
import math

import torch
import torch.nn as nn


class GPTTrainer:
    def __init__(self, model: nn.Module, get_batch, gradient_accumulation_steps=8, learning_rate=6e-4,
                 warmup_iters=2000, lr_decay_iters=600000, min_lr=6e-5, grad_clip=1.0, device_type="cuda"):
        self.model = model
        self.get_batch = get_batch
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.learning_rate, self.warmup_iters = learning_rate, warmup_iters
        self.lr_decay_iters, self.min_lr = lr_decay_iters, min_lr
        self.grad_clip = grad_clip
        self.device_type = device_type
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=0.1)
        self.scaler = torch.cuda.amp.GradScaler(enabled=True)

    def get_lr(self, it):
        if it < self.warmup_iters:
            return self.learning_rate * (it + 1) / (self.warmup_iters + 1)
        if it > self.lr_decay_iters:
            return self.min_lr
        ratio = (it - self.warmup_iters) / (self.lr_decay_iters - self.warmup_iters)
        return self.min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (self.learning_rate - self.min_lr)

    def train_step(self, iter_num):
        for group in self.optimizer.param_groups:
            group["lr"] = self.get_lr(iter_num)
        step_loss = 0.0
        for micro_step in range(self.gradient_accumulation_steps):
            X, Y = self.get_batch("train")
            with torch.autocast(device_type=self.device_type, dtype=torch.bfloat16):
                logits, loss = self.model(X, Y)
                loss = loss / self.gradient_accumulation_steps
            self.scaler.scale(loss).backward()
            step_loss = step_loss + loss
        if self.grad_clip != 0.0:
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        return step_loss.item()

    def train(self, max_iters=600000, log_interval=10):
        losses = []
        for iter_num in range(max_iters):
            losses.append(self.train_step(iter_num))
            if iter_num % log_interval == 0:
                print(f"iter {iter_num}: loss {sum(losses[-log_interval:]) / len(losses[-log_interval:]):.4f}")
