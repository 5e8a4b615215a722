#!/usr/bin/env python3
"""gen_unicode.py — write ext/docext_unicode.c, the Unicode facts that
MongoDB's text tokenizer (text index version 3) needs, from the Unicode
Character Database.

    /usr/bin/python3 tools/gen_unicode.py > ext/docext_unicode.c
    /usr/bin/python3 tools/gen_unicode.py ext/docext_unicode.c
    /usr/bin/python3 tools/gen_unicode.py --check    # self-checks, not in CI
    /usr/bin/python3 tools/gen_unicode.py --dump     # every code point's facts

--ucd DIR reads the data from DIR instead of /usr/share/unicode (Debian's
unicode-data package). The files read are PropList.txt, CaseFolding.txt,
UnicodeData.txt and CompositionExclusions.txt (which NFC needs).

The definitions are MongoDB's (src/mongo/db/fts/unicode/gen_*.py), whose
tables are built from Unicode 8.0.0; these are built from whatever version
DIR holds:

  delimiter   any code point with one of the PropList properties
              White_Space, Dash, Hyphen, Quotation_Mark,
              Terminal_Punctuation, Pattern_Syntax, Sentence_Terminal
              (called STerm before Unicode 9.0). For English, the apostrophe
              U+0027 is not one (it is both Quotation_Mark and
              Pattern_Syntax); for every other language it is.
  fold        the CaseFolding.txt mappings of status C (common) and S
              (simple): one code point to one. F (full, one to many) and T
              (Turkic) are not used; MongoDB's Turkish mode is left out.
  diacritic   the PropList property Diacritic. Stripping maps a diacritic
              to 0 (dropped), and any other code point a to c when
              c = NFC(NFD(a) without its diacritics) is one code point
              different from a; else a is kept.

Only the Python standard library is used; Python's own unicodedata is used
by --check alone, as an independent second opinion.
"""

import argparse
import bz2
import os
import sys

UCD_DIR = '/usr/share/unicode'
MAX_CP = 0x10FFFF

DELIM_PROPS = ('White_Space', 'Dash', 'Hyphen', 'Quotation_Mark',
               'Terminal_Punctuation', 'Pattern_Syntax', 'Sentence_Terminal')
PROP_ALIASES = {'STerm': 'Sentence_Terminal'}   # the name before Unicode 9.0

# Hangul syllables decompose and compose by arithmetic (Unicode §3.12).
S_BASE, L_BASE, V_BASE, T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
L_COUNT, V_COUNT, T_COUNT = 19, 21, 28
N_COUNT = V_COUNT * T_COUNT
S_COUNT = L_COUNT * N_COUNT


# ---------------------------------------------------------------------------
# Reading the data files

def data_lines(path):
    """The fields of each data line of a UCD file, comments and blank lines
    dropped, each field stripped."""
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                yield [x.strip() for x in line.split(';')]


def code_range(field):
    """(first, last) of '0041' or '0041..005A'."""
    a, _, b = field.partition('..')
    return int(a, 16), int(b or a, 16)


def unicode_version(ucd):
    """'15.0.0' from the first line of PropList.txt ('# PropList-15.0.0.txt')."""
    with open(os.path.join(ucd, 'PropList.txt'), encoding='utf-8') as f:
        first = f.readline()
    name = first.strip('# \n')
    if name.startswith('PropList-') and name.endswith('.txt'):
        return name[len('PropList-'):-len('.txt')]
    return 'unknown'


def load_proplist(ucd):
    """{property name: set of code points}, aliases resolved."""
    props = {}
    for fields in data_lines(os.path.join(ucd, 'PropList.txt')):
        first, last = code_range(fields[0])
        name = PROP_ALIASES.get(fields[1], fields[1])
        props.setdefault(name, set()).update(range(first, last + 1))
    return props


def load_casefolding(ucd):
    """{code point: folded code point} for the statuses C and S."""
    fold = {}
    for fields in data_lines(os.path.join(ucd, 'CaseFolding.txt')):
        if fields[1] in ('C', 'S'):
            fold[int(fields[0], 16)] = int(fields[2], 16)
    return fold


class Normalizer:
    """Canonical decomposition (NFD) and composition (NFC) from
    UnicodeData.txt and CompositionExclusions.txt, as UAX #15 defines them."""

    def __init__(self, ucd):
        self.ccc = {}          # canonical combining class, when not 0
        self.decomp = {}       # canonical decomposition mappings (one level)
        for fields in data_lines(os.path.join(ucd, 'UnicodeData.txt')):
            cp = int(fields[0], 16)
            if int(fields[3]):
                self.ccc[cp] = int(fields[3])
            if fields[5] and not fields[5].startswith('<'):
                self.decomp[cp] = [int(x, 16) for x in fields[5].split()]
        excluded = set()
        for fields in data_lines(os.path.join(ucd, 'CompositionExclusions.txt')):
            first, last = code_range(fields[0])
            excluded.update(range(first, last + 1))
        # Full_Composition_Exclusion adds singletons and non-starter
        # decompositions to the listed exclusions.
        self.compose = {}
        for cp, d in self.decomp.items():
            if (len(d) == 2 and cp not in excluded and self.ccc.get(cp, 0) == 0
                    and self.ccc.get(d[0], 0) == 0):
                self.compose[(d[0], d[1])] = cp

    def _decompose(self, cp, out):
        if S_BASE <= cp < S_BASE + S_COUNT:
            s = cp - S_BASE
            out.append(L_BASE + s // N_COUNT)
            out.append(V_BASE + (s % N_COUNT) // T_COUNT)
            if s % T_COUNT:
                out.append(T_BASE + s % T_COUNT)
        elif cp in self.decomp:
            for x in self.decomp[cp]:
                self._decompose(x, out)
        else:
            out.append(cp)

    def nfd(self, seq):
        out = []
        for cp in seq:
            self._decompose(cp, out)
        # Canonical ordering: a stable sort of each run of non-starters.
        i = 0
        while i < len(out):
            j = i
            while j < len(out) and self.ccc.get(out[j], 0):
                j += 1
            if j > i + 1:
                out[i:j] = sorted(out[i:j], key=lambda c: self.ccc[c])
            i = j + 1
        return out

    def _pair(self, a, b):
        if L_BASE <= a < L_BASE + L_COUNT and V_BASE <= b < V_BASE + V_COUNT:
            return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT
        if (S_BASE <= a < S_BASE + S_COUNT and (a - S_BASE) % T_COUNT == 0
                and T_BASE < b < T_BASE + T_COUNT):
            return a + (b - T_BASE)
        return self.compose.get((a, b))

    def nfc(self, seq):
        out = []
        starter = -1           # index in out of the last starter
        for cp in self.nfd(seq):
            cc = self.ccc.get(cp, 0)
            if starter >= 0:
                # cp is blocked from the starter by anything between them
                # of class 0 or of a class not below its own.
                prev = self.ccc.get(out[-1], 0)
                if len(out) - 1 == starter or (prev != 0 and prev < cc):
                    p = self._pair(out[starter], cp)
                    if p is not None:
                        out[starter] = p
                        continue
            if cc == 0:
                starter = len(out)
            out.append(cp)
        return out


class Facts:
    """What the tokenizer needs, as plain Python sets and dicts."""

    def __init__(self, ucd):
        self.version = unicode_version(ucd)
        props = load_proplist(ucd)
        missing = [p for p in DELIM_PROPS + ('Diacritic',) if p not in props]
        if missing:
            sys.exit('gen_unicode.py: %s lacks %s' % (ucd, ', '.join(missing)))
        self.delims = set()
        for p in DELIM_PROPS:
            self.delims |= props[p]
        self.diacritics = props['Diacritic']
        self.fold = load_casefolding(ucd)
        self.norm = Normalizer(ucd)
        self.strip = strip_map(self.norm, self.diacritics)


def strip_map(norm, diacritics):
    """{code point: code point without diacritics, 0 for a diacritic}, for
    the code points that change. A code point without a canonical
    decomposition is its own NFD and NFC, so only a diacritic among those
    changes: the loop visits the decomposable ones alone."""
    strip = {}
    for cp in sorted(set(norm.decomp) | set(range(S_BASE, S_BASE + S_COUNT))):
        kept = [x for x in norm.nfd([cp]) if x not in diacritics]
        c = norm.nfc(kept)
        if len(c) == 1 and c[0] != cp:
            assert c[0] != 0 and c[0] not in diacritics, hex(cp)
            strip[cp] = c[0]
    for cp in diacritics:
        strip[cp] = 0
    return strip


def load(ucd=UCD_DIR):
    return Facts(ucd)


# ---------------------------------------------------------------------------
# Packing the tables

def ranges(cps):
    """Sorted [first, last] runs of a set of code points."""
    out = []
    for c in sorted(cps):
        if out and out[-1][1] + 1 == c:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


# The kinds of run (UniRun.eKind): the code points first..last map to
SAME, DELTA, DELTA2, LIST = 0, 1, 2, 3
# SAME: value; DELTA: themselves plus value; DELTA2: every other one of
# them (first, first+2, ...) to itself plus value, the ones between to
# themselves; LIST: the list of values that starts at index value.


def fold_runs(mapping):
    """[first, last, delta, kind] runs (DELTA or DELTA2) of the fold mapping.
    Built in code point order, a run growing only by the next mapped code
    point, so that runs never overlap."""
    out = []
    for c in sorted(mapping):
        d = mapping[c] - c
        if out:
            r = out[-1]
            gap = c - r[1]
            if r[2] == d and ((r[0] == r[1] and gap in (1, 2))
                              or (r[3] == DELTA and gap == 1)
                              or (r[3] == DELTA2 and gap == 2)):
                r[1], r[3] = c, DELTA if gap == 1 else DELTA2
                continue
        out.append([c, c, d, DELTA])
    return out


RUN_COST = 26       # bytes of '{0x1E00,0x1E01,0x0041,0},' and a separator


def list_cost(v):
    return len(hexcp(v)) + 2


def strip_runs(strip):
    """The strip mapping as [first, last, value, kind] runs (SAME, DELTA or
    LIST) and the list the LIST runs index. The split is the one with the
    fewest bytes of C source (dynamic programming over the mapped code
    points in order)."""
    keys = sorted(strip)
    n = len(keys)
    best = [0] + [None] * n      # best[i]: the cost of keys[:i]
    how = [None] * (n + 1)       # how[i]: (j, kind), its last run keys[j:i]
    for i in range(1, n + 1):
        for kind in (SAME, DELTA, LIST):
            j = i - 1            # the run is keys[j:i]
            extra = 0            # what its values cost (LIST)
            while True:
                if kind == LIST:
                    extra += list_cost(strip[keys[j]])
                cost = best[j] + RUN_COST + extra
                if best[i] is None or cost < best[i]:
                    best[i], how[i] = cost, (j, kind)
                if j == 0 or keys[j - 1] != keys[j] - 1:
                    break
                a, b = keys[j - 1], keys[j]
                if kind == SAME and strip[a] != strip[b]:
                    break
                if kind == DELTA and (strip[a] - a != strip[b] - b or strip[a] == 0):
                    break
                j -= 1
    runs, values = [], []
    i = n
    while i > 0:
        j, kind = how[i]
        first, last = keys[j], keys[i - 1]
        if kind == SAME or (kind == LIST and i - j == 1):
            runs.append([first, last, strip[first], SAME])
        elif kind == DELTA:
            runs.append([first, last, strip[first] - first, DELTA])
        else:
            runs.append([first, last, [strip[k] for k in keys[j:i]], LIST])
        i = j
    runs.reverse()
    for r in runs:
        if r[3] == LIST:
            r[2], values = len(values), values + r[2]
    return runs, values


def run_map(runs, values, c):
    """What the C function uniRunMap does, for --check."""
    lo, hi, i = 0, len(runs) - 1, -1
    while lo <= hi:
        mid = (lo + hi) // 2
        if runs[mid][0] <= c:
            i, lo = mid, mid + 1
        else:
            hi = mid - 1
    if i < 0 or c > runs[i][1]:
        return c
    first, _, value, kind = runs[i]
    if kind == SAME:
        return value
    if kind == DELTA:
        return c + value
    if kind == DELTA2:
        return c + value if (c - first) % 2 == 0 else c
    return values[value + c - first]


# ---------------------------------------------------------------------------
# Writing the C file

def hexcp(c):
    return '0x%04X' % c if c >= 0 else '-0x%04X' % -c


def rows(cells, width=96):
    """C initializer lines of the cells, as many to a line as fit in width."""
    lines, line = [], ''
    for cell in cells:
        if line and len(line) + 1 + len(cell) > width:
            lines.append(line)
            line = ''
        line = line + ' ' + cell if line else '  ' + cell
    if line:
        lines.append(line)
    return '\n'.join(lines)


def run_cells(runs):
    return ['{%s,%s,%s,%d},' % (hexcp(r[0]), hexcp(r[1]), hexcp(r[2]), r[3]) for r in runs]


HEADER = """\
/*
** docext_unicode.c — the Unicode facts of MongoDB's text tokenizer (text
** index version 3): UTF-8, the delimiters between words, case folding and
** diacritic stripping, as in MongoDB's src/mongo/db/fts/unicode/.
**
** Generated by tools/gen_unicode.py from Unicode %(version)s data; do not edit.
**
** The definitions (tools/gen_unicode.py says how each is derived):
**   delimiter  PropList White_Space, Dash, Hyphen, Quotation_Mark,
**              Terminal_Punctuation, Pattern_Syntax or Sentence_Terminal;
**              the apostrophe U+0027 is not one for English.
**   fold       CaseFolding.txt statuses C and S (one code point to one).
**   strip      PropList Diacritic code points are dropped; any other code
**              point c goes to NFC(NFD(c) without its diacritics) when that
**              is one code point, else stays.
** MongoDB builds its tables from Unicode 8.0.0, so code points assigned or
** changed since then may be classified differently.
**
** The functions are declared in docextInt.h.
*/
#include "docextInt.h"

/*
** Decode one UTF-8 character of z[0..n) (n>0) into *pc; returns the bytes
** it took (1..4). Malformed input (a stray continuation byte, a sequence
** cut short, an overlong form, a surrogate, above U+10FFFF, the bytes
** 0xC0, 0xC1, 0xF5..0xFF) takes 1 byte and gives U+FFFD.
*/
int docextUtf8Decode(const unsigned char *z, int n, uint32_t *pc){
  uint32_t c = z[0];
  uint32_t min;
  int len, i;
  if( c<0x80 ){
    *pc = c;
    return 1;
  }
  if( c>=0xC2 && c<=0xDF ){
    len = 2; min = 0x80; c &= 0x1F;
  }else if( c>=0xE0 && c<=0xEF ){
    len = 3; min = 0x800; c &= 0x0F;
  }else if( c>=0xF0 && c<=0xF4 ){
    len = 4; min = 0x10000; c &= 0x07;
  }else{
    goto malformed;
  }
  if( n<len ) goto malformed;
  for(i=1; i<len; i++){
    if( (z[i] & 0xC0)!=0x80 ) goto malformed;
    c = (c<<6) | (z[i] & 0x3F);
  }
  if( c<min || c>0x10FFFF || (c>=0xD800 && c<=0xDFFF) ) goto malformed;
  *pc = c;
  return len;
malformed:
  *pc = 0xFFFD;
  return 1;
}

/*
** Encode c as UTF-8 into z (room for 4); returns the bytes written. A c
** above U+10FFFF is written as U+FFFD; a surrogate is written as it is, in
** three bytes that docextUtf8Decode refuses.
*/
int docextUtf8Encode(uint32_t c, unsigned char *z){
  if( c<0x80 ){
    z[0] = (unsigned char)c;
    return 1;
  }
  if( c<0x800 ){
    z[0] = (unsigned char)(0xC0 | (c>>6));
    z[1] = (unsigned char)(0x80 | (c & 0x3F));
    return 2;
  }
  if( c>0x10FFFF ) c = 0xFFFD;
  if( c<0x10000 ){
    z[0] = (unsigned char)(0xE0 | (c>>12));
    z[1] = (unsigned char)(0x80 | ((c>>6) & 0x3F));
    z[2] = (unsigned char)(0x80 | (c & 0x3F));
    return 3;
  }
  z[0] = (unsigned char)(0xF0 | (c>>18));
  z[1] = (unsigned char)(0x80 | ((c>>12) & 0x3F));
  z[2] = (unsigned char)(0x80 | ((c>>6) & 0x3F));
  z[3] = (unsigned char)(0x80 | (c & 0x3F));
  return 4;
}

/* A run of a mapping: the code points iFirst..iLast map by eKind. The runs
** of a table are sorted and do not overlap; a code point in none of them
** maps to itself. */
typedef struct UniRun UniRun;
struct UniRun {
  uint32_t iFirst, iLast;
  int32_t iValue;       /* a code point, a delta or a list index, by eKind */
  int eKind;            /* UNI_SAME, UNI_DELTA, UNI_DELTA2 or UNI_LIST */
};
#define UNI_SAME   0    /* each maps to iValue */
#define UNI_DELTA  1    /* each maps to itself plus iValue */
#define UNI_DELTA2 2    /* iFirst, iFirst+2, ... map to themselves plus
                        ** iValue; the code points between, to themselves */
#define UNI_LIST   3    /* iFirst+k maps to the list's value iValue+k */

/* c mapped by the runs a[0..n) and the list aList. */
static uint32_t uniRunMap(const UniRun *a, int n, const uint32_t *aList, uint32_t c){
  int lo = 0, hi = n-1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    const UniRun *p = &a[mid];
    if( c<p->iFirst ){
      hi = mid-1;
    }else if( c>p->iLast ){
      lo = mid+1;
    }else{
      switch( p->eKind ){
        case UNI_SAME:   return (uint32_t)p->iValue;
        case UNI_DELTA:  return c + (uint32_t)p->iValue;
        case UNI_DELTA2: return ((c - p->iFirst) & 1) ? c : c + (uint32_t)p->iValue;
        default:         return aList[(uint32_t)p->iValue + (c - p->iFirst)];
      }
    }
  }
  return c;
}
"""

DELIM = """
/* The ASCII delimiters, a bit for each of 0..127 (bit c%%32 of word c/32),
** the apostrophe included. */
static const uint32_t uniDelimAscii[4] = {
%(ascii)s
};

/* The other delimiters: %(n)d runs {first, last}. */
static const uint32_t uniDelim[][2] = {
%(table)s
};

/*
** Is c a delimiter between words for MongoDB's text search? bEnglish: the
** apostrophe is part of words.
*/
int docextUnicodeIsDelimiter(uint32_t c, int bEnglish){
  int lo = 0, hi = DOCEXT_COUNT(uniDelim)-1;
  if( c<0x80 ){
    if( c=='\\'' && bEnglish ) return 0;
    return (uniDelimAscii[c>>5]>>(c & 31)) & 1;
  }
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    if( c<uniDelim[mid][0] ){
      hi = mid-1;
    }else if( c>uniDelim[mid][1] ){
      lo = mid+1;
    }else{
      return 1;
    }
  }
  return 0;
}
"""

FOLD = """
/* Case folding: %(n)d runs {first, last, delta, kind}. */
static const UniRun uniFold[] = {
%(table)s
};

/* c lower-cased (folded) as MongoDB's tokenizer folds it. */
uint32_t docextUnicodeFold(uint32_t c){
  return uniRunMap(uniFold, DOCEXT_COUNT(uniFold), 0, c);
}
"""

STRIP = """
/* Diacritic stripping: %(nrun)d runs {first, last, value, kind}, and the
** list of the UNI_LIST runs (mostly precomposed letters and compatibility
** ideographs, whose neighbours map to unrelated code points). */
static const UniRun uniStrip[] = {
%(runs)s
};
static const uint32_t uniStripList[] = {
%(values)s
};

/*
** c without its diacritics: the base character, 0 when c is itself a
** diacritic (dropped), c when it has none (so 0 for U+0000 too).
*/
uint32_t docextUnicodeStripDiacritics(uint32_t c){
  return uniRunMap(uniStrip, DOCEXT_COUNT(uniStrip), uniStripList, c);
}
"""


def c_source(facts):
    ascii_words = [0, 0, 0, 0]
    for c in facts.delims:
        if c < 0x80:
            ascii_words[c >> 5] |= 1 << (c & 31)
    others = ranges(c for c in facts.delims if c >= 0x80)
    fold = fold_runs(facts.fold)
    runs, values = strip_runs(facts.strip)
    parts = [HEADER % {'version': facts.version}]
    parts.append(DELIM % {
        'ascii': '  ' + ', '.join('0x%08X' % w for w in ascii_words),
        'n': len(others),
        'table': rows(['{%s,%s},' % (hexcp(a), hexcp(b)) for a, b in others]),
    })
    parts.append(FOLD % {'n': len(fold), 'table': rows(run_cells(fold))})
    parts.append(STRIP % {
        'nrun': len(runs),
        'runs': rows(run_cells(runs)),
        'values': rows(['%s,' % hexcp(v) for v in values]),
    })
    return ''.join(parts)


# ---------------------------------------------------------------------------
# --dump and --check

def dump(facts, out):
    """One line for each code point whose facts are not the defaults:
    'XXXX delim-english delim-other fold strip', all in hex."""
    for c in range(MAX_CP + 1):
        d = c in facts.delims
        de = d and c != 0x27
        f = facts.fold.get(c, c)
        s = facts.strip.get(c, c)
        if d or f != c or s != c:
            out.write('%04X %d %d %04X %04X\n' % (c, de, d, f, s))


def check(facts, ucd):
    """Self-checks, for a person regenerating the file (not run by CI):
    the normalizer against NormalizationTest.txt, the strip mapping against
    MongoDB's recipe run literally on Python's unicodedata, the packed
    tables against the mappings for every code point, MongoDB's own
    invariants, and a few known answers. Returns 0 when all pass."""
    import unicodedata
    failures = []

    def fail(msg):
        failures.append(msg)
        if len(failures) <= 20:
            print('FAIL ' + msg)

    # 1. NFD and NFC, per NormalizationTest.txt: c3 == NFD(c1..c3),
    # c2 == NFC(c1..c3), and every code point not in part 1 unchanged.
    norm = facts.norm
    path = os.path.join(ucd, 'NormalizationTest.txt.bz2')
    opener = bz2.open
    if not os.path.exists(path):
        path, opener = os.path.join(ucd, 'NormalizationTest.txt'), open
    if os.path.exists(path):
        part1, ntest = set(), 0
        part = None
        with opener(path, 'rt', encoding='utf-8') as f:
            for line in f:
                if line.startswith('@Part'):
                    part = line.split()[0]
                    continue
                line = line.split('#', 1)[0].strip()
                if not line:
                    continue
                cols = [[int(x, 16) for x in col.split()] for col in line.split(';')[:5]]
                if part == '@Part1':
                    part1.add(cols[0][0])
                for col in cols[:3]:
                    if norm.nfd(col) != cols[2]:
                        fail('NFD(%s)' % col)
                    if norm.nfc(col) != cols[1]:
                        fail('NFC(%s)' % col)
                ntest += 1
        for c in range(MAX_CP + 1):
            if c not in part1 and not 0xD800 <= c <= 0xDFFF:
                if norm.nfd([c]) != [c] or norm.nfc([c]) != [c]:
                    fail('U+%04X should be its own NFD and NFC' % c)
        print('normalization: %d test lines' % ntest)
    else:
        print('normalization: skipped, no NormalizationTest.txt in ' + ucd)

    # 2. MongoDB's recipe (gen_diacritic_map.py) with Python's unicodedata,
    # which may be an older Unicode: differences are allowed only for code
    # points that version does not have.
    def mongo_strip(cp):
        if cp in facts.diacritics:
            return 0
        a = chr(cp)
        r = ''.join(x for x in unicodedata.normalize('NFD', a) if ord(x) not in facts.diacritics)
        c = unicodedata.normalize('NFC', r)
        return ord(c) if a != c and len(c) == 1 else cp
    ndiff = 0
    for cp in range(MAX_CP + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        want = mongo_strip(cp)
        if want != facts.strip.get(cp, cp):
            if unicodedata.category(chr(cp)) == 'Cn':
                ndiff += 1
            else:
                fail('strip U+%04X: U+%04X, Python says U+%04X'
                     % (cp, facts.strip.get(cp, cp), want))
    print('strip vs Python unicodedata %s: %d differences, all in code points it lacks'
          % (unicodedata.unidata_version, ndiff))

    # 3. The packed tables give back the mappings, for every code point.
    delim = ranges(facts.delims)
    fold = fold_runs(facts.fold)
    runs, values = strip_runs(facts.strip)
    dset = set()
    for a, b in delim:
        dset.update(range(a, b + 1))
    if dset != facts.delims:
        fail('delimiter ranges')
    for c in range(MAX_CP + 1):
        if run_map(fold, [], c) != facts.fold.get(c, c):
            fail('fold table at U+%04X' % c)
        if run_map(runs, values, c) != facts.strip.get(c, c):
            fail('strip table at U+%04X' % c)

    # 4. MongoDB's invariants (codepoints_test.cpp).
    for c in range(MAX_CP + 1):
        f = facts.fold.get(c, c)
        s = facts.strip.get(c, c)
        if facts.fold.get(f, f) != f:
            fail('fold is not a fixed point at U+%04X' % c)
        if facts.strip.get(s, s) != s:
            fail('strip is not a fixed point at U+%04X' % c)
        if (s == 0) != (c == 0 or c in facts.diacritics):
            fail('strip gives 0 at U+%04X but it is no diacritic' % c)

    # 5. Known answers.
    known = [
        (facts.delims, [0x20, 0x2D, 0x2E, 0x22, 0x27, 0xBF, 0xAB, 0xA0, 0x2019, 0x3002], True),
        (facts.delims, [0x5F, 0x61, 0xEA, 0x3C0, 0x3A9, 0xE5, 0x30], False),
    ]
    for cps, cases, want in known:
        for c in cases:
            if (c in cps) != want:
                fail('delimiter U+%04X' % c)
    for c, want in [(0x41, 0x61), (0xC0, 0xE0), (0x3A3, 0x3C3), (0x3C2, 0x3C3),
                    (0x410, 0x430), (0x130, 0x130), (0xDF, 0xDF), (0x1E9E, 0xDF)]:
        if facts.fold.get(c, c) != want:
            fail('fold U+%04X' % c)
    for c, want in [(0xE9, 0x65), (0xF1, 0x6E), (0xC5, 0x41), (0x1D6, 0x75),
                    (0x301, 0), (0x5E, 0), (0x60, 0), (0xAC00, 0xAC00), (0x4E00, 0x4E00)]:
        if facts.strip.get(c, c) != want:
            fail('strip U+%04X' % c)

    print('%d failures' % len(failures))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('output', nargs='?', help='the C file to write (default: stdout)')
    ap.add_argument('--ucd', default=UCD_DIR, help='the Unicode data directory')
    ap.add_argument('--check', action='store_true', help='run the self-checks')
    ap.add_argument('--dump', action='store_true', help='print every code point\'s facts')
    args = ap.parse_args()
    facts = load(args.ucd)
    if args.check:
        sys.exit(check(facts, args.ucd))
    out = open(args.output, 'w', encoding='utf-8') if args.output else sys.stdout
    if args.dump:
        dump(facts, out)
    else:
        out.write(c_source(facts))
    if args.output:
        out.close()


if __name__ == '__main__':
    main()
