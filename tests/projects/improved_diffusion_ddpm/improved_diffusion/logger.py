"""
Logger copied from OpenAI baselines to avoid extra RL-based dependencies:
https://github.com/openai/baselines/blob/ea25b9e8b234e6ee1bca43083f8f3cf974143998/baselines/logger.py

Trimmed to the key/value part used by TrainLoop (no file output formats).
"""
from collections import defaultdict

DEBUG = 10
INFO = 20
WARN = 30
DISABLED = 50


class Logger(object):
    DEFAULT = None  # A logger with no output files.
    CURRENT = None  # Current logger being used by the free functions above

    def __init__(self, dir=None, output_formats=(), comm=None):
        self.name2val = defaultdict(float)  # values this iteration
        self.name2cnt = defaultdict(int)
        self.level = INFO
        self.dir = dir
        self.output_formats = list(output_formats)
        self.comm = comm

    # Logging API, forwarded
    # ----------------------------------------
    def logkv(self, key, val):
        self.name2val[key] = val

    def logkv_mean(self, key, val):
        oldval, cnt = self.name2val[key], self.name2cnt[key]
        self.name2val[key] = oldval * cnt / (cnt + 1) + val / (cnt + 1)
        self.name2cnt[key] = cnt + 1

    def dumpkvs(self):
        d = dict(self.name2val)
        out = d.copy()  # Return the dict for unit testing purposes
        for fmt in self.output_formats:
            fmt.writekvs(d)
        self.name2val.clear()
        self.name2cnt.clear()
        return out

    def log(self, *args, level=INFO):
        if self.level <= level:
            pass

    def get_dir(self):
        return self.dir


def get_current():
    if Logger.CURRENT is None:
        Logger.CURRENT = Logger()
    return Logger.CURRENT


def logkv(key, val):
    get_current().logkv(key, val)


def logkv_mean(key, val):
    """
    The same as logkv(), but if called many times, values averaged.
    """
    get_current().logkv_mean(key, val)


def dumpkvs():
    """
    Write all of the diagnostics from the current iteration
    """
    return get_current().dumpkvs()


def log(*args, level=INFO):
    get_current().log(*args, level=level)


def warn(*args):
    log(*args, level=WARN)


def get_dir():
    return get_current().get_dir()


def configure(dir=None, format_strs=None, comm=None, log_suffix=""):
    Logger.CURRENT = Logger(dir=dir, comm=comm)
    log("Logging to %s" % dir)
