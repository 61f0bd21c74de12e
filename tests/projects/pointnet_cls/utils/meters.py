# Modelled on the AverageMeter of pytorch/examples (imagenet/main.py), the meter most
# point-cloud forks add next to train_classification.py's mean_correct list.
class AverageMeter(object):
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val, self.sum, self.count, self.avg = 0, 0, 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count
