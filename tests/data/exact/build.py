#!/usr/bin/env python3
"""Assemble the direct-mate set (#2-#5), run Popeye on each, write popeye_direct.tsv.

Run in tests/data/exact/ with Popeye built in /tmp/popeye (POPEYE_DIR, POPEYE) and
python-chess; MATER_CSV names problems.csv of github.com/rchastain/mater at commit
f17ce352f164526b54277a40c27e154d3d65d879. See README.md.
"""
import csv, glob, os, re, subprocess, sys, time
import chess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '../stipulations'))
import extract, popeye_run as pr

POPEYE_DIR = os.environ.get('POPEYE_DIR', '/tmp/popeye')
MATER_CSV = os.environ.get('MATER_CSV', '/tmp/mater_problems_f17ce35.csv')
TIMEOUT = float(os.environ.get('POPEYE_TIMEOUT', '60'))
# Composed problems wanted per N (Popeye's own files first, then Mater's collection) and
# game positions per N.
COMPOSED, GAMES = 24, 6
extract.OK_OPTIONS |= {'intelligent', 'intel', 'set', 'satz', 'try', 'postkey', 'defence',
                       'threat', 'drohung', 'menace', 'shortvariations', 'nullmoves'}


def popeye_fen(board):
    """The FEN Popeye sees: castling rights from the placement, no en passant, White to move."""
    b = board.copy()
    b.ep_square = None
    cr = ''
    pm = b.piece_map()
    def at(sq, sym):
        p = pm.get(chess.parse_square(sq))
        return p is not None and p.symbol() == sym
    if at('e1', 'K'):
        cr += 'K' if at('h1', 'R') else ''
        cr += 'Q' if at('a1', 'R') else ''
    if at('e8', 'k'):
        cr += 'k' if at('h8', 'r') else ''
        cr += 'q' if at('a8', 'r') else ''
    b.set_castling_fen(cr or '-')
    return b.fen().rsplit(' ', 2)[0] + ' 0 1'


def usable(fen):
    b = chess.Board(fen)
    return b.is_valid() and b.turn == chess.WHITE


def keys(out):
    ks = []
    for line in out.split('\n'):
        m = re.match(r'^\s*1\.([^.\s]\S*?)\s*(?:[+#]\s*)?!', line)
        if m:
            ks.append(pr.to_uci(m.group(1).rstrip('+#').replace('ep.', ''), True))
    return sorted(ks)


def seconds(t):
    s = 0.0
    for part in t.split(':'):
        s = s * 60 + float(part)
    return s


def candidates():
    # 1. Popeye's own example and test files.
    for path in sorted(glob.glob(os.path.join(POPEYE_DIR, '**/*.inp'), recursive=True)):
        try:
            probs = extract.problems(path)
        except Exception:
            continue
        for p in probs:
            m = re.fullmatch(r'#(\d+)', (p['stip'] or '').lower())
            if not m or p['bad']:
                continue
            if any(o not in extract.OK_OPTIONS and not o.isdigit() for o in p['options']):
                continue
            if ([r for r, _ in p['white']].count('k'), [r for r, _ in p['black']].count('k')) != (1, 1):
                continue
            if any(r == 'p' and sq[1] in '18' for c in ('white', 'black') for r, sq in p[c]):
                continue
            f = extract.fen(p, 'w')
            if not f or not usable(f):
                continue
            rel = os.path.relpath(path, POPEYE_DIR)
            t = p['text']
            who = (t.get('author') or t.get('autor') or t.get('auteur') or '').strip()
            where = (t.get('origin') or t.get('quelle') or t.get('source') or '').strip()
            title = (t.get('title') or t.get('titel') or t.get('titre') or '').strip()
            desc = f"Popeye {rel}, problem {p['index']} (line {p['line']})"
            for label, v in (('author', who), ('origin', where), ('title', title)):
                if v:
                    desc += f"; {label}: {v}"
            yield int(m.group(1)), f"py-{rel.replace('/', '-').rsplit('.', 1)[0]}-{p['index']}", 'composed', popeye_fen(chess.Board(f)), desc
    # 2. Mater's collection (composed problems; no authors given there).
    rows = [r for r in csv.reader(open(MATER_CSV)) if r]
    for i, (n, _mode, epd) in enumerate(rows, 1):
        b = chess.Board(epd.strip() + ' 0 1')
        if not b.is_valid() or b.turn != chess.WHITE:
            continue
        yield int(n), f"mater-{i:03d}", 'composed', popeye_fen(b), \
            f"rchastain/mater problems.csv line {i} (commit f17ce35), V. Albillo's Mater collection"


def games():
    for r in csv.DictReader(open(os.path.join(HERE, '../puzzles/mates_2_8.csv'))):
        n = int(r['mate'])
        if n > 5:
            continue
        b = chess.Board(r['fen'])
        note = ''
        if b.turn == chess.BLACK:
            b = b.mirror()
            note = ', colours mirrored so that White mates'
        yield n, r['set'], f"game-{r['id']}", 'game', popeye_fen(b), \
            f"tests/data/puzzles/mates_2_8.csv {r['id']} ({r['set']} set){note}"


def popeye(fen, n):
    try:
        out, wall, t = pr.run(fen, f'#{n}', timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    if t is None:
        return None
    return keys(out), seconds(t), wall


def main():
    chosen = {n: [] for n in range(2, 6)}
    seen = set()
    per_n = {n: 0 for n in range(2, 6)}
    cands = [c for c in candidates() if 2 <= c[0] <= 5]
    # Mater rows: an even spread over each N (every k-th), not the first ones.
    by_n = {n: [c for c in cands if c[0] == n] for n in range(2, 6)}
    for n, cs in by_n.items():
        py = [c for c in cs if c[1].startswith('py-')]
        ma = [c for c in cs if c[1].startswith('mater-')]
        stride = max(1, len(ma) // (2 * COMPOSED + 10))
        for c in py + ma[::stride]:
            if per_n[n] >= COMPOSED:
                break
            if c[3].split(' ')[0] in seen:
                continue
            res = popeye(c[3], n)
            if res is None:
                print('NOFINISH', c[1], file=sys.stderr)
                continue
            ks, secs, wall = res
            if not ks and c[1].startswith('mater-'):
                # No key at the stated N: a transcription error in that collection, most likely.
                print('NOKEY', c[1], file=sys.stderr)
                continue
            seen.add(c[3].split(' ')[0])
            chosen[n].append((c, ks, secs))
            per_n[n] += 1
            print(n, c[1], ks, secs, f'{wall:.3f}', file=sys.stderr)
    gcount = {n: {'report': 0, 'dev': 0} for n in range(2, 6)}
    for n, st, gid, kind, fen, desc in games():
        if gcount[n][st] >= GAMES // 2 or fen.split(' ')[0] in seen:
            continue
        res = popeye(fen, n)
        if res is None:
            print('NOFINISH', gid, file=sys.stderr)
            continue
        ks, secs, wall = res
        seen.add(fen.split(' ')[0])
        chosen[n].append(((n, gid, kind, fen, desc), ks, secs))
        gcount[n][st] += 1
        print(n, gid, ks, secs, f'{wall:.3f}', file=sys.stderr)
    with open(os.path.join(HERE, 'popeye_direct.tsv'), 'w') as f:
        f.write('# id\tset\tN\tfen\tpopeye length\tpopeye keys (UCI, every key mating within N)\t'
                'popeye seconds\tsource\n')
        for n in range(2, 6):
            for i, ((_, pid, kind, fen, desc), ks, secs) in enumerate(chosen[n]):
                # The shortest length: the first n' <= N at which Popeye finds a key.
                length = 0
                for m in range(1, n + 1):
                    if m == n:
                        length = n if ks else 0
                        break
                    r = popeye(fen, m)
                    if r and r[0]:
                        length = m
                        break
                if kind == 'game':
                    st = 'report' if '(report set)' in desc else 'dev'
                else:
                    st = 'report' if i % 2 == 0 else 'dev'
                f.write('\t'.join([pid, st, str(n), fen, str(length), ' '.join(ks), f'{secs:.3f}',
                                   desc]) + '\n')


if __name__ == '__main__':
    main()
