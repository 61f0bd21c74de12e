# Layout modelled on ultralytics/yolov5 (train.py importing utils.loss.ComputeLoss and
# models.yolo.Model through packages at the repository root).
import torch

from models.yolo import DetectionModel
from utils.loss import ComputeLoss


def train(dataloader, epochs, device):
    net = DetectionModel().to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    compute_loss = ComputeLoss(net)
    history = []
    for epoch in range(epochs):
        mloss = torch.zeros(3, device=device)
        for i, (imgs, targets) in enumerate(dataloader):
            pred = net(imgs.to(device))
            loss, loss_items = compute_loss(pred, targets.to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            mloss = (mloss * i + loss_items) / (i + 1)  # clean: the parts come back detached
            parts, total = compute_loss.parts(pred.detach(), targets)
            history.append(parts)  # clean: detached parts
        history.append(loss)  # expect: TLK102
    return mloss
