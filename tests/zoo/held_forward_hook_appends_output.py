# Source: https://github.com/meta-pytorch/opacus/issues/176
# Shape: a forward hook registered with register_forward_hook appends the layer's output to a list on every call; training keeps calling the model, the list is never cleared, so every batch's activation (and its graph) is kept.
# Verdict: leak
import torch
import torch.nn as nn
import torchvision


def attach_probe(model: nn.Module, layer_name: str):
    captured = []

    def hook(module, inputs, output):
        captured.append(output)  # TLK102

    handle = dict(model.named_modules())[layer_name].register_forward_hook(hook)
    return captured, handle


def train(loader, epochs=5):
    model = torchvision.models.resnet18(num_classes=10).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    layer4_outputs, handle = attach_probe(model, "layer4")
    for epoch in range(epochs):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(images.cuda()), labels.cuda())
            loss.backward()
            optimizer.step()
        print(epoch, len(layer4_outputs))
    handle.remove()
