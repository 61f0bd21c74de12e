import math
from argparse import Namespace
from typing import Tuple

import torch

from datasets.utils.continual_dataset import ContinualDataset
from models.utils.continual_model import ContinualModel
from utils.loggers import Logger, print_mean_accuracy
from utils.stats import OnlineMetrics
from utils.status import ProgressBar


def mask_classes(outputs: torch.Tensor, dataset: ContinualDataset, k: int) -> None:
    """Sets the responses of the other tasks to -inf (task-il evaluation)."""
    outputs[:, 0:k * dataset.N_CLASSES_PER_TASK] = -float('inf')
    outputs[:, (k + 1) * dataset.N_CLASSES_PER_TASK:dataset.N_TASKS * dataset.N_CLASSES_PER_TASK] = -float('inf')


@torch.no_grad()
def evaluate(model: ContinualModel, dataset: ContinualDataset) -> Tuple[list, list]:
    status = model.net.training
    model.net.eval()
    accs, accs_mask_classes = [], []
    n_classes = dataset.get_offsets()[1]
    for k, test_loader in enumerate(dataset.test_loaders):
        correct, correct_mask_classes, total = 0.0, 0.0, 0.0
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(model.device), labels.to(model.device)
            outputs = model(inputs)
            _, pred = torch.max(outputs[:, :n_classes].data, 1)
            correct += torch.sum(pred == labels).item()
            total += labels.shape[0]

            mask_classes(outputs, dataset, k)
            _, pred = torch.max(outputs.data, 1)
            correct_mask_classes += torch.sum(pred == labels).item()

        accs.append(correct / total * 100)
        accs_mask_classes.append(correct_mask_classes / total * 100)

    model.net.train(status)
    return accs, accs_mask_classes


def train(model: ContinualModel, dataset: ContinualDataset, args: Namespace):
    """
    The training process, including evaluations and loggers.
    Stops after `args.max_iters` optimisation steps in total.
    """
    model.net.to(model.device)
    results, results_mask_classes = [], []
    logger = Logger(dataset.SETTING, dataset.NAME, model.NAME)
    online = OnlineMetrics()
    progress_bar = ProgressBar(verbose=not args.non_verbose)

    global_iter = 0
    for t in range(dataset.N_TASKS):
        if global_iter >= args.max_iters:
            break
        model.net.train()
        train_loader, _ = dataset.get_data_loaders()
        model.meta_begin_task(dataset)

        for epoch in range(args.n_epochs):
            for i, data in enumerate(train_loader):
                if global_iter >= args.max_iters:
                    break
                inputs, labels, not_aug_inputs = data
                inputs, labels = inputs.to(model.device), labels.to(model.device, dtype=torch.long)
                not_aug_inputs = not_aug_inputs.to(model.device)

                if args.online_eval:
                    # score the incoming batch before learning from it
                    online.update(model(inputs), labels)

                loss = model.meta_observe(inputs, labels, not_aug_inputs, epoch=epoch)
                assert not math.isnan(loss)
                progress_bar.prog(i, len(train_loader), epoch, t, loss)
                global_iter += 1

        model.meta_end_task(dataset)

        accs = evaluate(model, dataset)
        results.append(accs[0])
        results_mask_classes.append(accs[1])
        mean_acc = (sum(accs[0]) / len(accs[0]), sum(accs[1]) / len(accs[1]))
        print_mean_accuracy(mean_acc, t + 1, dataset.SETTING, verbose=not args.non_verbose)
        logger.log(mean_acc)

    logger.log_online(online.loss, online.accuracy)
    return results, results_mask_classes, logger, online
