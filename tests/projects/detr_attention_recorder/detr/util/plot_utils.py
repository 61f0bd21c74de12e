"""
Plotting utilities to visualize training logs and DETR attention.

The attention-capture hooks follow the DETR attention visualization colab linked from
the README (forward hooks on the backbone and on the last decoder layer's multihead_attn).
"""
import torch


class AttentionRecorder(object):
    """Captures backbone features and, every `every`-th forward pass, the decoder
    cross-attention maps, so that they can be drawn for the logged batches."""

    def __init__(self, model, every=4):
        self.every = every
        self.calls = 0
        self.conv_features = None
        self.dec_attn_weights = []
        self.hooks = [
            model.backbone[-2].register_forward_hook(self._save_conv_features),
            model.transformer.decoder.layers[-1].multihead_attn.register_forward_hook(
                self._save_dec_attn),
        ]

    def _save_conv_features(self, module, input, output):
        # only the most recent feature map is needed for plotting
        self.conv_features = output["0"].tensors.detach()

    def _save_dec_attn(self, module, input, output):
        # output = (attn_output, attn_output_weights averaged over heads)
        self.calls += 1
        if self.calls % self.every:
            return
        self.dec_attn_weights.append(output[1])  # known-miss: TLK102

    def summary(self):
        if not self.dec_attn_weights:
            return {}
        last = self.dec_attn_weights[-1]
        return {'attn_entropy': float(-(last * (last + 1e-8).log()).sum(-1).mean()),
                'attn_maps': len(self.dec_attn_weights)}

    def remove(self):
        for h in self.hooks:
            h.remove()
