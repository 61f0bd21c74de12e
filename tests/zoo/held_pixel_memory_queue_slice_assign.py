# Source: https://github.com/tfzhou/ContrastiveSeg/issues/31
# Shape: a semantic-segmentation trainer keeps per-class pixel and segment queues as registered buffers and writes the current batch's normalized embeddings into them by slice assignment in an undecorated _dequeue_and_enqueue method; the embeddings are still attached, so each write links the buffer to that batch's graph and the chain of writes keeps every batch's graph alive, overwritten slots included; the marker is at the call that hands the attached embeddings to the enqueue method, as for a tracker that stores its argument.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class PixelContrastHead(nn.Module):
    def __init__(self, num_classes=19, dim=256, memory_size=5000, pixel_update_freq=10, temperature=0.1):
        super().__init__()
        self.num_classes = num_classes
        self.memory_size = memory_size
        self.pixel_update_freq = pixel_update_freq
        self.temperature = temperature
        self.register_buffer("segment_queue", F.normalize(torch.randn(num_classes, memory_size, dim), dim=2))
        self.register_buffer("segment_queue_ptr", torch.zeros(num_classes, dtype=torch.long))
        self.register_buffer("pixel_queue", F.normalize(torch.randn(num_classes, memory_size, dim), dim=2))
        self.register_buffer("pixel_queue_ptr", torch.zeros(num_classes, dtype=torch.long))

    def _dequeue_and_enqueue(self, keys, labels):
        batch_size, feat_dim = keys.shape[0], keys.shape[1]
        labels = F.interpolate(labels[:, None].float(), size=keys.shape[2:], mode="nearest").long()[:, 0]
        for bs in range(batch_size):
            this_feat = keys[bs].flatten(1)
            this_label = labels[bs].flatten()
            for lb in torch.unique(this_label).tolist():
                if lb == 255:
                    continue
                idxs = (this_label == lb).nonzero().squeeze(1)
                feat = this_feat[:, idxs].mean(dim=1)
                ptr = int(self.segment_queue_ptr[lb])
                self.segment_queue[lb, ptr, :] = F.normalize(feat, p=2, dim=0)
                self.segment_queue_ptr[lb] = (ptr + 1) % self.memory_size

                num_pixel = idxs.shape[0]
                perm = torch.randperm(num_pixel)
                K = min(num_pixel, self.pixel_update_freq)
                feat = this_feat[:, idxs[perm[:K]]].T
                ptr = int(self.pixel_queue_ptr[lb])
                if ptr + K >= self.memory_size:
                    self.pixel_queue[lb, -K:, :] = F.normalize(feat, p=2, dim=1)
                    self.pixel_queue_ptr[lb] = 0
                else:
                    self.pixel_queue[lb, ptr:ptr + K, :] = F.normalize(feat, p=2, dim=1)
                    self.pixel_queue_ptr[lb] = (ptr + K) % self.memory_size

    def contrast_loss(self, embed, labels):
        queue = torch.cat([self.segment_queue, self.pixel_queue], dim=1).clone().detach()
        anchors = embed.permute(0, 2, 3, 1).flatten(0, 2)
        labels = F.interpolate(labels[:, None].float(), size=embed.shape[2:], mode="nearest").long().flatten()
        keep = labels != 255
        anchors, labels = anchors[keep], labels[keep]
        logits = anchors @ queue.flatten(0, 1).T / self.temperature
        queue_labels = torch.arange(self.num_classes, device=embed.device).repeat_interleave(queue.shape[1])
        positives = (labels[:, None] == queue_labels[None, :]).float()
        log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
        return -(log_prob * positives).sum(1).div(positives.sum(1)).mean()


def train(segmenter, head: PixelContrastHead, loader, optimizer, max_iters, contrast_weight=0.1):
    segmenter.train()
    for it, (images, labels) in enumerate(loader):
        seg_logits, embed = segmenter(images.cuda())
        labels = labels.cuda()
        seg_loss = F.cross_entropy(F.interpolate(seg_logits, size=labels.shape[1:], mode="bilinear"), labels,
                                   ignore_index=255)
        loss = seg_loss + contrast_weight * head.contrast_loss(embed, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        head._dequeue_and_enqueue(F.normalize(embed, dim=1), labels)  # TLK102
        if it >= max_iters:
            break
