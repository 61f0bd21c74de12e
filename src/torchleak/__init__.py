"""torchleak: find autograd memory leaks in PyTorch training code, statically."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from torchleak.rule import Finding

try:
    __version__ = version("torchleak")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["Finding", "__version__"]
