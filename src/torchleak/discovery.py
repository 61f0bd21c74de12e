"""Which files a run lints: the paths given, directories walked as ruff walks them.

A directory is searched recursively for ``*.py`` and ``*.ipynb``. The walk skips what ruff
skips by default (``DEFAULT_EXCLUDE``, and any directory holding a ``pyvenv.cfg``: a virtual
environment), what ``.gitignore`` files, ``.git/info/exclude`` and git's global excludes file
(``core.excludesFile``, found in git's configuration files without running git) ignore inside
a git repository (matched by ``pathspec``, git's own rules), and the ``exclude`` patterns of the
configuration that applies to each directory. Files named on the command line are always
linted, unless ``force_exclude``: then the exclusions apply to them too (pre-commit names
every file).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Final, Optional

#: ruff's default ``exclude``, plus ``__pycache__`` and the other version-control folders.
DEFAULT_EXCLUDE: Final = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
    ".vscode", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv", "CVS", "*.egg",
)
SUFFIXES: Final = (".py", ".ipynb")


@dataclass(frozen=True)
class Exclusions:
    """The ``exclude`` patterns of one configuration and the directory they are relative to."""

    patterns: tuple[str, ...] = ()
    root: str = "."

    def matches(self, path: str) -> bool:
        """A glob matches the path relative to ``root``, the path as given, or its name."""
        relative = Path(os.path.relpath(os.path.abspath(path), self.root)).as_posix()
        forms = (Path(path).as_posix(), relative, os.path.basename(path))
        return any(fnmatch.fnmatch(form, pattern) for form in forms for pattern in self.patterns)


@dataclass
class Discovered:
    files: list[str] = field(default_factory=list)
    #: (path, message) for each directory that could not be read.
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    #: Paths given that hold no Python file or notebook (after exclusions).
    empty: list[str] = field(default_factory=list)


def _default_excluded(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in DEFAULT_EXCLUDE)


def _git_top(directory: Path) -> Optional[Path]:
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


_FALSE: Final = ("", "0", "false", "no", "off")


def _home() -> Optional[Path]:
    try:
        return Path.home()
    except (RuntimeError, KeyError):  # no HOME and no password entry
        return None


def _xdg_config_home() -> Optional[Path]:
    home = _home()
    configured = os.environ.get("XDG_CONFIG_HOME")
    return Path(configured) if configured else home / ".config" if home else None


def _config_files(top: Path) -> list[Path]:
    """git's configuration files, lowest priority first: the system's, the user's (the XDG one,
    then ``~/.gitconfig``; or ``GIT_CONFIG_GLOBAL``), the repository's."""
    files: list[Path] = []
    if os.environ.get("GIT_CONFIG_NOSYSTEM", "").strip().lower() in _FALSE:
        files.append(Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        files.append(Path(os.environ["GIT_CONFIG_GLOBAL"]).expanduser())
    else:
        xdg, home = _xdg_config_home(), _home()
        files += [xdg / "git" / "config"] if xdg else []
        files += [home / ".gitconfig"] if home else []
    return [*files, top / ".git" / "config"]


def _config_value(text: str, section: str, name: str) -> Optional[str]:
    """The last value of ``section.name`` (a section without subsection) in git-config syntax:
    names case-insensitive, quoted values with escapes, ``#``/``;`` comments, backslash
    continuations. ``[include]`` files are not followed."""
    value: Optional[str] = None
    current = ""
    for line in re.sub(r"\\\r?\n", "", text).splitlines():
        rest = line.strip()
        if rest.startswith("["):
            header, bracket, rest = rest[1:].partition("]")
            header = header.strip()
            # [core] only: not [core "x"], nor the old [core.x] spelling of a subsection.
            current = header.lower() if bracket and not re.search(r'[\s".]', header) else ""
            rest = rest.strip()
        match = re.match(r"([A-Za-z][A-Za-z0-9-]*)\s*(=?)(.*)", rest)
        if match and current == section and match.group(1).lower() == name.lower():
            value = _unquote(match.group(3)) if match.group(2) else None
    return value


def _unquote(raw: str) -> str:
    """A git-config value: quotes removed, escapes read, a comment cut, outer blanks trimmed."""
    out: list[str] = []
    quoted = False
    kept = 0  # how much of ``out`` survives trimming the trailing blanks outside quotes
    characters = iter(raw)
    for char in characters:
        if char == '"':
            quoted = not quoted
        elif char == "\\":
            escaped = next(characters, "")
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(escaped, escaped))
        elif char in "#;" and not quoted:
            break
        elif char.isspace() and not quoted:
            if out:
                out.append(char)
            continue
        else:
            out.append(char)
        kept = len(out)
    return "".join(out[:kept])


def global_excludes_file(top: Path) -> Optional[Path]:
    """The file ``core.excludesFile`` names for the repository at ``top``, as git resolves it
    (``~`` expanded, a relative path from the top); when unset, ``$XDG_CONFIG_HOME/git/ignore``
    (``~/.config/git/ignore``), as git, ripgrep and ruff read it."""
    configured: Optional[str] = None
    for file in _config_files(top):
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        configured = _config_value(text, "core", "excludesfile") or configured
    if configured:
        return top / os.path.expanduser(configured)
    xdg = _xdg_config_home()
    return xdg / "git" / "ignore" if xdg else None


class _GitIgnore:
    """The ignore rules in force in one git repository, read as the walk reaches each folder."""

    def __init__(self, top: Path) -> None:
        import pathspec

        self._pathspec = pathspec
        self.top = top
        #: (directory, spec), lowest priority first, as in git: the global excludes file, then
        #: .git/info/exclude, then the .gitignore files, deeper ones overriding outer ones.
        self.specs: dict[Path, tuple[Path, Any]] = {}
        excludes = global_excludes_file(top)
        if excludes is not None:
            self._read(excludes, top, key=top / ".git" / "core.excludesFile")
        self._read(top / ".git" / "info" / "exclude", top, key=top / ".git")

    def _read(self, file: Path, base: Path, key: Optional[Path] = None) -> None:
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        self.specs[key or base] = (base, self._pathspec.GitIgnoreSpec.from_lines(lines))

    def enter(self, directory: Path) -> None:
        if directory not in self.specs:
            self._read(directory / ".gitignore", directory)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        decision: Optional[bool] = None
        for base, spec in self.specs.values():
            try:
                relative = path.relative_to(base).as_posix()
            except ValueError:
                continue
            result = spec.check_file(relative + ("/" if is_dir else ""))
            if result.include is not None:
                decision = result.include
        return bool(decision)


def discover(
    paths: Sequence[str],
    exclusions_for: Callable[[str], Exclusions],
    *,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> Discovered:
    """The files to lint under ``paths``, in a stable order; ``exclusions_for(directory)`` gives
    the ``exclude`` of the configuration that applies there."""
    found = Discovered()
    for raw in paths:
        if raw == "-":
            found.files.append(raw)
            continue
        if not os.path.isdir(raw):
            if not force_exclude or not excluded_by_name(raw, exclusions_for(os.path.dirname(raw) or ".")):
                found.files.append(raw)
            continue
        before = len(found.files)
        found.files.extend(_walk(raw, exclusions_for, respect_gitignore, found.unreadable))
        if len(found.files) == before and not any(path == raw or path.startswith(raw) for path, _ in found.unreadable):
            found.empty.append(raw)
    return found


def excluded_by_name(path: str, exclusions: Exclusions, defaults: bool = True) -> bool:
    """``--force-exclude`` for a named file: its own name, a folder on its way below the
    configuration's directory, or the path, matches a default or configured pattern."""
    absolute = Path(os.path.abspath(path))
    root = Path(os.path.abspath(exclusions.root))
    try:
        below = absolute.relative_to(root).parts
    except ValueError:
        below = (absolute.name,)
    if defaults and any(_default_excluded(part) for part in below):
        return True
    return any(exclusions.matches(str(root.joinpath(*below[: index + 1]))) for index in range(len(below))) or exclusions.matches(path)


def _walk(
    start: str, exclusions_for: Callable[[str], Exclusions], respect_gitignore: bool, unreadable: list[tuple[str, str]]
) -> list[str]:
    top = _git_top(Path(os.path.abspath(start))) if respect_gitignore else None
    gitignore = _GitIgnore(top) if top is not None else None
    if gitignore is not None:
        # .gitignore files between the repository's top and the starting folder apply too.
        absolute = Path(os.path.abspath(start))
        for folder in reversed((absolute, *absolute.parents)):
            if folder == top or top in folder.parents:
                gitignore.enter(folder)

    def onerror(error: OSError) -> None:
        unreadable.append((error.filename or start, f"cannot read: {error.strerror or error}"))

    result: list[str] = []
    for directory, directories, files in os.walk(start, onerror=onerror):
        absolute = Path(os.path.abspath(directory))
        if gitignore is not None:
            gitignore.enter(absolute)
        exclusions = exclusions_for(directory)

        def keep(name: str, is_dir: bool) -> bool:
            path = os.path.join(directory, name)
            if _default_excluded(name) or exclusions.matches(path):
                return False
            if is_dir and os.path.isfile(os.path.join(path, "pyvenv.cfg")):
                return False
            return gitignore is None or not gitignore.ignored(absolute / name, is_dir)

        directories[:] = sorted(name for name in directories if keep(name, True))
        result.extend(os.path.join(directory, name) for name in sorted(files) if name.endswith(SUFFIXES) and keep(name, False))
    # os.walk is depth first with sorted folders, files before subfolders: sort for one order.
    return sorted(result)
