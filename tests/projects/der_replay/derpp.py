# Modelled on models/derpp.py of aimagelab/mammoth (Dark Experience Replay++: replay the buffer's
# logits with an MSE term and its labels with a cross-entropy term), with the buffer's loss-aware
# sample selection fed the per-sample losses of the current batch. Unlike the original, observe()
# returns the loss tensor rather than loss.item(), and the scores are stored as computed.
import torch.nn.functional as F

from buffer import Buffer
from continual_model import ContinualModel


class Derpp(ContinualModel):
    NAME = "derpp"

    def __init__(self, backbone, loss, args):
        super().__init__(backbone, loss, args)
        self.buffer = Buffer(args.buffer_size)

    def observe(self, inputs, labels, not_aug_inputs):
        self.opt.zero_grad()
        outputs = self.net(inputs)
        per_sample = F.cross_entropy(outputs, labels, reduction="none")
        loss = per_sample.mean()

        if not self.buffer.is_empty():
            buf_inputs, _, buf_logits = self.buffer.get_data(self.args.minibatch_size)
            loss_mse = self.args.alpha * F.mse_loss(self.net(buf_inputs), buf_logits)
            loss += loss_mse  # clean: the sum is backwarded below
            buf_inputs, buf_labels, _ = self.buffer.get_data(self.args.minibatch_size)
            loss_ce = self.args.beta * self.loss(self.net(buf_inputs), buf_labels)
            loss += loss_ce

        loss.backward()
        self.opt.step()
        # The scores keep per_sample's graph in buffer.py (measured in training.py, where the loop
        # calls this); the logits (outputs.data) and the examples stay detached: 0 nodes.
        self.buffer.add_data(examples=not_aug_inputs, labels=labels, logits=outputs.data, sample_selection_scores=per_sample)
        return loss
