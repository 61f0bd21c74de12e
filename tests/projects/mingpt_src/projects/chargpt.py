# Modelled on karpathy/minGPT (projects/chargpt/chargpt.py): a script that builds the trainer.
from mingpt.trainer import Trainer


def main(config, loader):
    trainer = Trainer(config, loader)
    trainer.run()
