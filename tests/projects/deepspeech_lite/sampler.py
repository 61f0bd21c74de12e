import torch
from torch.utils.data import Sampler


class ConfidenceCurriculumSampler(Sampler):
    """After the first epoch, batches are drawn hardest-first: utterances on which the
    acoustic model was least confident (mean max-posterior over frames) come first."""

    def __init__(self, data_source, batch_size=8, seed=0):
        super(ConfidenceCurriculumSampler, self).__init__()
        self.data_source = data_source
        self.batch_size = batch_size
        self.scores = {}
        self.generator = torch.Generator().manual_seed(seed)

    def update(self, indices, log_probs, output_lengths):
        # log_probs: T x N x C
        max_post = log_probs.exp().max(dim=-1)[0]  # T x N
        for i, idx in enumerate(indices.tolist()):
            conf = max_post[: int(output_lengths[i]), i].mean()
            self.scores[idx] = conf  # expect: TLK102

    def __iter__(self):
        order = torch.randperm(len(self.data_source), generator=self.generator).tolist()
        if self.scores:
            order.sort(key=lambda i: float(self.scores.get(i, 0.0)))
        for s in range(0, len(order) - self.batch_size + 1, self.batch_size):
            yield order[s:s + self.batch_size]

    def __len__(self):
        return len(self.data_source) // self.batch_size
