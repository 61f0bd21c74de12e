from argparse import Namespace

from datasets.seq_synth import SequentialSynth
from datasets.utils.continual_dataset import ContinualDataset

NAMES = {
    SequentialSynth.NAME: SequentialSynth,
}


def get_dataset(args: Namespace) -> ContinualDataset:
    assert args.dataset in NAMES
    return NAMES[args.dataset](args)
