"""A pixel-embedding segmentor regularised with class prototypes."""
import torch
from torch import nn

from ..registry import MODELS
from .base_model import BaseModel
from .heads import PrototypeMemory, SegHead
from .losses import cross_entropy, prototype_loss, soft_dice, weight_reduce_loss


@MODELS.register_module()
class ProtoSegmentor(BaseModel):

    def __init__(self, in_channels=3, embed_dims=16, num_classes=3, proto_weight=0.1,
                 proto_momentum=0.9, data_preprocessor=None):
        super().__init__(data_preprocessor)
        self.num_classes = num_classes
        self.proto_weight = proto_weight
        self.stem = nn.Sequential(nn.Linear(in_channels, embed_dims), nn.ReLU())
        self.decode_head = SegHead(embed_dims, embed_dims, num_classes)
        self.proto_memory = PrototypeMemory(num_classes, embed_dims, proto_momentum)

    def extract_feat(self, inputs: torch.Tensor) -> torch.Tensor:
        pixels = inputs.permute(0, 2, 3, 1).reshape(-1, inputs.shape[1])  # [B*H*W, C]
        return self.stem(pixels)

    def forward(self, inputs, data_samples=None, mode='loss'):
        feats = self.extract_feat(inputs)
        logits = self.decode_head(feats)
        if mode == 'loss':
            return self.loss(feats, logits, data_samples.reshape(-1))
        if mode == 'predict':
            return logits.argmax(-1).reshape(data_samples.shape), data_samples
        return logits

    def loss(self, feats, logits, labels):
        batch_protos = self.proto_memory.batch_prototypes(feats, labels)
        prototypes = self.proto_memory.update(batch_protos)
        return dict(
            loss_ce=cross_entropy(logits, labels),
            loss_proto=weight_reduce_loss(prototype_loss(feats, prototypes, labels),
                                          self.proto_weight),
            dice=soft_dice(logits.softmax(-1), labels, self.num_classes))

    def train_step(self, data, optim_wrapper):
        with optim_wrapper.optim_context(self):
            data = self.data_preprocessor(data, True)
            losses = self._run_forward(data, mode='loss')
        parsed_losses, log_vars = self.parse_losses(losses)
        # the prototypes take part in this iteration's loss and in the next one's
        optim_wrapper.backward(parsed_losses, retain_graph=True)  # expect: TLK202
        optim_wrapper.step()
        optim_wrapper.zero_grad()
        return log_vars
