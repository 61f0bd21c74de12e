# Layout modelled on aimagelab/mammoth (main.py and utils/training.py): the model is built from
# a backbone and a method class (models/derpp.py), train() runs the tasks one after the other,
# feeds every batch to model.meta_observe() and the progress bar of utils/status.py, and
# evaluates on the test sets of all the tasks seen so far after each task. Reduced: the tasks are
# passed in as (train_loader, test_loader) pairs of lists of (inputs, labels), with no
# augmentation (not_aug_inputs are the inputs).
import types

import torch
import torch.nn as nn

from backbone import MNISTMLP
from derpp import Derpp
from status import ProgressBar


def evaluate(model, test_loaders):
    model.net.eval()
    accs = []
    task_outputs = []
    for test_loader in test_loaders:
        correct, total = 0.0, 0
        for inputs, labels in test_loader:
            outputs = model(inputs)
            _, pred = torch.max(outputs.data, 1)
            correct += torch.sum(pred == labels).item()  # clean: a number
            total += labels.shape[0]
            # Measured (2, 6, 12 test batches): 22 -> 54 -> 102 autograd nodes, 9,728 -> 19,968 ->
            # 35,328 B of saved tensors (+2,560 B per batch); 0 with outputs.detach() or no_grad.
            task_outputs.append(outputs)  # expect: TLK102
        accs.append(correct / total * 100)
    model.net.train()
    return accs, task_outputs


def train(model, tasks, n_epochs=1):
    progress_bar = ProgressBar(verbose=False)
    results = []
    for t, (train_loader, _) in enumerate(tasks):
        model.begin_task()
        progress_bar.reset()
        for epoch in range(n_epochs):
            for i, (inputs, labels) in enumerate(train_loader):
                # Measured under torch 2.13 CPU (batch 8, buffer 20; two tasks of 2, 6, 12 batches):
                # Derpp.observe hands the attached per-sample losses to the buffer, whose importance_scores
                # keep 106 -> 206 -> 326 autograd nodes (about +10 per batch once the buffer is full: one
                # CopySlices chain through every write); 0 with per_sample.detach().
                loss = model.meta_observe(inputs, labels, inputs)  # known-miss: TLK102 (reported where the leak is kept, buffer.py:23: ContinualModel.meta_observe in continual_model.py runs Derpp.observe in derpp.py, which passes per_sample to Buffer.add_data, which hands each element to LossAwareSampling.update, which writes it into self.importance_scores[index])
                # Measured (a task of 2, 6, 12 batches): running_loss keeps 76 -> 216 -> 426 autograd
                # nodes (+35 per batch); 0 when observe() returns loss.item() as mammoth's does.
                progress_bar.prog(i, len(train_loader), epoch, t, loss)  # expect: TLK101 (loss is what meta_observe returns: ContinualModel.meta_observe in continual_model.py calls the abstract self.observe, which Derpp in derpp.py implements; ProgressBar.prog in status.py adds it to self.running_loss)
        accs, _ = evaluate(model, [test for _, test in tasks[: t + 1]])
        results.append(accs)
        print(f"task {t + 1}: mean accuracy {sum(accs) / len(accs):.2f} running loss {float(progress_bar.summary()):.4f}")
    return results, progress_bar


def main(tasks, input_size=16, n_classes=4, buffer_size=20):
    args = types.SimpleNamespace(lr=0.03, buffer_size=buffer_size, minibatch_size=8, alpha=0.1, beta=0.5)
    model = Derpp(MNISTMLP(input_size, n_classes), nn.CrossEntropyLoss(), args)
    results, _ = train(model, tasks)
    return model, results
