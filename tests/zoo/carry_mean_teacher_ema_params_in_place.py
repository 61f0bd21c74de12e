# Source: https://github.com/CuriousAI/mean-teacher/issues/28
# Shape: a mean-teacher trainer's update_ema_variables helper, rewritten without the deprecated .data, blends the student's parameters into the teacher's in place with mul_/add_ outside torch.no_grad(); every call adds the student's parameters to the teacher parameters' autograd history, which chains across all training steps.
# Verdict: leak
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def create_ema_model(model: nn.Module) -> nn.Module:
    ema_model = copy.deepcopy(model)
    for param in ema_model.parameters():
        param.requires_grad_(False)
    return ema_model


def update_ema_variables(model, ema_model, alpha, global_step):
    alpha = min(1 - 1 / (global_step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.mul_(alpha).add_(param, alpha=1 - alpha)  # TLK103


def sigmoid_rampup(current, rampup_length):
    if rampup_length == 0:
        return 1.0
    phase = 1.0 - max(0.0, min(current, rampup_length)) / rampup_length
    return float(math.exp(-5.0 * phase * phase))


def train(model, train_loader, optimizer, epochs, ema_decay=0.999, consistency=100.0, rampup=5):
    ema_model = create_ema_model(model)
    global_step = 0
    for epoch in range(epochs):
        model.train()
        ema_model.train()
        for (student_input, teacher_input), target in train_loader:
            logits = model(student_input)
            with torch.no_grad():
                ema_logits = ema_model(teacher_input)
            labeled = target >= 0
            class_loss = F.cross_entropy(logits[labeled], target[labeled]) if labeled.any() else logits.sum() * 0
            weight = consistency * sigmoid_rampup(epoch, rampup)
            consistency_loss = weight * F.mse_loss(F.softmax(logits, 1), F.softmax(ema_logits, 1))
            loss = class_loss + consistency_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            global_step += 1
            update_ema_variables(model, ema_model, ema_decay, global_step)
    return ema_model
