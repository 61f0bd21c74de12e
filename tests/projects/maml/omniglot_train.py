# Layout modelled on dragen1860/MAML-Pytorch (omniglot_train.py driving meta.py and
# learner.py).
import torch

from learner import Learner
from meta import meta_loss, query_accuracy


def main(task_batches, epochs):
    net = Learner()
    meta_optim = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = []
    accs = []
    for epoch in range(epochs):
        for tasks in task_batches:
            loss_q = meta_loss(net, tasks)  # clean: a sum this caller backwards
            meta_optim.zero_grad()
            loss_q.backward()
            meta_optim.step()
            accs.append(query_accuracy(net, tasks))  # clean: computed under no_grad
            losses.append(loss_q)  # expect: TLK102
    return losses, accs
