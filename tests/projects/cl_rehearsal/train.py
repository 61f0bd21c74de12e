# Modelled on: https://github.com/aimagelab/mammoth
"""
Entry point: rehearsal-based class-incremental learning (DER++) with a frozen
feature extractor and a linear classifier, on a synthetic deterministic stream.
"""
from argparse import Namespace

from datasets import get_dataset
from models import get_model
from utils.conf import set_random_seed
from utils.training import train


def parse_args(steps: int) -> Namespace:
    return Namespace(
        dataset='seq-synth',
        model='derpp',
        lr=0.05,
        optim_wd=0.0,
        optim_mom=0.0,
        batch_size=32,
        minibatch_size=32,
        buffer_size=2000,
        alpha=0.3,
        beta=0.5,
        n_epochs=1,
        seed=0,
        freeze_backbone=True,
        online_eval=True,
        max_iters=steps,
        non_verbose=True,
    )


def main(steps: int = 30):
    args = parse_args(steps)
    set_random_seed(args.seed)
    dataset = get_dataset(args)
    backbone = dataset.get_backbone()
    model = get_model(args, backbone, dataset.get_loss(), dataset.get_transform())

    results, results_mask_classes, logger, online = train(model, dataset, args)
    return {
        'model': model,
        'buffer': model.buffer,
        'logger': logger,
        'online': online,
        'results': results,
        'results_mask_classes': results_mask_classes,
    }


if __name__ == '__main__':
    out = main(30)
    print(out['logger'].dump())
