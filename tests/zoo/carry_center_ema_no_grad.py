# Source: https://github.com/facebookresearch/dino/blob/cc72fe982d650ff28e974d0f5a7c974fecb56209/main_dino.py
# Shape: self-distillation loss keeps a running center of the teacher outputs on the module; the center is updated in a method decorated with torch.no_grad(), so it never joins a graph
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfDistillLoss(nn.Module):
    def __init__(self, out_dim, student_temp=0.1, teacher_temp=0.04, center_momentum=0.9):
        super().__init__()
        self.student_temp = student_temp
        self.teacher_temp = teacher_temp
        self.center_momentum = center_momentum
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_out, teacher_out):
        teacher_probs = F.softmax((teacher_out - self.center) / self.teacher_temp, dim=-1).detach()
        student_logp = F.log_softmax(student_out / self.student_temp, dim=-1)
        loss = torch.sum(-teacher_probs * student_logp, dim=-1).mean()
        self.refresh_center(teacher_out)
        return loss

    @torch.no_grad()
    def refresh_center(self, teacher_out):
        batch_center = teacher_out.mean(dim=0, keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)


criterion = SelfDistillLoss(out_dim=4096)
for images in loader:
    s_out = student(images)
    t_out = teacher(images)
    loss = criterion(s_out, t_out)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
