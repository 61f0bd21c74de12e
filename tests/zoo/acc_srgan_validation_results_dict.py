# Source: https://github.com/leftthomas/SRGAN/issues/43
# Shape: the per-epoch validation pass of a super-resolution GAN runs the generator without torch.no_grad() and sums the batch MSE and SSIM tensors into a valing_results dict ("mse", "ssims") that lives for the whole pass; every validation batch's generator graph stays reachable from the dict until the pass ends, and GPU memory climbs through validation. The fix was to wrap the whole validation loop in torch.no_grad().
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 60


class Generator(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.head = nn.Conv2d(3, 32, 5, padding=2)
        self.body = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1), nn.PReLU(), nn.Conv2d(32, 32, 3, padding=1))
        self.up = nn.Sequential(nn.Conv2d(32, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale))

    def forward(self, x):
        h = F.prelu(self.head(x), torch.tensor([0.25]))
        h = h + self.body(h)
        return (torch.tanh(self.up(h)) + 1) / 2


def gaussian_window(size=7, sigma=1.5, channels=3):
    coords = torch.arange(size, dtype=torch.float32) - size // 2
    g = torch.exp(-(coords ** 2) / (2 * sigma ** 2))
    g = (g / g.sum()).unsqueeze(1)
    window = (g @ g.t()).expand(channels, 1, size, size).contiguous()
    return window


def ssim(img1, img2, window=gaussian_window()):
    c = img1.size(1)
    mu1 = F.conv2d(img1, window, padding=3, groups=c)
    mu2 = F.conv2d(img2, window, padding=3, groups=c)
    sigma1 = F.conv2d(img1 * img1, window, padding=3, groups=c) - mu1.pow(2)
    sigma2 = F.conv2d(img2 * img2, window, padding=3, groups=c) - mu2.pow(2)
    sigma12 = F.conv2d(img1 * img2, window, padding=3, groups=c) - mu1 * mu2
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    ssim_map = ((2 * mu1 * mu2 + c1) * (2 * sigma12 + c2)) / ((mu1.pow(2) + mu2.pow(2) + c1) * (sigma1 + sigma2 + c2))
    return ssim_map.mean()


def val_loader(n):
    for _ in range(n):
        hr = torch.rand(2, 3, 32, 32)
        lr = F.interpolate(hr, scale_factor=0.5, mode="bicubic", align_corners=False)
        yield lr, hr


def validate(netG, loader, epoch):
    netG.eval()
    valing_results = {"mse": 0, "ssims": 0, "psnr": 0, "ssim": 0, "batch_sizes": 0}
    for lr, hr in loader:
        batch_size = lr.size(0)
        valing_results["batch_sizes"] += batch_size
        sr = netG(lr)
        batch_mse = ((sr - hr) ** 2).mean()
        valing_results["mse"] += batch_mse * batch_size  # TLK101
        batch_ssim = ssim(sr, hr)
        valing_results["ssims"] += batch_ssim * batch_size  # TLK101
        valing_results["psnr"] = 10 * torch.log10((hr.max() ** 2) / (valing_results["mse"] / valing_results["batch_sizes"]))
        valing_results["ssim"] = valing_results["ssims"] / valing_results["batch_sizes"]
    print(f"[epoch {epoch}] PSNR {float(valing_results['psnr']):.2f} dB SSIM {float(valing_results['ssim']):.4f}")
    return valing_results


netG = Generator()
results = validate(netG, val_loader(STEPS), epoch=1)
print(math.isfinite(float(results["psnr"])))
