import sys
from datetime import datetime
from time import time


class ProgressBar:
    def __init__(self, verbose: bool = True) -> None:
        self.verbose = verbose
        self.old_time = 0
        self.running_sum = 0.0

    def prog(self, i: int, max_iter: int, epoch, task_number: int, loss: float) -> None:
        if not self.verbose:
            if i == 0:
                self.running_sum = 0.0
            self.running_sum += loss
            return
        if i == 0:
            self.old_time = time()
            self.running_sum = 0.0
        self.running_sum += loss
        timediff = max(time() - self.old_time, 1e-6)
        progress = min(float((i + 1) / max_iter), 1)
        bar = ('█' * int(50 * progress)) + ('┈' * (50 - int(50 * progress)))
        print('\r[ {} ] Task {} | epoch {}: |{}| {} ep/h | loss: {} |'.format(
            datetime.now().strftime("%m-%d | %H:%M"), task_number + 1, epoch, bar,
            round(3600 / timediff, 2), round(self.running_sum / (i + 1), 8)), file=sys.stderr, end='', flush=True)
