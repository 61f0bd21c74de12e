from dataclasses import dataclass

_METHODS = {}


def register_method(cls):
    _METHODS[cls.__name__.lower()] = cls
    return cls


def get_method(name: str):
    return _METHODS[name.lower()]


@dataclass
@register_method
class MethodConfig:
    """Config for a certain RL method."""

    name: str

    @classmethod
    def from_dict(cls, config):
        return cls(**config)
