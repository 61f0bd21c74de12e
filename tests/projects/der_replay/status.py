# Modelled on utils/status.py of aimagelab/mammoth: a progress bar that the training loop calls
# once per batch with the iteration, the epoch, the task and the loss; here it also keeps the
# running loss of the task for its closing line.
import sys


class ProgressBar:
    def __init__(self, verbose=True):
        self.verbose = verbose
        self.running_loss = 0
        self.batches = 0

    def reset(self):
        self.running_loss = 0
        self.batches = 0

    def prog(self, i, max_iter, epoch, task_number, loss):
        self.running_loss += loss
        self.batches += 1
        if self.verbose and (i + 1) % 10 == 0:
            print(f"[ {task_number} | epoch {epoch} ] {i + 1}/{max_iter} loss: {float(loss):.4f}", file=sys.stderr)

    def summary(self):
        return self.running_loss / max(self.batches, 1)
