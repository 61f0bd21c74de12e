"""
Logger adapted from OpenAI baselines (key/value store that is dumped every
``log_interval`` steps).  Output formats are kept in memory so that a run can
be inspected afterwards.
"""

import io
import sys
from collections import defaultdict

DEBUG = 10
INFO = 20
WARN = 30
ERROR = 40
DISABLED = 50


class KVWriter(object):
    def writekvs(self, kvs):
        raise NotImplementedError


class SeqWriter(object):
    def writeseq(self, seq):
        raise NotImplementedError


class HumanOutputFormat(KVWriter, SeqWriter):
    def __init__(self, file):
        self.file = file

    def writekvs(self, kvs):
        key2str = {}
        for (key, val) in sorted(kvs.items()):
            if hasattr(val, "__float__"):
                valstr = "%-8.3g" % val
            else:
                valstr = str(val)
            key2str[key[:27]] = valstr[:27]
        if not key2str:
            return
        keywidth = max(map(len, key2str.keys()))
        valwidth = max(map(len, key2str.values()))
        dashes = "-" * (keywidth + valwidth + 7)
        lines = [dashes]
        for key, val in sorted(key2str.items(), key=lambda kv: kv[0].lower()):
            lines.append(
                "| %s%s | %s%s |"
                % (key, " " * (keywidth - len(key)), val, " " * (valwidth - len(val)))
            )
        lines.append(dashes)
        self.file.write("\n".join(lines) + "\n")

    def writeseq(self, seq):
        self.file.write(" ".join(seq) + "\n")

    def close(self):
        pass


class RecordOutputFormat(KVWriter):
    """Keeps every dumped key/value dict (plain floats) in ``self.records``."""

    def __init__(self):
        self.records = []

    def writekvs(self, kvs):
        self.records.append({k: float(v) for k, v in kvs.items()})

    def close(self):
        pass


# ================================================================
# API
# ================================================================


def logkv(key, val):
    get_current().logkv(key, val)


def logkv_mean(key, val):
    get_current().logkv_mean(key, val)


def logkvs(d):
    for (k, v) in d.items():
        logkv(k, v)


def dumpkvs():
    return get_current().dumpkvs()


def getkvs():
    return get_current().name2val


def log(*args, level=INFO):
    get_current().log(*args, level=level)


def warn(*args):
    log(*args, level=WARN)


def get_records():
    for fmt in get_current().output_formats:
        if isinstance(fmt, RecordOutputFormat):
            return fmt.records
    return []


# ================================================================
# Backend
# ================================================================


def get_current():
    if Logger.CURRENT is None:
        configure()
    return Logger.CURRENT


class Logger(object):
    DEFAULT = None
    CURRENT = None

    def __init__(self, output_formats):
        self.name2val = defaultdict(float)  # values this iteration
        self.name2cnt = defaultdict(int)
        self.level = INFO
        self.output_formats = output_formats

    def logkv(self, key, val):
        self.name2val[key] = val

    def logkv_mean(self, key, val):
        oldval, cnt = self.name2val[key], self.name2cnt[key]
        self.name2val[key] = oldval * cnt / (cnt + 1) + val / (cnt + 1)
        self.name2cnt[key] = cnt + 1

    def dumpkvs(self):
        d = self.name2val
        out = d.copy()
        for fmt in self.output_formats:
            if isinstance(fmt, KVWriter):
                fmt.writekvs(d)
        self.name2val.clear()
        self.name2cnt.clear()
        return out

    def log(self, *args, level=INFO):
        if self.level <= level:
            for fmt in self.output_formats:
                if isinstance(fmt, SeqWriter):
                    fmt.writeseq(map(str, args))

    def close(self):
        for fmt in self.output_formats:
            fmt.close()


def configure(stream=None, verbose=False):
    formats = [RecordOutputFormat()]
    if verbose:
        formats.append(HumanOutputFormat(stream or sys.stdout))
    else:
        formats.append(HumanOutputFormat(io.StringIO()))
    Logger.CURRENT = Logger(output_formats=formats)
