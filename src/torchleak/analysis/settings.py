"""Names a project adds to the built-in vocabulary (``[tool.torchleak]``, flake8 options), and
where the linted source lives (for the project index)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Origin:
    """The file a source was read from, so that its imports of the project's own modules can be
    followed (``analysis/project.py``), and where their summaries are cached."""

    path: str
    #: The cache directory; None: ``.torchleak_cache`` at the project root.
    cache_dir: Optional[str] = None
    #: False: ``--no-cache`` or ``TORCHLEAK_NO_CACHE=1`` (summaries are still computed).
    use_cache: bool = True
    #: The directory given on the command line that the file was found under: the project root
    #: when no marker file says otherwise and the run started elsewhere.
    linted_directory: Optional[str] = None


@dataclass(frozen=True)
class Settings:
    model_names: frozenset[str] = frozenset()
    loss_names: frozenset[str] = frozenset()
    per_batch_methods: frozenset[str] = frozenset()
    #: None: the source stands alone (stdin, tests); its imports stay unknown.
    origin: Optional[Origin] = None

    def vocabulary_key(self) -> str:
        """The names that change what a summary says, as a string (part of cache keys)."""
        return "|".join(",".join(sorted(names)) for names in (self.model_names, self.loss_names, self.per_batch_methods))
