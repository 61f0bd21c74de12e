# Source: https://github.com/cfinlay/tulip/blob/master/imagenet/train.py
# Shape: input-gradient regularization ("double backprop") calls loss.backward(create_graph=True) to get images.grad, penalizes its squared norm and steps; optimizer.zero_grad() resets the parameters' grads each batch, but images.grad (a graph-attached gradient on a leaf) is never reset, so each batch's image and double-backward graph form a reference cycle that is never freed.
# Verdict: leak
import torch
import torch.nn.functional as F


class InputGradRegTrainer:
    def __init__(self, model, optimizer, penalty=0.1):
        self.model = model
        self.optimizer = optimizer
        self.penalty = penalty

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for images, labels in loader:
            images = images.clone().requires_grad_(True)
            self.optimizer.zero_grad()
            logits = self.model(images)
            loss = F.cross_entropy(logits, labels)
            loss.backward(create_graph=True)  # TLK302
            grad_norm = images.grad.pow(2).flatten(1).sum(1).mean()
            (self.penalty * grad_norm).backward()
            self.optimizer.step()
            running += loss.item()
        return running / max(len(loader), 1)
