# Source: https://github.com/pytorch/pytorch/issues/13613
# Shape: the same bulk inference wrapped in torch.no_grad(): the appended outputs carry no graph; the .cpu() copy keeps GPU memory flat too.
# Verdict: clean
import torch
import torch.nn as nn

classifier = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(32, 100),
)


def predict_all(dataloader, device="cuda"):
    classifier.to(device).eval()
    result = []
    with torch.no_grad():
        for batch in dataloader:
            scores = classifier(batch.to(device))
            result.append(scores.cpu())
    return torch.cat(result).softmax(dim=1)
