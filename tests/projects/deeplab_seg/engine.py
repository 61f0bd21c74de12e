import torch

from metrics import AverageMeter


def train_one_epoch(model, criterion, optimizer, scheduler, loader, vis, loss_meter, cur_itrs, opts):
    model.train()
    interval_loss = 0.0
    for images, labels in loader:
        cur_itrs += 1
        optimizer.zero_grad()
        outputs = model(images)
        loss, parts = criterion(outputs, labels)
        if opts.aux_weight > 0:
            aux = model.aux_logits[-1]
            loss = loss + opts.aux_weight * criterion.ce(aux, labels)
        loss.backward()
        optimizer.step()
        scheduler.step()

        loss_meter.update(loss, images.size(0))  # expect: TLK101 (metrics/stream_metrics.py)
        interval_loss += loss.item()
        vis.vis_scalar("ce", cur_itrs, parts["ce"])
        vis.vis_scalar("dice", cur_itrs, parts["dice"])
        if cur_itrs % opts.sample_interval == 0:
            vis.add_sample(cur_itrs, outputs[0])  # expect: TLK102 (utils/visualizer.py)
        if cur_itrs % opts.print_interval == 0:
            print("Itrs %d, Loss=%.4f" % (cur_itrs, interval_loss / opts.print_interval))
            interval_loss = 0.0
    return cur_itrs


@torch.no_grad()
def validate(model, criterion, loader, metrics):
    model.eval()
    metrics.reset()
    val_meter = AverageMeter()
    for images, labels in loader:
        outputs = model(images)
        loss, _ = criterion(outputs, labels)
        val_meter.update(loss, images.size(0))
        preds = outputs.argmax(1)
        metrics.update(labels, preds)
    score = metrics.get_results()
    score["Val Loss"] = float(val_meter.avg)
    return score
