# Source: https://github.com/facebookresearch/kill-the-bits/issues/35
# Shape: an activation watcher registers forward hooks on the layers to quantize and, while watching, stores each layer's input as input[0].data.cpu() in a dict of lists during fine-tuning; .data is a tensor without graph, so what it keeps holds no autograd graph.
# Verdict: clean
from collections import defaultdict

import torch


class ActivationWatcher:
    def __init__(self, model, layer_names):
        self.model = model
        self.modules_to_layers = {dict(model.named_modules())[name]: name for name in layer_names}
        self.activations = defaultdict(list)
        self.handles = []
        self._watch = True
        self._register_hooks()

    def _register_hooks(self):
        def fwd_hook(module, input, output):
            layer = self.modules_to_layers[module]
            if self._watch:
                self.activations[layer].append(input[0].data.cpu())

        for module in self.modules_to_layers:
            self.handles.append(module.register_forward_hook(fwd_hook))

    def stop(self):
        self._watch = False
        for handle in self.handles:
            handle.remove()


def collect_while_finetuning(model, loader, layer_names, criterion, optimizer, n_batches=100):
    watcher = ActivationWatcher(model, layer_names)
    model.train()
    for i, (images, targets) in enumerate(loader):
        loss = criterion(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i + 1 == n_batches:
            break
    watcher.stop()
    return {name: torch.cat(acts) for name, acts in watcher.activations.items()}
