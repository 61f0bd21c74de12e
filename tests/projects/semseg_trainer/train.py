# Modelled on: https://github.com/meetps/pytorch-semseg
import argparse
import time

import torch

from ptseg.models import get_model
from ptseg.loss import get_loss_function, pixel_accuracy, ClassBalancer
from ptseg.loader import get_loader
from ptseg.metrics import runningScore, averageMeter

DEFAULT_CFG = {
    "model": {"arch": "unet", "feature_scale": 4},
    "data": {"dataset": "synthetic", "n_classes": 4, "img_size": (32, 32)},
    "training": {
        "batch_size": 8,
        "lr": 0.05,
        "momentum": 0.9,
        "weight_decay": 5e-4,
        "print_interval": 10,
        "val_interval": 10,
        "loss": {"name": "multi_scale_cross_entropy", "scale_weight": [1.0, 0.4]},
    },
}


def validate(model, valloader, loss_fn, running_metrics_val, val_loss_meter, max_batches=2):
    model.eval()
    with torch.no_grad():
        for i_val, (images_val, labels_val) in enumerate(valloader):
            if i_val >= max_batches:
                break
            outputs = model(images_val)
            val_loss = loss_fn(input=outputs, target=labels_val)
            pred = outputs.max(1)[1]
            running_metrics_val.update(labels_val, pred)
            val_loss_meter.update(val_loss)  # CLEAN: fed inside torch.no_grad(), the tensor has no graph
    model.train()
    return running_metrics_val.get_scores()


def train(cfg, n_steps):
    torch.manual_seed(1337)
    tcfg = cfg["training"]
    n_classes = cfg["data"]["n_classes"]

    trainloader = get_loader(cfg["data"]["dataset"], "train", batch_size=tcfg["batch_size"],
                             n_classes=n_classes, img_size=cfg["data"]["img_size"])
    valloader = get_loader(cfg["data"]["dataset"], "val", batch_size=tcfg["batch_size"],
                           n_classes=n_classes, img_size=cfg["data"]["img_size"])

    model = get_model(cfg["model"], n_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=tcfg["lr"], momentum=tcfg["momentum"],
                                weight_decay=tcfg["weight_decay"])
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1 - it / (n_steps + 1)) ** 0.9)
    loss_fn = get_loss_function(tcfg["loss"])
    balancer = ClassBalancer(n_classes)

    running_metrics_val = runningScore(n_classes)
    val_loss_meter = averageMeter()
    train_loss_meter = averageMeter()
    time_meter = averageMeter()
    loss_curve = []

    i = 0
    flag = True
    while i < n_steps and flag:
        for (images, labels) in trainloader:
            i += 1
            start_ts = time.time()
            model.train()

            optimizer.zero_grad()
            outputs = model(images)
            loss = loss_fn(input=outputs, target=labels, weight=balancer.weights())

            loss.backward(retain_graph=True)  # expect: TLK201
            balancer.observe(outputs[0], labels)
            optimizer.step()
            scheduler.step()

            time_meter.update(time.time() - start_ts)
            train_loss_meter.update(loss)  # expect: TLK101
            acc = pixel_accuracy(outputs[0], labels)
            loss_curve.append(loss.item())

            if i % tcfg["print_interval"] == 0:
                print("Iter [{:d}/{:d}]  Loss: {:.4f}  Acc: {:.3f}  Time/Image: {:.4f}".format(
                    i, n_steps, loss.item(), acc, time_meter.avg / tcfg["batch_size"]))
                time_meter.reset()

            if i % tcfg["val_interval"] == 0 or i == n_steps:
                score = validate(model, valloader, loss_fn, running_metrics_val, val_loss_meter)
                print("Iter {:d} val loss {:.4f} mIoU {:.3f}".format(i, float(val_loss_meter.avg), score["Mean IoU : \t"]))
                running_metrics_val.reset()

            if i >= n_steps:
                flag = False
                break

    return {
        "model": model,
        "train_loss_meter": train_loss_meter,
        "val_loss_meter": val_loss_meter,
        "balancer": balancer,
        "loss_curve": loss_curve,
    }


def main(n_steps=30):
    return train(DEFAULT_CFG, n_steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="config")
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    main(args.steps)
