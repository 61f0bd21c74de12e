# Source: https://github.com/mlfoundations/open_clip/issues/761
# Shape: losses from several accumulation chunks are appended to a list, stacked, averaged and backwarded together once the list is full, then the list is rebound to a new empty one.
# Verdict: clean
import torch


def train_one_epoch(model, loss_fn, loader, optimizer, scaler, accum_freq=4):
    model.train()
    pending = []
    for i, (images, texts) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            image_features, text_features, logit_scale = model(images.cuda(), texts.cuda())
            pending.append(loss_fn(image_features, text_features, logit_scale))
        if len(pending) == accum_freq:
            total_loss = torch.stack(pending).mean()
            optimizer.zero_grad()
            scaler.scale(total_loss).backward()
            scaler.step(optimizer)
            scaler.update()
            pending = []
            if i % 100 == 0:
                print(i, total_loss.item())
