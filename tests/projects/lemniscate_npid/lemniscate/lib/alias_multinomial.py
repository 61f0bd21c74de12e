import torch


class AliasMethod(object):
    """
    Sampler for the noise distribution of NCE (upstream: Walker's alias method
    from https://hips.seas.harvard.edu/blog/2013/03/03/the-alias-method-efficient-sampling-with-many-discrete-outcomes/).
    This copy draws with torch.multinomial over the same probabilities.
    """
    def __init__(self, probs):
        if probs.sum() > 1:
            probs = probs / probs.sum()
        self.probs = probs

    def cuda(self):
        return self

    def draw(self, N):
        """
        Draw N samples from multinomial
        """
        return torch.multinomial(self.probs, N, replacement=True)
