# Source: https://github.com/GuoleiSun/MCIS_wsss/issues/11
# Shape: a logging window: each step's loss is backwarded, then the tensor is added to window_loss, which is only reset every 1000 iterations; up to 1000 graphs stay reachable between resets.
# Verdict: leak
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, max_iters, log_every=1000):
    window_loss = 0.0
    window_count = 0
    it = 0
    model.train()
    while it < max_iters:
        for images, labels in loader:
            images, labels = images.cuda(), labels.cuda()
            cams = model(images)
            loss_val = F.multilabel_soft_margin_loss(cams.mean(dim=(2, 3)), labels)
            optimizer.zero_grad()
            loss_val.backward()
            optimizer.step()
            window_loss += loss_val  # TLK101
            window_count += 1
            it += 1
            if it % log_every == 0:
                print(f"iter {it}: loss {window_loss.item() / window_count:.4f}")
                window_loss = 0.0
                window_count = 0
