import logging

WARNING = logging.WARNING


def get_logger(name: str) -> logging.Logger:
    logger = logging.getLogger(name)
    logger.setLevel(logging.WARNING)
    return logger


def get_verbosity() -> int:
    return logging.WARNING


class tqdm:
    """No-op progress bar with the subset of the tqdm API trlx uses."""

    def __init__(self, *args, **kwargs):
        self.n = kwargs.get("initial", 0)

    def set_description(self, desc: str):
        self.desc = desc

    def update(self, n: int = 1):
        self.n += n

    def close(self):
        pass
