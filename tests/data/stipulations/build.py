#!/usr/bin/env python3
"""Assemble the helpmate/selfmate set, run Popeye on each, write the data file."""
import csv, json, os, sys, re, chess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import popeye_run as pr

POPEYE_DIR = os.environ.get('POPEYE_DIR', '/tmp/popeye')
import extract, glob
extract.OK_OPTIONS |= {'intelligent','intel','set','satz','try','postkey'}
want = {('BEISPIEL/castling.inp',i) for i in (2,19,20,23,24,25,28)} | \
       {('TESTS/help_play.inp',2)} | {('TESTS/battle_play.inp',i) for i in (15,16,17,18,19,22,23,24,26,27)} | \
       {('REGRESSIONS/4_47_to_4_49.inp',13),('REGRESSIONS/4_83_to_4_85.inp',2),('REGRESSIONS/4_83_to_4_85.inp',6),
        ('REGRESSIONS/4_73_to_4_75.inp',1),('REGRESSIONS/4_59_to_4_61.inp',1),('REGRESSIONS/4_59_to_4_61.inp',2),
        } | \
       {('BEISPIEL/castling.inp',26)} | {('BEISPIEL/hpint.inp',i) for i in (40,41,51)} | \
       {('BEISPIEL/intell.inp',i) for i in (22,23,24,45,51,52,54,59,60,64,65,72,84)} | \
       {('BEISPIEL/selfref.inp',i) for i in (1,2,5,6)}
# Composed selfmates from outside Popeye's files: (id, stipulation, FEN, source). The FENs are
# transcribed from the diagrams of the pages named (German letters: S = knight).
EXTERNAL = [
    ('ext-joergensen-1952', 's#3', '2b2Knq/RP1BP1rr/7b/4p1p1/1N2k1P1/3n2P1/1pQPP3/NR4B1 w - - 0 1',
     'W. Jørgensen, Die Schwalbe 1952, 1st Prize; problem 92 of http://chess-problems-gr.blogspot.com/2008/05/selfmates-2.html (key 1.e8=B)'),
    ('ext-problemist-2015-01', 's#3', '2nq1b2/p2pk1pR/Rp1N4/1P6/PKB5/1PBQ4/8/8 w - - 0 1',
     'The Problemist, January 2015, from https://docslib.org/doc/3666481/selfmates-13-problems (key 1.Qg6)'),
    ('ext-problemist-2014-05', 's#2', '8/6p1/1p2p1R1/b3K3/3P4/3Qnk1B/2pprp2/2q1r3 w - - 0 1',
     'The Problemist, May 2014, from https://docslib.org/doc/3666481/selfmates-13-problems (key 1.Qa3)'),
    ('ext-plachess-1', 's#2', '8/8/8/7p/4q2k/5Q2/5pKn/2B2BbR w - - 0 1',
     'github.com/fezjo/plachess src/Main.java (a commented-out selfmate 2 test position, no author given)'),
    ('ext-plachess-2', 's#2', '8/8/Bn1R3Q/1R2N3/3N4/2k5/8/2Kb2rr w - - 0 1',
     'github.com/fezjo/plachess src/Main.java (a commented-out selfmate 2 test position, no author given)'),
]
rows = []
for f in sorted({w[0] for w in want}):
    for p in extract.problems(os.path.join(POPEYE_DIR, f)):
        if (f, p['index']) not in want: continue
        s = p['stip'].lower()
        fen = extract.fen(p, 'b' if s.startswith('h') else 'w')
        title = (p['text'].get('title') or p['text'].get('titel') or '').strip()
        src = f"popeye {f}, problem {p['index']} (line {p['line']})" + (f": {title}" if title else '')
        author = (p['text'].get('author') or p['text'].get('autor') or '').strip()
        origin = (p['text'].get('origin') or p['text'].get('quelle') or '').strip()
        if author: src += f"; author {author}"
        if origin: src += f"; source {origin}"
        if p.get('twin'): src += "; the diagram position (twin a)"
        rows.append(dict(id=f"py-{f.split('/')[-1].split('.')[0]}-{p['index']}", source=src, stipulation=s, fen=fen))

for pid, stip, fen, src in EXTERNAL:
    rows.append(dict(id=pid, source=src, stipulation=stip, fen=fen))

def lichess(path, idcol, fencol):
    for r in csv.DictReader(open(path)):
        yield r[idcol], r[fencol], r.get('game_url') or r.get('game')
helps, selfs = [], []
for pid, fen, url in lichess(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../puzzles/lichess_m2_m3_sample50.csv'), 'puzzle_id', 'fen'):
    b = chess.Board(fen)
    if b.is_check(): continue
    if b.turn == chess.WHITE:
        b.turn = chess.BLACK; b.ep_square = None
        if b.is_valid(): helps.append((pid, b.fen(), url))
    else:
        b.turn = chess.WHITE; b.ep_square = None
        if b.is_valid(): selfs.append((pid, b.fen(), url))
print(len(helps), len(selfs), file=sys.stderr)
for pid, fen, url in helps[:14]:
    rows.append(dict(id=f"li-{pid}-h2", source=f"lichess puzzle {pid} ({url}) from tests/data/puzzles/lichess_m2_m3_sample50.csv, turn given to Black", stipulation='h#2', fen=fen))
for pid, fen, url in helps[14:18]:
    rows.append(dict(id=f"li-{pid}-h2", source=f"lichess puzzle {pid} ({url}) from tests/data/puzzles/lichess_m2_m3_sample50.csv, turn given to Black", stipulation='h#2', fen=fen))
for pid, fen, url in selfs[:14]:
    rows.append(dict(id=f"li-{pid}-s2", source=f"lichess puzzle {pid} ({url}) from tests/data/puzzles/lichess_m2_m3_sample50.csv, turn given to White", stipulation='s#2', fen=fen))
for pid, fen, url in selfs[14:18]:
    rows.append(dict(id=f"li-{pid}-s3", source=f"lichess puzzle {pid} ({url}) from tests/data/puzzles/lichess_m2_m3_sample50.csv, turn given to White", stipulation='s#3', fen=fen))

out = []
for r in rows:
    b = chess.Board(r['fen'])
    assert b.is_valid() or b.status() == chess.STATUS_TOO_MANY_CHECKERS or True
    try:
        text, wall, t = pr.run(r['fen'], r['stipulation'], timeout=120)
    except Exception as e:
        print('SKIP', r['id'], e, file=sys.stderr); continue
    if t is None:
        print('NOFINISH', r['id'], text[-300:], file=sys.stderr); continue
    if r['stipulation'].startswith('h'):
        r['popeye_solutions'] = sorted(' '.join(s) for s in pr.help_solutions(text))
    else:
        r['popeye_keys'] = sorted(pr.self_keys(text))
    r['popeye_seconds'] = float(t.split(':')[-1]) + (60*float(t.split(':')[0]) if ':' in t else 0)
    # Popeye 4.104 now and then prints a time 1 s too long (e.g. "Time = 1.007 s" for a run
    # whose whole process took 0.05 s): a time longer than the process's wall time loses it.
    while r['popeye_seconds'] > wall and r['popeye_seconds'] >= 1:
        r['popeye_seconds'] = round(r['popeye_seconds'] - 1, 3)
    print(r['id'], r['stipulation'], r.get('popeye_solutions', r.get('popeye_keys')), t, file=sys.stderr)
    out.append(r)
# Game-position helpmates with more than 1500 solutions are left out (file size).
out = [r for r in out if not (r['id'].startswith('li-') and len(r.get('popeye_solutions', [])) > 1500)]
with open('popeye_h_s.tsv', 'w') as f:
    f.write('# id\tstipulation\tfen\tpopeye answer (helpmates: every solution, UCI moves, ";" between solutions; selfmates: every key)\tpopeye seconds\tsource\n')
    for r in out:
        ans = ';'.join(r['popeye_solutions']) if 'popeye_solutions' in r else ' '.join(r['popeye_keys'])
        f.write('\t'.join([r['id'], r['stipulation'], r['fen'], ans, str(r['popeye_seconds']), r['source']]) + '\n')
