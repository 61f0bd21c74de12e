"""Key-value logging in the style of the OpenAI baselines logger: logkv() records a value for the
current step, logkv_mean() a running mean over the steps since the last dumpkvs()."""
from collections import defaultdict


class Logger:
    def __init__(self, log_dir=None):
        self.name2val = defaultdict(float)
        self.name2cnt = defaultdict(int)
        self.log_dir = log_dir

    def logkv(self, key, val):
        self.name2val[key] = val

    def logkv_mean(self, key, val):
        oldval, cnt = self.name2val[key], self.name2cnt[key]
        self.name2val[key] = oldval * cnt / (cnt + 1) + val / (cnt + 1)
        self.name2cnt[key] = cnt + 1

    def dumpkvs(self):
        out = dict(self.name2val)
        lines = [f"| {key:<20} | {float(val):<12.4g} |" for key, val in sorted(out.items())]
        print("\n".join(lines))
        self.name2val.clear()
        self.name2cnt.clear()
        return out


_CURRENT = Logger()


def get_current():
    return _CURRENT


def configure(log_dir=None):
    global _CURRENT
    _CURRENT = Logger(log_dir)
    return _CURRENT


def logkv(key, val):
    get_current().logkv(key, val)


def logkv_mean(key, val):
    get_current().logkv_mean(key, val)


def dumpkvs():
    return get_current().dumpkvs()


def log(*args):
    print(*args)
