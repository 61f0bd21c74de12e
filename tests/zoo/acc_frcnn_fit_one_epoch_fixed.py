# Source: https://github.com/bubbliiiing/faster-rcnn-pytorch/issues/27
# Shape: the running sums for the progress bar take .item() of each loss, so they are Python floats; validation losses are computed under no_grad and also summed as numbers.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_batches(n, batch_size=2, img_size=32, n_boxes=3, num_classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n):
        images = torch.randn(batch_size, 3, img_size, img_size, generator=g)
        xy = torch.rand(batch_size, n_boxes, 2, generator=g) * (img_size - 8)
        wh = torch.rand(batch_size, n_boxes, 2, generator=g) * 6 + 2
        boxes = torch.cat([xy, xy + wh], dim=-1)
        labels = torch.randint(0, num_classes, (batch_size, n_boxes), generator=g)
        batches.append((images, boxes, labels))
    return batches


class LossHistory:
    def __init__(self):
        self.losses, self.val_loss = [], []

    def append_loss(self, epoch, loss, val_loss):
        self.losses.append(loss)
        self.val_loss.append(val_loss)


class FasterRCNN(nn.Module):
    def __init__(self, num_classes=4, n_anchors=9, feat=32, roi_size=4, n_rois=16):
        super().__init__()
        self.extractor = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(inplace=True),
            nn.Conv2d(16, feat, 3, 2, 1), nn.ReLU(inplace=True))
        self.rpn_conv = nn.Conv2d(feat, feat, 3, 1, 1)
        self.rpn_loc = nn.Conv2d(feat, n_anchors * 4, 1)
        self.rpn_score = nn.Conv2d(feat, n_anchors * 2, 1)
        self.roi_size, self.n_rois = roi_size, n_rois
        self.head = nn.Sequential(nn.Linear(feat * roi_size * roi_size, 64), nn.ReLU(inplace=True))
        self.cls_loc = nn.Linear(64, (num_classes + 1) * 4)
        self.score = nn.Linear(64, num_classes + 1)

    def forward(self, x):
        base = self.extractor(x)
        h = F.relu(self.rpn_conv(base))
        rpn_locs = self.rpn_loc(h).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 4)
        rpn_scores = self.rpn_score(h).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 2)
        pooled = F.adaptive_avg_pool2d(base, self.roi_size).flatten(1)
        pooled = pooled.unsqueeze(1).expand(-1, self.n_rois, -1)
        fc = self.head(pooled)
        return rpn_locs, rpn_scores, self.cls_loc(fc), self.score(fc)


class FasterRCNNTrainer(nn.Module):
    def __init__(self, model_train, optimizer, num_classes=4):
        super().__init__()
        self.model_train = model_train
        self.optimizer = optimizer
        self.num_classes = num_classes
        self.rpn_sigma, self.roi_sigma = 1.0, 1.0

    @staticmethod
    def _fast_rcnn_loc_loss(pred_loc, gt_loc, gt_label, sigma):
        pred_loc = pred_loc[gt_label > 0]
        gt_loc = gt_loc[gt_label > 0]
        sigma_squared = sigma ** 2
        regression_diff = (gt_loc - pred_loc).abs().float()
        regression_loss = torch.where(regression_diff < (1. / sigma_squared),
                                      0.5 * sigma_squared * regression_diff ** 2,
                                      regression_diff - 0.5 / sigma_squared)
        num_pos = (gt_label > 0).sum().float()
        return regression_loss.sum() / torch.max(num_pos, torch.ones_like(num_pos))

    def _targets(self, boxes, labels, n_anchor, n_roi):
        # stand-in for AnchorTargetCreator / ProposalTargetCreator
        b = boxes.shape[0]
        g = torch.Generator().manual_seed(int(boxes.sum().item() * 10) % 1000)
        gt_rpn_loc = torch.randn(b, n_anchor, 4, generator=g) * 0.1
        gt_rpn_label = torch.randint(-1, 2, (b, n_anchor), generator=g)
        gt_roi_loc = torch.randn(b, n_roi, 4, generator=g) * 0.1
        gt_roi_label = labels.repeat_interleave(n_roi // labels.shape[1] + 1, dim=1)[:, :n_roi] + 1
        return gt_rpn_loc, gt_rpn_label, gt_roi_loc, gt_roi_label

    def forward(self, imgs, bboxes, labels, scale):
        rpn_locs, rpn_scores, roi_cls_locs, roi_scores = self.model_train(imgs)
        n = imgs.shape[0]
        gt_rpn_loc, gt_rpn_label, gt_roi_loc, gt_roi_label = self._targets(
            bboxes, labels, rpn_locs.shape[1], roi_scores.shape[1])
        rpn_loc_loss_all, rpn_cls_loss_all, roi_loc_loss_all, roi_cls_loss_all = 0, 0, 0, 0
        for i in range(n):
            rpn_loc_loss = self._fast_rcnn_loc_loss(rpn_locs[i], gt_rpn_loc[i], gt_rpn_label[i], self.rpn_sigma)
            rpn_cls_loss = F.cross_entropy(rpn_scores[i], gt_rpn_label[i], ignore_index=-1)
            roi_cls_loc = roi_cls_locs[i].view(roi_cls_locs.shape[1], -1, 4)
            roi_loc = roi_cls_loc[torch.arange(roi_cls_loc.shape[0]), gt_roi_label[i]]
            roi_loc_loss = self._fast_rcnn_loc_loss(roi_loc, gt_roi_loc[i], gt_roi_label[i], self.roi_sigma)
            roi_cls_loss = F.cross_entropy(roi_scores[i], gt_roi_label[i])
            rpn_loc_loss_all += rpn_loc_loss
            rpn_cls_loss_all += rpn_cls_loss
            roi_loc_loss_all += roi_loc_loss
            roi_cls_loss_all += roi_cls_loss
        losses = [rpn_loc_loss_all / n, rpn_cls_loss_all / n, roi_loc_loss_all / n, roi_cls_loss_all / n]
        losses = losses + [sum(losses)]
        return losses

    def train_step(self, imgs, bboxes, labels, scale):
        self.optimizer.zero_grad()
        losses = self.forward(imgs, bboxes, labels, scale)
        losses[-1].backward()
        self.optimizer.step()
        return losses


def fit_one_epoch(model, train_util, loss_history, optimizer, epoch, epoch_step, epoch_step_val,
                  gen, gen_val, Epoch):
    total_loss = 0
    rpn_loc_loss = 0
    rpn_cls_loss = 0
    roi_loc_loss = 0
    roi_cls_loss = 0
    val_loss = 0

    postfix = {}
    for iteration, batch in enumerate(gen):
        if iteration >= epoch_step:
            break
        images, boxes, labels = batch
        rpn_loc, rpn_cls, roi_loc, roi_cls, total = train_util.train_step(images, boxes, labels, 1)
        total_loss += total.item()
        rpn_loc_loss += rpn_loc.item()
        rpn_cls_loss += rpn_cls.item()
        roi_loc_loss += roi_loc.item()
        roi_cls_loss += roi_cls.item()
        postfix = {'total_loss': float(total_loss) / (iteration + 1),
                   'rpn_loc': float(rpn_loc_loss) / (iteration + 1),
                   'rpn_cls': float(rpn_cls_loss) / (iteration + 1),
                   'roi_loc': float(roi_loc_loss) / (iteration + 1),
                   'roi_cls': float(roi_cls_loss) / (iteration + 1),
                   'lr': optimizer.param_groups[0]['lr']}

    for iteration, batch in enumerate(gen_val):
        if iteration >= epoch_step_val:
            break
        images, boxes, labels = batch
        with torch.no_grad():
            train_util.optimizer.zero_grad()
            _, _, _, _, val_total = train_util.forward(images, boxes, labels, 1)
            val_loss += val_total.item()

    loss_history.append_loss(epoch + 1, float(total_loss) / epoch_step, val_loss / max(epoch_step_val, 1))
    return {"total_loss": total_loss, "rpn_loc_loss": rpn_loc_loss, "rpn_cls_loss": rpn_cls_loss,
            "roi_loc_loss": roi_loc_loss, "roi_cls_loss": roi_cls_loss, "postfix": postfix}


def run(steps):
    torch.manual_seed(0)
    model = FasterRCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, weight_decay=5e-4)
    train_util = FasterRCNNTrainer(model, optimizer)
    loss_history = LossHistory()
    gen = make_batches(steps)
    gen_val = make_batches(2, seed=1)
    sums = fit_one_epoch(model, train_util, loss_history, optimizer, 0, steps, 2, gen, gen_val, 1)
    return {"model": model, "loss_history": loss_history, "sums": sums}


if __name__ == "__main__":
    run(10)
