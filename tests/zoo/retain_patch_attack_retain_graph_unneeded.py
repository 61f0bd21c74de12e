# Source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/2220
# Shape: adversarial-patch attack class: each optimisation step pastes the patch into a batch of frames, backwards the attack loss with retain_graph=True and steps the patch optimizer; no second backward ever uses that graph, and the returned loss keeps it (saved activations of every frame) alive into the next step.
# Verdict: leak
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class AdversarialPatchPyTorch:
    def __init__(self, estimator, patch_shape=(3, 16, 16), learning_rate=5.0, max_iter=500, batch_size=16, targeted=True):
        self.estimator = estimator
        self.patch_shape = patch_shape
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.targeted = targeted
        self._patch = torch.rand(patch_shape).requires_grad_(True)
        self._optimizer = torch.optim.Adam([self._patch], lr=learning_rate)

    def _random_overlay(self, images):
        _, _, h, w = images.shape
        ph, pw = self.patch_shape[1:]
        top = torch.randint(0, h - ph + 1, (1,)).item()
        left = torch.randint(0, w - pw + 1, (1,)).item()
        padded = F.pad(self._patch, (left, w - pw - left, top, h - ph - top))
        mask = F.pad(torch.ones(self.patch_shape), (left, w - pw - left, top, h - ph - top))
        return images * (1 - mask) + padded * mask

    def _train_step(self, images, target):
        self._optimizer.zero_grad()
        patched = self._random_overlay(images)
        loss = F.cross_entropy(self.estimator(patched), target)
        if not self.targeted:
            loss = -loss
        loss.backward(retain_graph=True)  # TLK201
        self._optimizer.step()
        with torch.no_grad():
            self._patch.clamp_(0.0, 1.0)
        return loss

    def generate(self, x, y):
        loader = DataLoader(TensorDataset(x, y), batch_size=self.batch_size, shuffle=True, drop_last=False)
        for i_iter in range(self.max_iter):
            for images, target in loader:
                _ = self._train_step(images, target)
        return self._patch.detach().clone()
