"""Multi-task trainer (shape follows lorenmt/mtan im2im_pred/utils.py multi_task_trainer)."""
import torch

from metrics import CostBuffer, model_fit, pixel_accuracy
from weighting import DWA, uncertainty_weighted

TASKS = ("semantic", "depth", "normal")


def shared_grad_norms(losses, shared_params):
    """Per-task gradient norm on the shared trunk (GradNorm-style diagnostics)."""
    norms = []
    for l in losses:
        g = torch.autograd.grad(l, shared_params, retain_graph=True)
        norms.append(torch.sqrt(sum((x ** 2).sum() for x in g)).item())
    return norms


def backward_step(loss, optimizer, max_norm, params):
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # known-miss: TLK201
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()


def multi_task_trainer(train_loader, test_loader, model, optimizer, scheduler, opt, total_epoch=2):
    buf = CostBuffer(total_epoch)
    dwa = DWA()
    weight_log = []
    train_batch, test_batch = len(train_loader), len(test_loader)
    for index in range(total_epoch):
        lam = dwa.weights()
        model.train()
        for k, (img, label, depth, normal) in enumerate(train_loader):
            preds, logsigma = model(img)
            train_loss = [model_fit(preds[0], label, "semantic"),
                          model_fit(preds[1], depth, "depth"),
                          model_fit(preds[2], normal, "normal")]
            if opt.weight == "uncert":
                loss = uncertainty_weighted(train_loss, logsigma)
            else:
                loss = sum(lam[i] * train_loss[i] for i in range(3))
            if k % opt.diag_every == 0:
                gn = shared_grad_norms(train_loss, model.shared_parameters())
            backward_step(loss, optimizer, opt.max_norm, model.parameters())

            buf.add(index, 0, train_loss[0], train_batch)  # expect: TLK101 (metrics.py)
            buf.add(index, 1, pixel_accuracy(preds[0], label).item(), train_batch)
            buf.add(index, 3, train_loss[1].item(), train_batch)
            buf.add(index, 6, train_loss[2].item(), train_batch)
            dwa.record(train_loss)  # expect: TLK102 (weighting.py)
            weight_log.append(torch.exp(-logsigma).detach())
        dwa.end_epoch()

        model.eval()
        with torch.no_grad():
            for k, (img, label, depth, normal) in enumerate(test_loader):
                preds, _ = model(img)
                test_loss = [model_fit(preds[0], label, "semantic"),
                             model_fit(preds[1], depth, "depth"),
                             model_fit(preds[2], normal, "normal")]
                buf.add(index, 12, test_loss[0], test_batch)
                buf.add(index, 15, test_loss[1], test_batch)
                buf.add(index, 18, test_loss[2], test_batch)
        scheduler.step()
        row = buf.row(index)
        print(f"Epoch {index:04d} | TRAIN {row[0]:.4f} {row[1]:.4f} {row[3]:.4f} {row[6]:.4f} | "
              f"TEST {row[12]:.4f} {row[15]:.4f} {row[18]:.4f} | gradnorm {gn} | w {weight_log[-1].tolist()}")
    return buf
