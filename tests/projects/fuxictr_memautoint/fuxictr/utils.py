import logging


def not_in_whitelist(element, whitelist=[]):
    if not whitelist:
        return False
    elif type(whitelist) == list:
        return element not in whitelist
    else:
        return element != whitelist


class Monitor(object):
    def __init__(self, kv):
        if isinstance(kv, str):
            kv = {kv: 1}
        self.kv_pairs = kv

    def get_value(self, logs):
        value = 0
        for k, v in self.kv_pairs.items():
            value += logs.get(k, 0) * v
        return value

    def get_metrics(self):
        return list(self.kv_pairs.keys())


def print_to_list(data):
    return " - ".join("{}: {:.6f}".format(k, v) for k, v in data.items())


def set_logger(level=logging.INFO):
    logging.basicConfig(level=level, format="%(asctime)s P%(process)d %(levelname)s %(message)s")
