# --------------------------------------------------------
# Forward hooks used to monitor the encoder during pre-training
# --------------------------------------------------------
from collections import defaultdict

import torch


class ActivationNormMonitor(object):
    """Per-block mean token norm, logged every iteration."""

    def __init__(self, blocks, prefix='blocks'):
        self.norms = defaultdict(list)
        self.handles = []
        for i, blk in enumerate(blocks):
            self.handles.append(blk.register_forward_hook(self._make_hook('{}.{}'.format(prefix, i))))

    def _make_hook(self, name):
        def hook(module, input, output):
            with torch.no_grad():
                self.norms[name].append(output.norm(dim=-1).mean().item())
        return hook

    def last(self):
        return {k: v[-1] for k, v in self.norms.items() if len(v)}

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []


class ClsTokenRecorder(object):
    """Records, for every training batch, the per-dimension std of the [CLS] feature of a block
    (a cheap collapse check) for the end-of-epoch representation report."""

    def __init__(self, block, name='cls'):
        self.name = name
        self.feat_stds = []
        self.handle = block.register_forward_hook(self.hook)

    def hook(self, module, input, output):
        if module.training:
            self.feat_stds.append(output[:, 0].std(dim=0).mean())  # expect: TLK102

    def summary(self):
        if len(self.feat_stds) == 0:
            return {}
        stds = torch.tensor([float(s) for s in self.feat_stds])
        return {self.name + '_feat_std': stds.mean().item(),
                self.name + '_feat_std_min': stds.min().item()}

    def remove(self):
        self.handle.remove()
