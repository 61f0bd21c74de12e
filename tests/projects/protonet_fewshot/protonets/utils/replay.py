"""Hard-episode replay: remember each training episode with its loss, replay the hardest ones
at the end of the epoch (adaptive task sampling, simplified)."""


class HardEpisodeBuffer:
    def __init__(self):
        self.episodes = []

    def push(self, sample, loss):
        self.episodes.append((loss, sample))

    def hardest(self, k):
        ranked = sorted(self.episodes, key=lambda item: float(item[0]), reverse=True)
        return [sample for _, sample in ranked[:k]]

    def clear(self):
        self.episodes = []
