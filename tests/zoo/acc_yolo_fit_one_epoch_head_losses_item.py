# Source: https://github.com/bubbliiiing/yolo3-pytorch/issues/3
# Shape: the fixed YOLOv3 fit_one_epoch(): the three heads' losses are still summed into loss_value and backwarded, but the epoch total takes loss_value.item(), so only floats cross batches; validation runs under torch.no_grad().
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyYoloBody(nn.Module):
    def __init__(self, num_anchors=3, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.1))
        out_ch = num_anchors * (5 + num_classes)
        self.heads = nn.ModuleList([nn.Conv2d(32, out_ch, 1) for _ in range(3)])

    def forward(self, x):
        feat = self.backbone(x)
        return [head(F.avg_pool2d(feat, 2 ** i)) for i, head in enumerate(self.heads)]


class YOLOLoss(nn.Module):
    def forward(self, l, output, targets):
        conf = output[:, 4::9]
        obj = targets[l].expand_as(conf)
        return F.binary_cross_entropy_with_logits(conf, obj) + 0.05 * output.pow(2).mean()


def fit_one_epoch(model_train, yolo_loss, optimizer, epoch, gen, gen_val, Epoch):
    loss = 0
    val_loss = 0

    model_train.train()
    for iteration, (images, targets) in enumerate(gen):
        optimizer.zero_grad()
        outputs = model_train(images)

        loss_value_all = 0
        for l in range(len(outputs)):
            loss_item = yolo_loss(l, outputs[l], targets)
            loss_value_all += loss_item
        loss_value = loss_value_all

        loss_value.backward()
        optimizer.step()

        loss += loss_value.item()

    model_train.eval()
    for iteration, (images, targets) in enumerate(gen_val):
        with torch.no_grad():
            outputs = model_train(images)
            loss_value_all = 0
            for l in range(len(outputs)):
                loss_item = yolo_loss(l, outputs[l], targets)
                loss_value_all += loss_item
            loss_value = loss_value_all
        val_loss += loss_value

    print("Epoch:" + str(epoch + 1) + "/" + str(Epoch))
    print("Total Loss: %.3f || Val Loss: %.3f " % (loss / len(gen), val_loss / len(gen_val)))
    return loss / len(gen), val_loss / len(gen_val)


def make_batches(n, batch_size=2):
    return [(torch.randn(batch_size, 3, 32, 32), [torch.rand(batch_size, 1, 1, 1) for _ in range(3)]) for _ in range(n)]


if __name__ == "__main__":
    model = TinyYoloBody()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    fit_one_epoch(model, YOLOLoss(), optimizer, 0, make_batches(4), make_batches(2), 1)
