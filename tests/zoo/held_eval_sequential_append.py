# Source: https://github.com/pytorch/pytorch/issues/13613
# Shape: bulk inference over an nn.Sequential without torch.no_grad(): every batch's output is appended to a list, keeping each batch's whole forward graph (saved activations included) until the end.
# Verdict: leak
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
    for batch in dataloader:
        batch = batch.to(device)
        scores = classifier(batch)
        result.append(scores)  # TLK102
    return torch.cat(result).softmax(dim=1)
