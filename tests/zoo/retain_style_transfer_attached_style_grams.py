# Source: https://github.com/limingcv/Photorealistic-Style-Transfer/issues/7
# Shape: a style-transfer loop optimises the target image against Gram matrices of the style image's VGG features; the Gram targets were computed once before the loop with autograd on (the VGG weights were never frozen), so the second backward hits the freed target graph, and retain_graph=True "fixes" it: every backward now keeps the whole iteration's graph (and the target's) alive, and the reporter's 12 GB GPU runs out of memory. Computing the targets under no_grad (or detaching them) removes the need to retain anything.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class VGGFeatures(nn.Module):
    def __init__(self, layers=((3, 64), (64, 128), (128, 256), (256, 512))):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)) for i, o in layers)

    def forward(self, x):
        feats = []
        for block in self.blocks:
            x = block(x)
            feats.append(x)
        return feats


def gram_matrix(t):
    b, c, h, w = t.size()
    f = t.view(b * c, h * w)
    return f @ f.t() / (c * h * w)


def stylize(vgg, content, style, steps=3000, style_weight=1e6, content_weight=1.0, lr=0.003):
    content_features = vgg(content)
    style_grams = [gram_matrix(f) for f in vgg(style)]
    target = content.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([target], lr=lr)
    for step in range(steps):
        target_features = vgg(target)
        content_loss = F.mse_loss(target_features[2], content_features[2])
        style_loss = 0
        for tf, sg in zip(target_features, style_grams):
            style_loss = style_loss + F.mse_loss(gram_matrix(tf), sg)
        total_loss = content_weight * content_loss + style_weight * style_loss
        optimizer.zero_grad()
        total_loss.backward(retain_graph=True)  # TLK201
        optimizer.step()
        if step % 500 == 0:
            print(step, total_loss.item())
    return target.detach()
