import torch as th


class RunningMeanStd:
    """
    Calulates the running mean and std of a data stream
    https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Parallel_algorithm

    (torch port of the numpy version, so that statistics of tensors already on
    the training device need no host round trip)

    :param epsilon: helps with arithmetic issues
    :param shape: the shape of the data stream's output
    """

    def __init__(self, epsilon: float = 1e-4, shape: tuple[int, ...] = ()):
        self.mean = th.zeros(shape, dtype=th.float32)
        self.var = th.ones(shape, dtype=th.float32)
        self.count = epsilon

    def update(self, arr: th.Tensor) -> None:
        batch_mean = th.mean(arr, dim=0)
        batch_var = th.var(arr, dim=0, unbiased=False)
        batch_count = arr.shape[0]
        self.update_from_moments(batch_mean, batch_var, batch_count)

    def update_from_moments(self, batch_mean: th.Tensor, batch_var: th.Tensor, batch_count: float) -> None:
        delta = batch_mean - self.mean
        tot_count = self.count + batch_count

        new_mean = self.mean + delta * batch_count / tot_count
        m_a = self.var * self.count
        m_b = batch_var * batch_count
        m_2 = m_a + m_b + th.square(delta) * self.count * batch_count / tot_count
        new_var = m_2 / tot_count

        self.mean, self.var, self.count = new_mean, new_var, tot_count  # known-miss: TLK103
