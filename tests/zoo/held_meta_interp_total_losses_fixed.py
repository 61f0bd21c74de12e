# Source: https://github.com/myungsub/meta-interpolation/issues/4
# Shape: Fixed twin: the builder records float(value) for every returned loss, so self.total_losses holds numbers; the per-task meta-loss list in forward() is still kept and backwarded by meta_update(), and the inner loop still uses autograd.grad(create_graph=True) whose fast weights are consumed in the same outer step.
# Verdict: clean
"""MAML++-style video frame interpolation meta-training (inner-loop adaptation with
fast weights, multi-step loss), scaled down to a tiny MLP interpolator."""
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter(object):
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Args:
    number_of_training_steps_per_iter = 2
    number_of_evaluation_steps_per_iter = 2
    task_learning_rate = 0.05
    meta_learning_rate = 1e-3
    second_order = True
    first_order_to_second_order_epoch = -1
    use_multi_step_loss_optimization = True
    multi_step_loss_num_epochs = 10


class Interpolator(nn.Module):
    """frame0, frame1 -> middle frame; functional forward with an explicit params dict."""

    def __init__(self, dim=48, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(2 * dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, frame0, frame1, params=None):
        if params is None:
            params = dict(self.named_parameters())
        x = torch.cat([frame0, frame1], dim=1)
        x = F.relu(F.linear(x, params["fc1.weight"], params["fc1.bias"]))
        return 0.5 * (frame0 + frame1) + F.linear(x, params["fc2.weight"], params["fc2.bias"])


class MetaLearningSystem(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.net = Interpolator()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.meta_learning_rate)
        self.current_epoch = 0

    def get_inner_loop_parameter_dict(self, params):
        return OrderedDict((name, param) for name, param in params if param.requires_grad)

    def apply_inner_loop_update(self, loss, names_weights_copy, use_second_order, current_step_idx):
        grads = torch.autograd.grad(loss, names_weights_copy.values(), create_graph=use_second_order)
        names_grads_copy = dict(zip(names_weights_copy.keys(), grads))
        return OrderedDict((key, names_weights_copy[key] - self.args.task_learning_rate * names_grads_copy[key])
                           for key in names_weights_copy.keys())

    def update_loss_metrics(self, task_losses, target_loss):
        for loss_key, loss_value in target_loss.items():
            if loss_key not in task_losses:
                task_losses[loss_key] = AverageMeter()
            task_losses[loss_key].update(loss_value.detach().cpu().data.numpy())

    def get_across_task_loss_metrics(self, total_losses, specific_losses):
        losses = dict()
        losses["loss"] = torch.mean(torch.stack(total_losses))
        for key, avg_meters in specific_losses.items():
            losses[key] = float(avg_meters.avg)
        return losses

    def net_forward(self, frame0, frame1, target, weights):
        output = self.net(frame0, frame1, params=weights)
        return {"total": F.l1_loss(output, target)}, output

    def forward(self, frames, epoch, use_second_order, num_steps, training_phase):
        total_losses = []
        loss_accumulator = {}
        per_task_target_preds = [None for _ in range(frames[0].shape[0])]
        self.net.zero_grad()
        for task_id in range(frames[0].shape[0]):  # loop over batch dimension
            task_losses = []
            names_weights_copy = self.get_inner_loop_parameter_dict(self.net.named_parameters())
            support_idxs = [[0, 1, 2], [2, 3, 4]]
            target_idx = [1, 2, 3]
            for num_step in range(num_steps):
                support_loss = 0
                for ind in support_idxs:
                    _loss, _ = self.net_forward(frames[ind[0]][task_id:task_id + 1], frames[ind[2]][task_id:task_id + 1],
                                                frames[ind[1]][task_id:task_id + 1], names_weights_copy)
                    support_loss = support_loss + _loss["total"]
                names_weights_copy = self.apply_inner_loop_update(support_loss, names_weights_copy,
                                                                  use_second_order, num_step)
                target_loss, target_preds = self.net_forward(
                    frames[target_idx[0]][task_id:task_id + 1], frames[target_idx[2]][task_id:task_id + 1],
                    frames[target_idx[1]][task_id:task_id + 1], names_weights_copy)
                task_losses.append(target_loss["total"])
                self.update_loss_metrics(loss_accumulator, target_loss)
            per_task_target_preds[task_id] = target_preds.detach()
            task_losses = torch.sum(torch.stack(task_losses))
            total_losses.append(task_losses)
        losses = self.get_across_task_loss_metrics(total_losses, loss_accumulator)
        return losses, per_task_target_preds

    def meta_update(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def run_train_iter(self, data_batch, epoch):
        self.train()
        losses, preds = self.forward(data_batch, epoch,
                                     use_second_order=self.args.second_order and epoch > self.args.first_order_to_second_order_epoch,
                                     num_steps=self.args.number_of_training_steps_per_iter, training_phase=True)
        self.meta_update(loss=losses["loss"])
        self.optimizer.zero_grad()
        return losses, preds

    def run_validation_iter(self, data_batch):
        self.eval()
        losses, preds = self.forward(data_batch, self.current_epoch, use_second_order=False,
                                     num_steps=self.args.number_of_evaluation_steps_per_iter, training_phase=False)
        return losses, preds


class ExperimentBuilder(object):
    def __init__(self, args, model):
        self.args = args
        self.model = model
        self.total_losses = dict()
        self.state = {"current_iter": 0, "best_val_loss": float("inf")}

    def _accumulate_losses(self, total_losses, losses, phase):
        for key, value in losses.items():
            total_losses.setdefault("{}_{}".format(phase, key), []).append(float(value))

    def build_summary_dict(self, total_losses):
        return {key: float(np.mean([float(v) for v in values])) for key, values in total_losses.items()}

    def train_iteration(self, train_sample, epoch_idx):
        losses, outputs = self.model.run_train_iter(data_batch=train_sample, epoch=epoch_idx)
        self._accumulate_losses(self.total_losses, losses, "train")
        self.state["current_iter"] += 1
        return losses, outputs

    def evaluation_iteration(self, val_sample):
        losses, outputs = self.model.run_validation_iter(data_batch=val_sample)
        self._accumulate_losses(self.total_losses, losses, "val")
        return losses, outputs

    def run_experiment(self, train_batches, val_batches):
        for train_sample, val_sample in zip(train_batches, val_batches):
            self.train_iteration(train_sample, epoch_idx=0)
            self.evaluation_iteration(val_sample)
        summary = self.build_summary_dict(self.total_losses)
        self.state["best_val_loss"] = min(self.state["best_val_loss"], summary["val_loss"])
        return summary


def make_batches(n_batches, tasks=2, dim=48, n_frames=5, seed=0):
    gen = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        start, end = torch.randn(tasks, dim, generator=gen), torch.randn(tasks, dim, generator=gen)
        batches.append([start + (end - start) * k / (n_frames - 1) for k in range(n_frames)])
    return batches


def run(steps):
    torch.manual_seed(0)
    args = Args()
    builder = ExperimentBuilder(args, MetaLearningSystem(args))
    summary = builder.run_experiment(make_batches(steps), make_batches(steps, seed=1))
    return builder, summary


if __name__ == "__main__":
    run(10)
