# Layout modelled on yaodongyu/TRADES (train_trades_cifar10.py): the entry script trains with
# trades.py's trades_loss, evaluates the natural and the PGD robust error with the attack of
# pgd_attack_cifar10.py each epoch, and decays the learning rate by steps. Reduced: the loaders
# are passed in (lists of (data, target) batches of 1x8x8 images), a SmallCNN, meters for the two
# loss terms instead of the periodic print.
import torch.optim as optim

from attack import pgd_whitebox
from models import SmallCNN
from trades import trades_loss
from utils import AverageMeter, RobustErrorRecorder


def train(model, train_loader, optimizer, epoch, beta=6.0):
    model.train()
    natural_meter = AverageMeter()
    robust_meter = AverageMeter()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        loss, loss_natural, loss_robust = trades_loss(model=model, x_natural=data, y=target, optimizer=optimizer, beta=beta)
        loss.backward()  # clean: trades_loss returns the sum, backwarded here
        optimizer.step()
        natural_meter.update(loss_natural.item(), data.size(0))  # clean: a number
        # Measured under torch 2.13 CPU (batch 8 of 1x8x8, 1, 5, 10 batches): robust_meter.sum keeps
        # 39 -> 163 -> 318 autograd nodes (+31 per batch); 0 with loss_robust.item().
        robust_meter.update(loss_robust, data.size(0))  # expect: TLK101 (utils.py)
    print(f"Train Epoch: {epoch} natural {natural_meter.avg:.4f} robust {float(robust_meter.avg):.4f}")
    return natural_meter, robust_meter


def eval_adv_test(model, test_loader):
    model.eval()
    robust_err_total = 0
    natural_err_total = 0
    recorder = RobustErrorRecorder()
    for data, target in test_loader:
        logits_pgd, err_natural, err_robust = pgd_whitebox(model, data, target)
        robust_err_total += err_robust  # clean: pgd_whitebox returns numbers for the errors
        natural_err_total += err_natural
        # Measured (1, 5, 10 test batches): the recorder keeps 19 -> 63 -> 118 autograd nodes and
        # 68,384 -> 260,896 -> 501,536 B of saved tensors (+48,128 B per batch: each batch's whole
        # forward graph); 0 with logits_pgd.detach().
        recorder.add(logits_pgd, target)  # the only call of RobustErrorRecorder.add: reported at its store (utils.py:28)
    print(f"natural_err_total: {natural_err_total}, robust_err_total: {robust_err_total}")
    return robust_err_total, recorder


def adjust_learning_rate(optimizer, epoch, lr):
    if epoch >= 75:
        lr = lr * 0.1
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr


def main(train_loader, test_loader, epochs=1, lr=0.01):
    model = SmallCNN()
    optimizer = optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=2e-4)
    for epoch in range(1, epochs + 1):
        adjust_learning_rate(optimizer, epoch, lr)
        train(model, train_loader, optimizer, epoch)
        eval_adv_test(model, test_loader)
    return model
