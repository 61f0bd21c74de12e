# Modelled on yolox/data/data_prefetcher.py (no CUDA streams on CPU).
class DataPrefetcher:
    def __init__(self, loader):
        self.loader = loader
        self.loader_iter = iter(loader)
        self.preload()

    def preload(self):
        try:
            self.next_input, self.next_target, _, _ = next(self.loader_iter)
        except StopIteration:
            self.loader_iter = iter(self.loader)
            self.next_input, self.next_target, _, _ = next(self.loader_iter)

    def next(self):
        input = self.next_input
        target = self.next_target
        self.preload()
        return input, target
