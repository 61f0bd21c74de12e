# Modelled on: https://github.com/espnet/espnet (espnet2/bin/asr_train.py -> espnet2/tasks/asr.py ASRTask,
#   espnet2/train/trainer.py Trainer.train_one_epoch, espnet2/train/reporter.py, espnet2/asr/espnet_model.py,
#   espnet2/asr/ctc.py, espnet2/layers/*_mvn.py; egs2/<corpus>/asr1/conf/train_asr_rnn.yaml)
from pathlib import Path

from espnet2mini.tasks.asr import ASRTask

CONF = Path(__file__).resolve().parent / "conf" / "train_asr_rnn.json"


def get_args(steps, config=CONF):
    args = ASRTask.load_config(config)
    args["max_steps"] = steps
    return args


def main(steps):
    """python -m espnet2.bin.asr_train --config conf/train_asr_rnn.yaml (one epoch capped at `steps`)."""
    args = get_args(steps)
    return ASRTask.main(args)


if __name__ == "__main__":
    main(10)
