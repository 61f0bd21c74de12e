"""Import aliases and dotted names: ``F.cross_entropy`` is ``torch.nn.functional.cross_entropy``."""

from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from torchleak.analysis import memo


#: The aliases PyTorch code uses by convention, for snippets that leave out their imports.
_CONVENTIONAL = {"nn": "torch.nn", "F": "torch.nn.functional", "optim": "torch.optim"}


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes, else None (calls, subscripts, ...)."""
    # Exact types: libcst's classes are ABCs, whose isinstance is slow, and this runs for every
    # name the analysis reads (about nine times per attribute node of a file, hence the cache).
    if type(node) is cst.Name:
        return node.value
    if type(node) is not cst.Attribute:
        return None
    if memo.depth:
        entry = _DOTTED.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]  # type: ignore[no-any-return]
    start = node
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    found = None
    if type(node) is cst.Name:
        parts.append(node.value)
        found = ".".join(reversed(parts))
    if memo.depth:
        _DOTTED[id(start)] = (start, found)
    return found


_DOTTED = memo.node_cache()



def method_on_self(func: cst.BaseExpression) -> Optional[str]:
    """``name`` for ``self.name`` (the callee of ``self.name(...)``), else None."""
    if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
        return func.attr.value
    return None

def last_identifier(node: cst.BaseExpression) -> Optional[str]:
    """The identifier a callee is known by: ``model`` for ``self.model``, ``net`` for ``net``."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return node.attr.value
    return None


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportAliases:
    """Maps the local names bound by imports to the qualified names they stand for."""

    def __init__(self, statements: Iterable[cst.CSTNode]) -> None:
        self._aliases: dict[str, str] = {}
        #: ``qualify``'s answers, by ``id`` of the node (kept with it: an id is reused only
        #: after its node dies); emptied by ``add``.
        self._qualified: dict[int, tuple[cst.BaseExpression, Optional[str]]] = {}
        for statement in statements:
            self.add(statement)

    def add(self, node: cst.CSTNode) -> None:
        self._qualified.clear()
        if type(node) is cst.Import:
            for alias in node.names:
                full = _module_name(alias.name)
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    self._aliases[alias.asname.name.value] = full
                else:
                    # `import torch.nn` binds `torch`, which then qualifies to itself.
                    root = full.split(".")[0]
                    self._aliases.setdefault(root, root)
        elif type(node) is cst.ImportFrom and node.relative == () and node.module is not None:
            module = _module_name(node.module)
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                imported = _module_name(alias.name)
                local = imported
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    local = alias.asname.name.value
                self._aliases[local] = f"{module}.{imported}"

    def binds(self, name: str) -> bool:
        """An import binds ``name`` (``torch``, ``F``): a module or function, not data."""
        return name in self._aliases

    def local_name(self, qualified: str) -> Optional[str]:
        """The name an import binds to the module ``qualified`` (``th`` after ``import torch as th``)."""
        return next((local for local, target in self._aliases.items() if target == qualified), None)

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified dotted name of ``node``; names no import binds are returned as written."""
        entry = self._qualified.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]
        found = self._qualify(node)
        self._qualified[id(node)] = (node, found)
        return found

    def _qualify(self, node: cst.BaseExpression) -> Optional[str]:
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self._aliases.get(head, _CONVENTIONAL.get(head) if rest else None)
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target
