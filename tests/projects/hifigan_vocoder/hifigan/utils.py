import glob
import os
from collections import defaultdict

import torch
from torch.nn.utils import weight_norm


def init_weights(m, mean=0.0, std=0.01):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        m.weight.data.normal_(mean, std)


def apply_weight_norm(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        weight_norm(m)


def get_padding(kernel_size, dilation=1):
    return int((kernel_size*dilation - dilation)/2)


def load_checkpoint(filepath, device):
    assert os.path.isfile(filepath)
    print("Loading '{}'".format(filepath))
    checkpoint_dict = torch.load(filepath, map_location=device)
    print("Complete.")
    return checkpoint_dict


def save_checkpoint(filepath, obj):
    print("Saving checkpoint to {}".format(filepath))
    torch.save(obj, filepath)
    print("Complete.")


def scan_checkpoint(cp_dir, prefix):
    pattern = os.path.join(cp_dir, prefix + '????????')
    cp_list = glob.glob(pattern)
    if len(cp_list) == 0:
        return None
    return sorted(cp_list)[-1]


class SummaryWriter(object):
    """Minimal in-memory stand-in for torch.utils.tensorboard.SummaryWriter
    (tensorboard is not installed on the training box); keeps every scalar so
    that the curves can be dumped to json at the end of the run."""

    def __init__(self, log_dir=None):
        self.log_dir = log_dir
        self.scalars = defaultdict(list)
        self.audios = {}

    def add_scalar(self, tag, scalar_value, global_step=None):
        self.scalars[tag].append((global_step, scalar_value))  # known-miss: TLK102

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=22050):
        # only the latest clip per tag is kept
        self.audios[tag] = (global_step, snd_tensor.detach().cpu(), sample_rate)

    def close(self):
        pass


def summarize(writer, global_step, scalars={}, audios={}, audio_sampling_rate=22050):
    for k, v in scalars.items():
        writer.add_scalar(k, v, global_step)
    for k, v in audios.items():
        writer.add_audio(k, v, global_step, audio_sampling_rate)
