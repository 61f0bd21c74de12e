# Source: https://github.com/bayesiains/nflows/pull/11
# Shape: A DINO-style distillation trainer keeps a running centre on self and updates it every step from the student's attached output.
# Verdict: leak
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class DistillTrainer:
    def __init__(self, out_dim=16, center_momentum=0.9):
        self.student = nn.Sequential(nn.Linear(12, 48), nn.GELU(), nn.Linear(48, out_dim))
        self.teacher = copy.deepcopy(self.student)
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.opt = torch.optim.AdamW(self.student.parameters(), lr=5e-4)
        self.center = torch.zeros(out_dim)
        self.center_momentum = center_momentum
        self.t_temp, self.s_temp = 0.04, 0.1

    def teacher_targets(self, t_out):
        return F.softmax((t_out - self.center) / self.t_temp, dim=-1)

    def distill_loss(self, s_out, t_prob):
        return torch.sum(-t_prob * F.log_softmax(s_out / self.s_temp, dim=-1), dim=-1).mean()

    def train_one_epoch(self, loader, ema=0.996):
        log = []
        for view_a, view_b in loader:
            with torch.no_grad():
                t_out = self.teacher(view_b)
                t_prob = self.teacher_targets(t_out)
            s_out = self.student(view_a)
            obj = self.distill_loss(s_out, t_prob)
            self.opt.zero_grad()
            obj.backward()
            self.opt.step()
            with torch.no_grad():
                for ps, pt in zip(self.student.parameters(), self.teacher.parameters()):
                    pt.mul_(ema).add_((1 - ema) * ps.detach())
            self.center = self.center * self.center_momentum + s_out.mean(dim=0) * (1 - self.center_momentum)  # TLK103
            log.append(obj.item())
        return sum(log) / len(log)


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        x = torch.randn(8, 12, generator=g)
        out.append((x + 0.1 * torch.randn(8, 12, generator=g), x + 0.1 * torch.randn(8, 12, generator=g)))
    return out


def run(batches):
    torch.manual_seed(0)
    print(f"distill {DistillTrainer().train_one_epoch(batches):.4f}")


if __name__ == "__main__":
    run(make_batches())
