# Source: https://github.com/pytorch/pytorch/pull/41203
# Shape: a mixed-precision fine-tuning loop copied retain_graph=True from the two-model AMP example, believing GradScaler needs it; there is one model, one loss and one backward per step, so the retained graph (the whole forward's saved activations) stays alive until the next step's forward has rebuilt its own.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, d_in=32, n_classes=8, width=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, width), nn.GELU(), nn.Linear(width, width), nn.GELU())
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def finetune(net, loader, device="cpu", use_amp=True, epochs=1, grad_clip=1.0):
    optimizer = torch.optim.AdamW(net.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler(device, enabled=use_amp)
    running = []
    for epoch in range(epochs):
        for inputs, labels in loader:
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_amp):
                logits = net(inputs)
                objective = F.cross_entropy(logits, labels)
            scaler.scale(objective).backward(retain_graph=True)  # TLK201
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(net.parameters(), grad_clip)
            scaler.step(optimizer)
            scaler.update()
            running.append(objective.item())
    return running
