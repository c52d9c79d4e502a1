#!/usr/bin/env python3
"""Build Popeye input for FEN+stipulation problems, run py, parse solutions."""
import os, re, subprocess, sys, json, time

ROLE = {'K':'k','Q':'q','R':'r','B':'b','N':'s','P':'p'}

def popeye_problem(fen, stip):
    board = fen.split()[0]
    white, black = [], []
    for r, row in enumerate(board.split('/')):
        f = 0
        for c in row:
            if c.isdigit(): f += int(c); continue
            sq = 'abcdefgh'[f] + str(8 - r)
            (white if c.isupper() else black).append(ROLE[c.upper()] + sq)
            f += 1
    return f"beginproblem\nstipulation {stip}\npieces white {' '.join(white)}\n black {' '.join(black)}\nendproblem\n"

MOVE = re.compile(r'(0-0-0|0-0|[KQRBS]?([a-h][1-8])[-*]([a-h][1-8])(=[QRBS])?)')

def to_uci(tok, white):
    if tok == '0-0': return 'e1g1' if white else 'e8g8'
    if tok == '0-0-0': return 'e1c1' if white else 'e8c8'
    m = re.fullmatch(r'[KQRBS]?([a-h][1-8])[-*]([a-h][1-8])(?:=([QRBS]))?', tok)
    u = m.group(1) + m.group(2)
    if m.group(3): u += {'Q':'q','R':'r','B':'b','S':'n'}[m.group(3)]
    return u

def run(fen, stip, timeout=600):
    inp = popeye_problem(fen, stip)
    t = time.perf_counter()
    out = subprocess.run([os.environ.get('POPEYE', '/tmp/popeye/py')], input=inp, capture_output=True, text=True, timeout=timeout).stdout
    wall = time.perf_counter() - t
    m = re.search(r'solution finished\.\s*Time = ([\d.:]+) s', out)
    return out, wall, m.group(1) if m else None

def help_solutions(out):
    """Each solution: '1.Ka1-b2 Sc3-d5  2.x-y z-w #' lines; returns list of uci lists."""
    sols = []
    lines, buf = [], None
    for raw in out.split('\n'):
        t = raw.strip()
        if re.match(r'^1\.', t):
            buf = t
        elif buf is not None and t:
            buf += ' ' + t
        else:
            buf = None
        if buf is not None and buf.endswith('#'):
            lines.append(buf); buf = None
    for line in lines:
        moves = []
        for tok in line.split():
            tok = re.sub(r'^\d+\.', '', tok)
            tok = tok.rstrip('+#').replace('ep.', '')
            if not tok: continue
            m = re.fullmatch(r'(0-0-0|0-0|[KQRBS]?[a-h][1-8][-*][a-h][1-8](?:=[QRBS])?)', tok)
            if m: moves.append(tok)
        # black starts
        sols.append([to_uci(t, i % 2 == 1) for i, t in enumerate(moves)])
    return sols

def self_keys(out):
    keys = []
    for line in out.split('\n'):
        m = re.match(r'^\s*1\.(\S+?)\s*!', line)
        if m:
            tok = m.group(1).rstrip('+#')
            keys.append(to_uci(tok, True))
    return keys

if __name__ == '__main__':
    out, wall, t = run(sys.argv[1], sys.argv[2])
    print(out); print(wall, t)
