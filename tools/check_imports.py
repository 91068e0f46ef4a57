"""Fail when the dccsim Python modules import each other in a cycle.

Builds the graph of imports between the modules of one package (default: python/dccsim) from
their source (ast, nothing is imported or run): module-level imports and imports inside
functions alike, absolute (`dccsim.x`) and relative (`from ..x import y`). An import inside a
function hides a cycle from Python but not from the layering, so it counts the same.

An edge goes to the module that is named: `from . import runner` -> dccsim.runner,
`from .analysis import ANALYSES` -> dccsim.analysis (the package's __init__), `import dccsim.x.y`
-> dccsim.x.y. Importing a submodule also runs its parents' __init__, but a package holding its
own submodules is not a layering cycle, so that implied edge is left out.

    python tools/check_imports.py [PACKAGE_DIR]

Exit 0: no cycle. Exit 1: each cycle on one line (`a -> b -> a`), with the file and line of
every import on it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

# (importer, imported) edges allowed to close a cycle, each with its reason. Empty: every cycle
# so far was removed by moving code to the layer it belongs to.
ALLOWED: dict[tuple[str, str], str] = {}


def module_name(pkg_dir: Path, path: Path) -> str:
    parts = [pkg_dir.name, *path.relative_to(pkg_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(pkg_dir: Path) -> dict[str, Path]:
    """{module: its .py file}; compiled modules (`_engine.abi3.so`) are listed too, as leaves."""
    files = {module_name(pkg_dir, p): p for p in sorted(pkg_dir.rglob("*.py"))}
    for ext in ("*.so", "*.pyd"):
        for p in sorted(pkg_dir.rglob(ext)):
            files.setdefault(module_name(pkg_dir, p.with_name(p.name.split(".")[0] + ".py")), p)
    return files


def imports(pkg_dir: Path, files: dict[str, Path]) -> dict[str, dict[str, int]]:
    """{module: {imported module of the package: line of its first import}}."""
    graph: dict[str, dict[str, int]] = {}
    for mod, path in files.items():
        edges: dict[str, int] = {}
        if path.suffix == ".py":
            for target, line in _named(pkg_dir.name, mod, path, files):
                if target != mod and target in files:
                    edges.setdefault(target, line)
        graph[mod] = edges
    return graph


def _named(root: str, mod: str, path: Path, files: dict[str, Path]):
    """(module, line) for every import in `path` that names a module of the package `root`."""
    here = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == root or a.name.startswith(root + "."):
                    yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level > len(here):
                    continue  # above the package: not ours
                base = here[: len(here) - (node.level - 1)]
                if node.module:
                    base = base + node.module.split(".")
            elif node.module and (node.module == root or node.module.startswith(root + ".")):
                base = node.module.split(".")
            else:
                continue
            b = ".".join(base)
            for a in node.names:
                sub = f"{b}.{a.name}"
                yield (sub if sub in files else b), node.lineno


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan), each as
    a path a -> ... -> a through the component, the allowed edges removed first."""
    g = {m: [t for t in sorted(e) if (m, t) not in ALLOWED] for m, e in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        # iterative Tarjan: the graph is small, but recursion depth should not depend on it
        work = [(v, iter(g[v]))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(g[nxt])))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

    for m in sorted(g):
        if m not in index:
            strong(m)
    return [_path(g, c) for c in comps]


def _path(g: dict[str, list[str]], comp: list[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first)."""
    inside = set(comp)
    start = comp[0]
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in g[v]:
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected component without a cycle")


def main(argv: list[str]) -> int:
    pkg_dir = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "python" / "dccsim"
    files = sources(pkg_dir)
    graph = imports(pkg_dir, files)
    found = cycles(graph)
    for c in found:
        print("import cycle: " + " -> ".join(c))
        for a, b in zip(c, c[1:]):
            where = files[a].relative_to(pkg_dir.parent)
            print(f"  {where}:{graph[a][b]}: {a} imports {b}")
    if found:
        print(f"{len(found)} import cycle(s) among {pkg_dir.name} modules", file=sys.stderr)
        return 1
    n = sum(len(e) for e in graph.values())
    print(f"no import cycles: {len(graph)} modules, {n} imports")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
