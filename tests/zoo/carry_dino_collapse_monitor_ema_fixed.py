# Source: https://github.com/vturrisi/solo-learn/pull/59
# Shape: a DINO-style loss keeps an EMA of the student embedding std across steps, but folds in std.detach(), so the monitor carries no graph.
# Verdict: clean
"""DINO-like self-distillation: EMA teacher, no_grad center update, plus a collapse monitor."""
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

IN, HID, OUT, BATCH = 16, 32, 24, 8


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(IN, HID), nn.GELU(), nn.Linear(HID, OUT))

    def forward(self, x):
        return self.mlp(x)


class DINOLoss(nn.Module):
    def __init__(self, out_dim=OUT, student_temp=0.1, teacher_temp=0.04, center_momentum=0.9):
        super().__init__()
        self.student_temp, self.teacher_temp = student_temp, teacher_temp
        self.center_momentum = center_momentum
        self.register_buffer("center", torch.zeros(1, out_dim))
        self.std_ema = torch.zeros(())

    def forward(self, student_out, teacher_out):
        t = F.softmax((teacher_out - self.center) / self.teacher_temp, dim=-1)
        s = F.log_softmax(student_out / self.student_temp, dim=-1)
        loss = -(t * s).sum(-1).mean()
        self.update_center(teacher_out)
        self.track_collapse(student_out)
        return loss

    @torch.no_grad()
    def update_center(self, teacher_out):
        batch_center = teacher_out.mean(0, keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)

    def track_collapse(self, student_out):
        std = F.normalize(student_out, dim=-1).std(0).mean()
        self.std_ema = 0.99 * self.std_ema + 0.01 * std.detach()


def augment(x, g):
    return x + 0.1 * torch.randn(x.shape, generator=g)


def make_batches(n):
    g = torch.Generator().manual_seed(8)
    out = []
    for _ in range(n):
        x = torch.randn(BATCH, IN, generator=g)
        out.append((augment(x, g), augment(x, g)))
    return out


def run(batches):
    torch.manual_seed(0)
    student = Head()
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    criterion = DINOLoss()
    opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    momentum_teacher = 0.996
    for v1, v2 in batches:
        with torch.no_grad():
            t_out = teacher(v1)
        s_out = student(v2)
        loss = criterion(s_out, t_out)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            for ps_, pt in zip(student.parameters(), teacher.parameters()):
                pt.mul_(momentum_teacher).add_(ps_.detach(), alpha=1 - momentum_teacher)
    return float(criterion.std_ema)


if __name__ == "__main__":
    print(run(make_batches(20)))
