#!/usr/bin/env python3
"""Finds include and import circles: groups of files that include (C, C++,
TableGen, .def) or import (Python) each other, directly or through others.

  check_circles.py [--root DIR]

A quoted #include is resolved against the including file's folder, then the
tree's include roots (lang/include, compiler/include, runtime/include,
runtime, the file's own top folder); one that resolves nowhere (a system or
generated header) is not an edge. A Python import is resolved to a sibling
module, a package under python/, or the one .py file of that name in the
tree. A file that includes itself (Highway's foreach_target re-inclusion of
an -inl.h) is not a circle; test inputs (Inputs/ folders) are not read. Prints each circle and exits 1 when there is one.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tree_files import tree_files  # noqa: E402

C_EXTS = (".h", ".hpp", ".c", ".cc", ".cpp", ".def", ".td", ".inc")
INCLUDE_ROOTS = ("lang/include", "compiler/include", "runtime/include", "runtime")
C_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TD_INCLUDE = re.compile(r'^\s*include\s+"([^"]+)"', re.M)
PY_IMPORT = re.compile(r"^\s*import\s+([\w., ]+)", re.M)
PY_FROM = re.compile(r"^\s*from\s+(\.*[\w.]*)\s+import\s+([\w, ()]+)", re.M)


def resolve_include(root, src, name):
    tops = [os.path.dirname(src)] + list(INCLUDE_ROOTS) + [src.split(os.sep)[0]]
    for t in tops:
        cand = os.path.normpath(os.path.join(t, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def python_index(files):
    by_name = {}
    for f in files:
        if f.endswith(".py"):
            by_name.setdefault(os.path.splitext(os.path.basename(f))[0], []).append(f)
    return by_name


def resolve_module(root, src, module, by_name):
    """A dotted module name as `src` would import it -> a file, or None."""
    parts = module.split(".")
    here = os.path.dirname(src)
    for base in (here, "python"):
        path = os.path.join(base, *parts)
        for cand in (path + ".py", os.path.join(path, "__init__.py")):
            if os.path.isfile(os.path.join(root, cand)):
                return os.path.normpath(cand)
    if len(parts) == 1 and len(by_name.get(parts[0], [])) == 1:
        return by_name[parts[0]][0]
    return None


def python_edges(root, src, text, by_name):
    out = []
    for m in PY_IMPORT.finditer(text):
        for item in m.group(1).split(","):
            name = item.strip().split(" as ")[0].strip()
            if name:
                out.append(resolve_module(root, src, name, by_name))
    for m in PY_FROM.finditer(text):
        mod, names = m.group(1), m.group(2).replace("(", "").replace(")", "")
        if mod.startswith("."):
            dots = len(mod) - len(mod.lstrip("."))
            pkg = os.path.dirname(src)
            for _ in range(dots - 1):
                pkg = os.path.dirname(pkg)
            rest = mod.lstrip(".")
            base = os.path.join(pkg, *rest.split(".")) if rest else pkg
            targets = [os.path.join(base, n.strip().split(" as ")[0] + ".py")
                       for n in names.split(",") if n.strip()]
            targets.append(base + ".py" if rest else os.path.join(base, "__init__.py"))
            out += [os.path.normpath(t) for t in targets if os.path.isfile(os.path.join(root, t))]
            continue
        # `from pkg import sub`: the submodule when there is one, else the package.
        for n in names.split(","):
            n = n.strip().split(" as ")[0].strip()
            if not n:
                continue
            sub = resolve_module(root, src, mod + "." + n, by_name)
            out.append(sub if sub else resolve_module(root, src, mod, by_name))
    return [t for t in out if t and t != src]


def graph(root):
    files = list(tree_files(root))
    by_name = python_index(files)
    edges = {}
    for f in files:
        path = os.path.join(root, f)
        if f.endswith(C_EXTS):
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            pat = TD_INCLUDE if f.endswith(".td") else C_INCLUDE
            deps = [resolve_include(root, f, n) for n in pat.findall(text)]
            edges[f] = sorted({d for d in deps if d and d != f})
        elif f.endswith(".py"):
            with open(path, encoding="utf-8", errors="replace") as fh:
                edges[f] = sorted(set(python_edges(root, f, fh.read(), by_name)))
    return edges


def circles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(edges.get(v, ())))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
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
                    out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = ap.parse_args()
    edges = graph(args.root)
    found = circles(edges)
    for comp in found:
        print("circle: " + " <-> ".join(comp))
    n = sum(len(v) for v in edges.values())
    print("%d files, %d include/import edges, %d circles" % (len(edges), n, len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
