import time

import torch

from utils import accuracy, loss_value
from losses import node_nll


def train_step(model, optimizer, features, adj, labels, idx_train, idx_val, penalty, meters):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    x = features.clone().requires_grad_(True)
    output = model(x, adj)
    loss_train = node_nll(output, labels, idx_train)
    acc_train = accuracy(output[idx_train], labels[idx_train])
    reg = penalty(loss_train, x)
    (loss_train + reg).backward()
    optimizer.step()

    # fastmode: validation numbers come from the training forward pass
    loss_val = node_nll(output, labels, idx_val)
    acc_val = accuracy(output[idx_val], labels[idx_val])
    meters['loss'].update(loss_train, n=len(idx_train))  # expect: TLK101
    meters['acc'].update(acc_train.item(), n=len(idx_train))
    return {
        'loss_train': loss_value(loss_train),  # CLEAN: helper returns loss.item()
        'acc_train': acc_train.item(),
        'loss_val': loss_val,  # known-miss: TLK102
        'acc_val': acc_val.item(),
        'time': time.time() - t,
    }


@torch.no_grad()
def evaluate(model, features, adj, labels, idx, logger=None):
    model.eval()
    output = model(features, adj)
    loss = node_nll(output, labels, idx)
    if logger is not None:
        logger.log('eval_logits', output[idx])  # CLEAN: stored under torch.no_grad(), no graph
        logger.log('eval_loss', loss)  # CLEAN: computed under no_grad
    return loss.item(), accuracy(output[idx], labels[idx]).item()
