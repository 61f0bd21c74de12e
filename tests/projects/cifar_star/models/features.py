# Helpers that run a network on a batch, one with and one without a graph.
import torch


def embed(backbone, images):
    return backbone(images)


@torch.no_grad()
def embed_frozen(backbone, images):
    return backbone(images)
