from .logger import D3RLPyLogger, InMemoryAdapter, InMemoryAdapterFactory, LOG  # noqa: F401
