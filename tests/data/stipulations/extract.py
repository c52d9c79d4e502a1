#!/usr/bin/env python3
"""Extract orthodox h#N / s#N problems from Popeye input files."""
import re, sys, glob, json, os

LANGS = {
  'en': dict(begin='beginproblem', end=['endproblem','nextproblem'], stip='stipulation', pieces='pieces',
             white='white', black='black', text=['author','origin','title','remark','protocol','award'],
             twin='twin', bad=['condition','sstipulation','structuredstipulation','neutral','zeroposition','forsyth','cond','imitator','hole','lastmove','gridcolour','trace','input','move','fuzzy','quodlibet','goal'],
             roles={'k':'k','q':'q','r':'r','b':'b','s':'n','p':'p'}),
  'de': dict(begin='anfangproblem', end=['endeproblem','weiteresproblem','weiterproblem'], stip='forderung', pieces='steine',
             white='weiss', black='schwarz', text=['autor','quelle','titel','bemerkung','protokoll','auszeichnung'],
             twin='zwilling', bad=['bedingung','sforderung','strukturierteforderung','neutral','nullstellung','forsyth','imitator','loch','letzterzug','gitterfarben'],
             roles={'k':'k','d':'q','t':'r','l':'b','s':'n','b':'p'}),
  'fr': dict(begin='debutprobleme', end=['finprobleme','asuivre'], stip='enonce', pieces='pieces',
             white='blanc', black='noir', text=['auteur','source','titre','remarque','protocole','prix'],
             twin='jumeau', bad=['condition','senonce','enoncestructure','neutre','positioninitiale','forsyth','imitator','trou','dernierecoup'],
             roles={'r':'k','d':'q','t':'r','f':'b','c':'n','p':'p'}),
}
OK_OPTIONS = {'variation','vari','variante','noboard','nothreat','nodrohung','nomenace','sansmenace','maxsolutions','maxsol','novariation','movenumbers','movenum','zugnummern','start','beginn','numeromouv','whitetoplay','weissbeginnt','blancjoue','nontrivial'}

def kw(tok, full, minlen=3):
    t = tok.lower()
    return len(t) >= min(minlen, len(full)) and full.startswith(t)

def problems(path):
    text = open(path, encoding='latin-1').read()
    lines = text.split('\n')
    lang = None; cur = None; idx = 0; out = []
    def finish():
        nonlocal cur
        if cur is not None:
            out.append(cur)
        cur = None
    for ln, line in enumerate(lines, 1):
        toks = line.split()
        i = 0
        while i < len(toks):
            t = toks[i]; tl = t.lower()
            if lang is None or cur is None:
                for L, d in LANGS.items():
                    if kw(t, d['begin'], 3):
                        lang = L; idx += 1; cur = dict(file=path, index=idx, line=ln, lang=L, bad=[], white=[], black=[], stip=None, options=[], text={})
                        break
                i += 1; continue
            d = LANGS[lang]
            if any(kw(t, e, 3) for e in d['end']) or tl in ('end','ende','next','weiter','fin'):
                nxt = tl.startswith('n') or tl.startswith('w') or tl.startswith('a')
                finish()
                if nxt:
                    idx += 1; cur = dict(file=path, index=idx, line=ln, lang=lang, bad=[], white=[], black=[], stip=None, options=[], text={})
                i += 1; continue
            if cur.get('twin'):
                i += 1; continue
            if kw(t, d['twin'], 4):
                cur['twin'] = True; i += 1; continue
            if any(kw(t, f, 3) for f in d['text']):
                key = [f for f in d['text'] if kw(t, f, 3)][0]
                line_text = ' '.join(toks[i+1:])
                for a, b in (('"a', 'ä'), ('"o', 'ö'), ('"u', 'ü'), ('"s', 'ß')):
                    line_text = line_text.replace(a, b)
                cur['text'][key] = (cur['text'][key] + ', ' if key in cur['text'] else '') + line_text
                break
            if kw(t, d['stip'], 4):
                cur['stip'] = toks[i+1] if i+1 < len(toks) else None; i += 2; continue
            if kw(t, 'option', 3):
                cur['options'] += [x.lower() for x in toks[i+1:]]; break
            if kw(t, d['pieces'], 3):
                i += 1; continue
            if kw(t, d['white'], 3):
                cur['color'] = 'white'; i += 1; continue
            if kw(t, d['black'], 3):
                cur['color'] = 'black'; i += 1; continue
            if any(kw(t, b, 4) for b in d['bad']):
                cur['bad'].append(t); i += 1; continue
            if 'color' in cur and re.fullmatch(r'[a-z]{1,2}([a-h][1-8])+', tl):
                m = re.fullmatch(r'([a-z]{1,2}?)((?:[a-h][1-8])+)', tl)
                role = d['roles'].get(m.group(1))
                if role is None:
                    cur['bad'].append(t)
                else:
                    for sq in re.findall(r'[a-h][1-8]', m.group(2)):
                        cur[cur['color']].append((role, sq))
                i += 1; continue
            cur['bad'].append(t); i += 1
    finish()
    return out

def fen(p, side):
    board = {}
    for color in ('white','black'):
        for role, sq in p[color]:
            if sq in board: return None
            board[sq] = role.upper() if color == 'white' else role
    rows = []
    for r in range(8, 0, -1):
        row = ''; e = 0
        for f in 'abcdefgh':
            c = board.get(f + str(r))
            if c is None: e += 1
            else:
                if e: row += str(e); e = 0
                row += c
        if e: row += str(e)
        rows.append(row)
    cr = ''
    if board.get('e1') == 'K':
        if board.get('h1') == 'R': cr += 'K'
        if board.get('a1') == 'R': cr += 'Q'
    if board.get('e8') == 'k':
        if board.get('h8') == 'r': cr += 'k'
        if board.get('a8') == 'r': cr += 'q'
    return '/'.join(rows) + f' {side} {cr or "-"} - 0 1'

if __name__ == '__main__':
    res = []
    for path in sys.argv[1:]:
        for p in problems(path):
            s = (p['stip'] or '').lower()
            m = re.fullmatch(r'([hs])#(\d+)', s)
            if not m or p['bad']: continue
            if any(o not in OK_OPTIONS and not o.isdigit() for o in p['options']): continue
            kings = [r for r, _ in p['white']].count('k'), [r for r, _ in p['black']].count('k')
            if kings != (1, 1): continue
            if any(r == 'p' and sq[1] in '18' for c in ('white','black') for r, sq in p[c]): continue
            f = fen(p, 'b' if m.group(1) == 'h' else 'w')
            if not f: continue
            res.append(dict(file=os.path.relpath(p['file'], '/tmp/popeye'), index=p['index'], line=p['line'], stipulation=s, fen=f,
                            white=p['white'], black=p['black'], text=p['text'], options=p['options']))
    json.dump(res, sys.stdout, indent=1)
