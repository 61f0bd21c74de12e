# Source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/2220
# Shape: patch attack whose step backwards two objectives computed from the same logits, one after the other, to log the patch-gradient norm of the first: the first backward needs retain_graph=True because the second goes through the same graph, and the second frees it.
# Verdict: clean
import torch
import torch.nn.functional as F


class TwoObjectivePatchAttack:
    def __init__(self, victim, patch_size=16, lr=0.05, margin_weight=0.5, steps=200):
        self.victim = victim
        self.patch = torch.rand(3, patch_size, patch_size, requires_grad=True)
        self.opt = torch.optim.Adam([self.patch], lr=lr)
        self.margin_weight = margin_weight
        self.steps = steps
        self.grad_log = []

    def paste(self, frames):
        out = frames.clone()
        size = self.patch.shape[-1]
        out[:, :, :size, :size] = self.patch
        return out

    def step(self, frames, target_cls):
        self.opt.zero_grad()
        logits = self.victim(self.paste(frames))
        targets = torch.full((frames.size(0),), target_cls, dtype=torch.long)
        ce = F.cross_entropy(logits, targets)
        ce.backward(retain_graph=True)
        ce_grad_norm = self.patch.grad.norm().item()
        others = logits.clone()
        others[:, target_cls] = float("-inf")
        margin = (others.max(dim=1).values - logits[:, target_cls]).clamp(min=0).mean()
        (self.margin_weight * margin).backward()
        self.opt.step()
        with torch.no_grad():
            self.patch.clamp_(0, 1)
        self.grad_log.append(ce_grad_norm)
        return ce.item(), margin.item()

    def run(self, frame_loader, target_cls):
        for _ in range(self.steps):
            for frames in frame_loader:
                self.step(frames, target_cls)
        return self.patch.detach()
