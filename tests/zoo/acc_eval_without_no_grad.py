# Source: https://github.com/guopengf/FL-MRCM/issues/2
# Shape: a validation function runs the network without torch.no_grad() and sums the loss tensors; no backward ever frees the graphs, so every batch's activations stay alive until it returns.
# Verdict: leak
import torch
import torch.nn.functional as F


def evaluate(net, val_loader, device):
    net.eval()
    val_loss = 0.0
    psnr_sum = 0.0
    for undersampled, target, mean, std in val_loader:
        undersampled = undersampled.to(device)
        target = target.to(device)
        recon = net(undersampled)
        val_loss += F.l1_loss(recon, target)  # TLK101
        mse = F.mse_loss(recon * std + mean, target * std + mean).item()
        psnr_sum += 10 * torch.log10(torch.tensor(1.0 / max(mse, 1e-10))).item()
    return val_loss / len(val_loader), psnr_sum / len(val_loader)


def train(net, optimizer, train_loader, val_loader, device, epochs):
    for epoch in range(epochs):
        net.train()
        for undersampled, target, _, _ in train_loader:
            optimizer.zero_grad()
            loss = F.l1_loss(net(undersampled.to(device)), target.to(device))
            loss.backward()
            optimizer.step()
        val_loss, psnr = evaluate(net, val_loader, device)
        print(epoch, float(val_loss), psnr)
