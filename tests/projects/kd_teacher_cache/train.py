# Modelled on: https://github.com/haitongli/knowledge-distillation-pytorch
"""Distil a small CNN student from a wider teacher on synthetic CIFAR-like data."""
import torch
import torch.nn.functional as F

import utils
from evaluate import evaluate
from model import StudentNet, TeacherNet, TeacherLogitCache, fetch_batches, loss_fn, loss_fn_kd


def train_kd(student, teacher_cache, optimizer, params, batches, tracker):
    student.train()
    loss_avg = utils.RunningAverage()
    acc_sum = 0.0
    summ = []
    for i, (idx, x, y) in enumerate(batches):
        output = student(x)
        teacher_output = teacher_cache(idx, x)
        loss = loss_fn_kd(output, y, teacher_output, params)  # CLEAN: returns a sum that is backwarded below

        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # expect: TLK201
        optimizer.step()

        tracker.update(F.cross_entropy(output, y), F.cross_entropy(teacher_output, y))
        params.alpha = tracker.alpha()
        acc_sum += utils.accuracy(output, y)  # CLEAN: accuracy() returns a Python float
        if i % params.save_summary_steps == 0:
            summ.append({"loss": loss.detach(), "step": i})  # CLEAN: detached before storing
        loss_avg.update(loss)  # expect: TLK101 (utils.py)
    return loss_avg, acc_sum, summ


def main(steps=10):
    torch.manual_seed(0)
    params = utils.Params(alpha=0.5, temperature=4.0, learning_rate=1e-3,
                          batch_size=16, save_summary_steps=5, eval_batches=3)
    student = StudentNet()
    teacher = TeacherNet()
    teacher_cache = TeacherLogitCache(teacher)
    tracker = utils.GapTracker()
    optimizer = torch.optim.Adam(student.parameters(), lr=params.learning_rate)

    batches = fetch_batches(steps, params.batch_size, seed=1)
    loss_avg, acc_sum, summ = train_kd(student, teacher_cache, optimizer, params, batches, tracker)
    val = evaluate(student, loss_fn, fetch_batches(params.eval_batches, params.batch_size, seed=2))
    print(f"train loss {float(loss_avg()):.4f} acc {acc_sum / max(steps, 1):.3f} "
          f"| val loss {val['loss']:.4f} acc {val['acc']:.3f} | alpha {params.alpha:.2f}")
    return {"student": student, "cache": teacher_cache, "tracker": tracker,
            "loss_avg": loss_avg, "summary": summ, "val": val}


if __name__ == "__main__":
    main(20)
