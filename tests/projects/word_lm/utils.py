# Modelled on pytorch/examples (word_language_model/main.py), whose repackage_hidden detaches
# the recurrent state between batches; here in a helper module.
import torch


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def move_state(h, device):
    if isinstance(h, torch.Tensor):
        return h.to(device)
    return tuple(move_state(v, device) for v in h)


def get_batch(source, i, bptt=35):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].view(-1)
