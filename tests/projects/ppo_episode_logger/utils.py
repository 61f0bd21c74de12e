"""Logging helpers."""
import time


class EpisodeLogger:
    """Keeps per-update diagnostics so they can be dumped at the end of training."""

    def __init__(self, name="ppo"):
        self.name = name
        self.history = {}
        self.start = time.time()

    def log(self, **scalars):
        for key, value in scalars.items():
            self.history.setdefault(key, []).append(value)  # expect: TLK102

    def last(self, key):
        vals = self.history.get(key)
        return vals[-1] if vals else None

    def summary(self):
        out = {}
        for key, vals in self.history.items():
            out[key] = float(sum(float(v) for v in vals) / max(len(vals), 1))
        out["elapsed"] = time.time() - self.start
        return out


def explained_variance(values, returns):
    var_ret = returns.var()
    if var_ret.item() == 0:
        return 0.0
    return (1.0 - (returns - values).var() / var_ret).item()
