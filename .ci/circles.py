"""Module-level import graph of src/ (crate:: and super:: paths) and its cycles.

Usage: python3 .ci/circles.py [src]. Prints every cycle with its edges and exits 1 when there
is one (0 and "no import circles" otherwise), so CI fails on a new circle. Paths in doc comments
count too: a doc link up to a module's user is a dependency of its documentation."""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else "src"
mods = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith(".rs"):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            mods[tuple(rel)] = p
def resolve(cur, path):
    parts = path.split("::")
    if parts[0] == "crate":
        base = []; parts = parts[1:]
    elif parts[0] == "super":
        base = list(cur[:-1])
        parts = parts[1:]
        while parts and parts[0] == "super":
            base = base[:-1]; parts = parts[1:]
    elif parts[0] == "self":
        base = list(cur); parts = parts[1:]
    else:
        return None
    best = None
    m = list(base)
    if tuple(m) in mods: best = tuple(m)
    for p in parts:
        m.append(p)
        if tuple(m) in mods: best = tuple(m)
        else: break
    return best
edges = {m: set() for m in mods}
pat = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")
grp = re.compile(r"\buse\s+((?:crate|super|self)(?:::\w+)*)::\{([^;]*)\};", re.S)
for m, p in mods.items():
    src = open(p).read()
    # strip #[cfg(test)] mod tests { ... } roughly: cut at '#[cfg(test)]\nmod tests'
    i = src.find("#[cfg(test)]\nmod tests")
    if i >= 0: src = src[:i]
    paths = pat.findall(src)
    for prefix, body in grp.findall(src):
        for item in re.findall(r"\b(\w+(?:::\w+)*)", body):
            paths.append(prefix + "::" + item)
    for path in paths:
        t = resolve(m, path)
        if t is not None and t != m and not (len(t) < len(m) and m[:len(t)] == t):
            edges[m].add(t)
# Tarjan SCC
idx = {}; low = {}; st = []; on = set(); out = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(comp)
for v in mods:
    if v not in idx: sc(v)
for comp in out:
    names = sorted("/".join(x) for x in comp)
    print("cycle:", ", ".join(names))
    for a in comp:
        for b in edges[a]:
            if b in comp: print("   ", "/".join(a), "->", "/".join(b))
if not out:
    print("no import circles")
sys.exit(1 if out else 0)
