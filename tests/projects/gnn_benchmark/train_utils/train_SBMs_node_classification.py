"""
    Utility functions for training one epoch
    and evaluating one epoch
"""
import torch
import torch.nn as nn
import math

from train_utils.metrics import accuracy_SBM as accuracy


def train_epoch_sparse(model, criterion, optimizer, device, data_loader, epoch, grad_reg=0.0,
                       saliency=None, max_iters=None):

    model.train()
    epoch_loss = 0
    epoch_train_acc = 0
    nb_data = 0
    gpu_mem = 0
    for iter, (batch_graphs, batch_labels) in enumerate(data_loader):
        batch_x = batch_graphs.ndata['feat'].to(device)  # num x feat
        batch_e = batch_graphs.edata['feat'].to(device)
        batch_labels = batch_labels.to(device)
        optimizer.zero_grad()
        batch_scores, h_emb = model.forward(batch_graphs, batch_x, batch_e, return_emb=True)
        loss = criterion(batch_scores, batch_labels)
        if saliency is not None:
            saliency.update(batch_scores, h_emb, batch_labels)
        if grad_reg > 0:
            # explicit gradient regularisation: penalise ||dL/dtheta||^2, which needs
            # the gradients themselves to be differentiable
            loss.backward(create_graph=True)  # known-miss: TLK302
            grad_sq = sum(p.grad.pow(2).sum() for p in model.parameters() if p.grad is not None)
            (grad_reg * grad_sq).backward()
        else:
            loss.backward()
        optimizer.step()
        epoch_loss += loss.detach().item()
        epoch_train_acc += accuracy(batch_scores, batch_labels)
        if max_iters is not None and iter + 1 >= max_iters:
            break
    n_iters = iter + 1
    epoch_loss /= n_iters
    epoch_train_acc /= n_iters

    return epoch_loss, epoch_train_acc, optimizer, n_iters


def evaluate_network_sparse(model, criterion, device, data_loader, epoch):

    model.eval()
    epoch_test_loss = 0
    epoch_test_acc = 0
    nb_data = 0
    with torch.no_grad():
        for iter, (batch_graphs, batch_labels) in enumerate(data_loader):
            batch_x = batch_graphs.ndata['feat'].to(device)
            batch_e = batch_graphs.edata['feat'].to(device)
            batch_labels = batch_labels.to(device)
            batch_scores = model.forward(batch_graphs, batch_x, batch_e)
            loss = criterion(batch_scores, batch_labels)
            epoch_test_loss += loss.detach().item()
            epoch_test_acc += accuracy(batch_scores, batch_labels)
        epoch_test_loss /= (iter + 1)
        epoch_test_acc /= (iter + 1)

    return epoch_test_loss, epoch_test_acc
