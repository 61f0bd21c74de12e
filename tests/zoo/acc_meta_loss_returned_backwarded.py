# Source: https://github.com/learnables/learn2learn/blob/master/examples/vision/maml_omniglot.py
# Shape: MAML outer step: a helper adapts a clone per task and sums the query losses into meta_loss, which it returns; the caller backwards it every iteration, so the sum is the training signal.
# Verdict: clean
import learn2learn as l2l
import torch
import torch.nn as nn


def outer_loss(maml, task_batch, adaptation_steps, criterion):
    meta_loss = 0.0
    meta_acc = 0.0
    for support_x, support_y, query_x, query_y in task_batch:
        learner = maml.clone()
        for _ in range(adaptation_steps):
            learner.adapt(criterion(learner(support_x), support_y))
        query_logits = learner(query_x)
        meta_loss += criterion(query_logits, query_y)
        meta_acc += (query_logits.argmax(1) == query_y).float().mean().item()
    return meta_loss / len(task_batch), meta_acc / len(task_batch)


def main(tasksets, iterations=60000, meta_batch_size=32):
    model = l2l.vision.models.OmniglotFC(28 ** 2, 5)
    maml = l2l.algorithms.MAML(model, lr=0.5, first_order=False)
    opt = torch.optim.Adam(maml.parameters(), lr=0.003)
    criterion = nn.CrossEntropyLoss()
    for iteration in range(iterations):
        opt.zero_grad()
        task_batch = [tasksets.train.sample() for _ in range(meta_batch_size)]
        loss, acc = outer_loss(maml, task_batch, 1, criterion)
        loss.backward()
        opt.step()
        if iteration % 100 == 0:
            print(iteration, loss.item(), acc)
