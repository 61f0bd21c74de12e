from .MemAutoInt import MemAutoInt  # noqa: F401
