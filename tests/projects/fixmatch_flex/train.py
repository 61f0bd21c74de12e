# Modelled on kekmodel/FixMatch-pytorch (train.py: main(), train() over zipped labeled and
# unlabeled loaders, weak/strong views of each unlabeled image, pseudo-labels from the weak view
# above a confidence threshold, ModelEMA updated after each step, test() on the EMA model under
# no_grad), with a FreeMatch-style self-adaptive threshold and ReMixMatch-style distribution
# alignment from utils/thresholds.py as research forks add. Written anew and much smaller: random
# 3x8x8 tensors stand in for CIFAR-10, a small MLP for the WideResNet, Gaussian noise for
# RandAugment.
import argparse

import torch
import torch.nn.functional as F

from models import ModelEMA, build_wideresnet
from utils import AverageMeter, DistAlignHistory, SelfAdaptiveThreshold, accuracy


def make_loaders(args):
    g = torch.Generator().manual_seed(args.seed)
    labeled = [(torch.randn(args.batch_size, 3, 8, 8, generator=g), torch.randint(0, args.num_classes, (args.batch_size,), generator=g)) for _ in range(args.eval_step)]
    unlabeled = []
    for _ in range(args.eval_step):
        x = torch.randn(args.batch_size * args.mu, 3, 8, 8, generator=g)
        unlabeled.append(((x + 0.05 * torch.randn_like(x), x + 0.5 * torch.randn_like(x)), None))
    test = [(torch.randn(64, 3, 8, 8, generator=g), torch.randint(0, args.num_classes, (64,), generator=g)) for _ in range(4)]
    return labeled, unlabeled, test


def train(args, labeled_trainloader, unlabeled_trainloader, model, optimizer, ema_model, threshold, dist_align, epoch):
    losses = AverageMeter()
    losses_x = AverageMeter()
    losses_u = AverageMeter()
    mask_probs = AverageMeter()
    top1 = AverageMeter()
    p_target = torch.full((args.num_classes,), 1.0 / args.num_classes)
    model.train()
    for batch_idx, (data_x, data_u) in enumerate(zip(labeled_trainloader, unlabeled_trainloader)):
        inputs_x, targets_x = data_x
        (inputs_u_w, inputs_u_s), _ = data_u
        batch_size = inputs_x.shape[0]
        inputs = torch.cat((inputs_x, inputs_u_w, inputs_u_s))
        logits = model(inputs)
        logits_x = logits[:batch_size]
        logits_u_w, logits_u_s = logits[batch_size:].chunk(2)
        del logits

        Lx = F.cross_entropy(logits_x, targets_x, reduction='mean')

        probs_u_w = torch.softmax(logits_u_w, dim=-1)
        dist_align.update(probs_u_w)  # expect: TLK102 (thresholds.py)
        pseudo_label = dist_align.align(probs_u_w.detach(), p_target)
        max_probs, targets_u = torch.max(pseudo_label, dim=-1)
        threshold.update(torch.softmax(logits_u_w, dim=-1).max(dim=-1)[0])  # expect: TLK103 (thresholds.py)
        mask = threshold.mask(max_probs)

        Lu = (F.cross_entropy(logits_u_s, targets_u, reduction='none') * mask).mean()
        loss = Lx + args.lambda_u * Lu
        loss.backward()

        losses.update(loss.item())  # clean: .item() before AverageMeter.update
        losses_x.update(Lx.item())
        losses_u.update(Lu, inputs_u_s.shape[0])  # expect: TLK101 (misc.py)
        prec1, = accuracy(logits_x, targets_x)
        top1.update(prec1, batch_size)  # clean: accuracy() in utils/misc.py runs under @torch.no_grad()
        optimizer.step()
        ema_model.update(model)  # clean: ModelEMA.update in models/ema.py runs under torch.no_grad()
        model.zero_grad()
        mask_probs.update(mask.mean())  # clean: the mask comes from max_probs.ge(...), which has no grad_fn
    return losses.avg, losses_x.avg, float(losses_u.avg), float(mask_probs.avg)


def test(args, test_loader, model):
    losses = AverageMeter()
    top1 = AverageMeter()
    outputs_all = []
    model.eval()
    with torch.no_grad():
        for inputs, targets in test_loader:
            outputs = model(inputs)
            loss = F.cross_entropy(outputs, targets)
            prec1, = accuracy(outputs, targets)
            losses.update(loss, inputs.shape[0])  # clean: under torch.no_grad()
            top1.update(prec1.item(), inputs.shape[0])
            outputs_all.append(outputs)
    return float(losses.avg), top1.avg, torch.cat(outputs_all)


def main(argv=None):
    parser = argparse.ArgumentParser(description='FixMatch (FreeMatch threshold) Training')
    parser.add_argument('--num-classes', type=int, default=10)
    parser.add_argument('--batch-size', type=int, default=16)
    parser.add_argument('--mu', type=int, default=2)
    parser.add_argument('--eval-step', type=int, default=8)
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--lambda-u', type=float, default=1.0)
    parser.add_argument('--ema-decay', type=float, default=0.999)
    parser.add_argument('--seed', type=int, default=5)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    model = build_wideresnet(num_classes=args.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, nesterov=True)
    ema_model = ModelEMA(model, args.ema_decay)
    threshold = SelfAdaptiveThreshold(args.num_classes)
    dist_align = DistAlignHistory(args.num_classes)
    labeled, unlabeled, test_loader = make_loaders(args)
    for epoch in range(args.epochs):
        train_loss, loss_x, loss_u, mask_prob = train(args, labeled, unlabeled, model, optimizer, ema_model, threshold, dist_align, epoch)
        test_loss, test_acc, _ = test(args, test_loader, ema_model.ema)
        print(f"epoch {epoch}: loss {train_loss:.4f} (x {loss_x:.4f}, u {loss_u:.4f}) mask {mask_prob:.3f} test {test_loss:.4f} acc {test_acc:.2f}")
    return model, ema_model, threshold, dist_align


if __name__ == '__main__':
    main()
