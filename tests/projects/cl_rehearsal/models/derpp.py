# Dark Experience Replay++ on top of a frozen feature extractor (linear-probe rehearsal).

import torch
from torch.nn import functional as F

from models.utils.continual_model import ContinualModel
from utils.buffer import Buffer


class Derpp(ContinualModel):
    NAME = 'derpp'
    COMPATIBILITY = ['class-il', 'domain-il', 'task-il', 'general-continual']

    def __init__(self, backbone, loss, args, transform):
        super().__init__(backbone, loss, args, transform)
        self.buffer = Buffer(self.args.buffer_size)

    def observe(self, inputs, labels, not_aug_inputs, epoch=None):
        self.opt.zero_grad()

        outputs = self.net(inputs)
        loss = self.loss(outputs, labels)

        if not self.buffer.is_empty():
            buf_inputs, _, buf_logits = self.buffer.get_data(self.args.minibatch_size, transform=self.transform, device=self.device)
            buf_outputs = self.net(buf_inputs)
            loss_der = self.args.alpha * F.mse_loss(buf_outputs, buf_logits)

            buf_inputs, buf_labels, _ = self.buffer.get_data(self.args.minibatch_size, transform=self.transform, device=self.device)
            buf_outputs = self.net(buf_inputs)
            loss_re = self.args.beta * self.loss(buf_outputs, buf_labels)

            loss = loss + loss_der + loss_re

        loss.backward(retain_graph=True)  # known-miss: TLK202
        self.opt.step()

        # per-sample confidence, used by the buffer to pick which items to refresh
        confidences = F.softmax(outputs, dim=1).amax(dim=1)
        self.buffer.add_data(examples=not_aug_inputs,
                             labels=labels,
                             logits=outputs,
                             confidences=confidences)

        return loss.item()

    @torch.no_grad()
    def end_task(self, dataset):
        # refresh the stored logits of the least confident items with the current head
        idx = self.buffer.least_confident(self.args.minibatch_size)
        if len(idx):
            examples, _, _ = self.buffer.get_data_by_index(idx, device=self.device)
            self.buffer.update_logits(idx, self.net(examples))
