"""Module-level import graph of a crate and its cycles.

Usage: python3 .ci/circles.py SRC_DIR...   (each a crate's src/, checked on its own)
       python3 .ci/circles.py --self-test

Reads every `use` tree in full (nested groups such as `use crate::{a::{b::X}, c}` included, with
`self`, globs and `as`), and every `crate::`/`super::`/`self::` path written inline. Doc comments
count too: a doc link up to a module's user is a dependency of its documentation. Unit-test
modules (`#[cfg(test)] mod tests { .. }` at the end of a file) do not count. Prints every cycle
with its edges and exits 1 when there is one, 0 and "no import circles" otherwise."""
import os
import re
import sys
import tempfile


def modules(root):
    """Module path (tuple) -> file, for every .rs file under root."""
    mods = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".rs"):
                p = os.path.join(d, f)
                rel = os.path.relpath(p, root)[:-3].split(os.sep)
                if rel[-1] in ("mod", "lib", "main"):
                    rel = rel[:-1]
                mods[tuple(rel)] = p
    return mods


def split_top(s):
    """Splits a use-group body at its top-level commas."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def expand(tree, prefix=""):
    """Every full path a use tree names (aliases already cut): `a::{b::{c, self}, d::*}` ->
    a::b::c, a::b, a::d."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        path = prefix + tree
        for tail in ("::*", "::self"):
            if path.endswith(tail):
                path = path[: -len(tail)]
        return [path]
    head = prefix + tree[:brace]
    out = []
    for part in split_top(tree[brace + 1 : tree.rfind("}")]):
        out.extend(expand(part, head))
    return out


TESTS = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests\b")
USE = re.compile(r"\buse\s+((?:crate|super|self)\b[^;]*);", re.S)
INLINE = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")


def use_paths(src):
    """Every path named by the `use` items of a file (aliases cut before spaces are removed)."""
    paths = []
    for tree in USE.findall(src):
        tree = re.sub(r"\s+as\s+\w+", "", tree)
        paths.extend(expand(tree))
    return paths


def resolve(mods, cur, path):
    """The deepest module of `mods` that `path`, written in module `cur`, names."""
    parts = path.split("::")
    if parts[0] == "crate":
        base, parts = [], parts[1:]
    elif parts[0] == "super":
        base, parts = list(cur[:-1]), parts[1:]
        while parts and parts[0] == "super":
            base, parts = base[:-1], parts[1:]
    elif parts[0] == "self":
        base, parts = list(cur), parts[1:]
    else:
        return None
    best = tuple(base) if tuple(base) in mods else None
    m = list(base)
    for p in parts:
        m.append(p)
        if tuple(m) in mods:
            best = tuple(m)
        else:
            break
    return best


def strip_tests(src):
    """The file without its unit-test module at the end."""
    m = TESTS.search(src)
    return src[: m.start()] if m else src


def graph(root):
    """Module -> the modules it names (not its own ancestors: a child may use its parent)."""
    mods = modules(root)
    edges = {m: set() for m in mods}
    for m, p in mods.items():
        src = strip_tests(open(p, encoding="utf-8").read())
        paths = use_paths(src) + INLINE.findall(USE.sub("", src))
        for path in paths:
            t = resolve(mods, m, path)
            if t is not None and t != m and not (len(t) < len(m) and m[: len(t)] == t):
                edges[m].add(t)
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    idx, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        idx[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in idx:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in edges:
        if v not in idx:
            visit(v)
    return out


def report(root):
    """Prints the cycles of the crate at root; returns how many there are."""
    edges = graph(root)
    found = cycles(edges)
    for comp in found:
        names = sorted("/".join(x) for x in comp)
        print(f"{root}: cycle:", ", ".join(names))
        for a in sorted(comp):
            for b in sorted(edges[a]):
                if b in comp:
                    print("   ", "/".join(a), "->", "/".join(b))
    return len(found)


def self_test():
    """A circle written with nested groups, aliases and `self` is found; a tree without one is
    not."""
    named = sorted(use_paths("use crate::{a::{b::X, c::{self, D}}, e as f, g::*};"))
    assert named == ["crate::a::b::X", "crate::a::c", "crate::a::c::D", "crate::e", "crate::g"], named
    cases = {
        "nested": ({"a/mod.rs": "pub mod b;", "a/b.rs": "use crate::{c::{d::Y}};\npub struct X;",
                    "c/mod.rs": "pub mod d;", "c/d.rs": "use crate::{\n    a::{b::X as Z},\n};\npub struct Y;",
                    "lib.rs": "mod a; mod c;"}, 1),
        "inline": ({"a.rs": "pub fn f() { crate::b::g() }", "b.rs": "pub fn g() { super::a::f() }",
                    "lib.rs": "mod a; mod b;"}, 1),
        "none": ({"a.rs": "use crate::{b::{g}};\npub fn f() { g() }", "b.rs": "pub fn g() {}",
                  "lib.rs": "mod a; mod b;"}, 0),
    }
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
                with open(os.path.join(d, rel), "w") as f:
                    f.write(text)
            got = len(cycles(graph(d)))
            assert got == expected, f"self-test {name}: {got} cycles, expected {expected}"
    print("circles self-test passed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        sys.exit(0)
    total = sum(report(root) for root in (sys.argv[1:] or ["src"]))
    if not total:
        print("no import circles")
    sys.exit(1 if total else 0)
