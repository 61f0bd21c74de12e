# Source: https://github.com/lightly-ai/lightly/pull/2062
# Shape: a DINO loss keeps a center of the teacher outputs as a momentum (EMA) buffer, updated in forward from the teacher output and used in the next step's loss; the teacher is a deepcopy of the student whose parameters still require grad and update_center is not under no_grad, so the center chains every step's teacher graph.
# Verdict: leak
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class DINOLoss(nn.Module):
    def __init__(self, out_dim, teacher_temp=0.04, student_temp=0.1, center_momentum=0.9):
        super().__init__()
        self.teacher_temp = teacher_temp
        self.student_temp = student_temp
        self.center_momentum = center_momentum
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_output, teacher_output):
        student_logp = F.log_softmax(student_output / self.student_temp, dim=-1)
        teacher_probs = F.softmax((teacher_output - self.center) / self.teacher_temp, dim=-1).detach()
        loss = torch.sum(-teacher_probs * student_logp, dim=-1).mean()
        self.update_center(teacher_output)
        return loss

    def update_center(self, teacher_output):
        batch_center = torch.sum(teacher_output, dim=0, keepdim=True) / len(teacher_output)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)  # TLK103


def build(student, out_dim):
    teacher = copy.deepcopy(student)
    teacher.eval()
    return teacher, DINOLoss(out_dim)


def train_one_epoch(student, teacher, dino_loss, loader, optimizer, momentum_teacher=0.996):
    for it, (view_a, view_b) in enumerate(loader):
        teacher_output = teacher(view_a)
        student_output = student(view_b)
        loss = dino_loss(student_output, teacher_output)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for param_q, param_k in zip(student.parameters(), teacher.parameters()):
                param_k.data.mul_(momentum_teacher).add_((1 - momentum_teacher) * param_q.detach().data)
