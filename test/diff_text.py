#!/usr/bin/python3
"""test/diff_text.py — differential test of text indexes and $text against
a model, written here from MongoDB's sources (src/mongo/db/fts/: fts_spec,
fts_element_iterator, fts_query_impl/fts_query_parser, fts_matcher,
fts_unicode_tokenizer, fts_unicode_phrase_matcher, unicode/), of MongoDB's
text search (text index version 3) in its 15 languages and "none".

    make && /usr/bin/python3 test/diff_text.py [CASES] [SEED]
    (test/diff_text.sh runs it; test/run.sh runs test/diff_*.sh)

Loads ./docext.so (or $DOCEXT_SO without the suffix). First a list of fixed
cases, worked out by hand (FIXED: each checks the model too) and a few
statements naming refused languages that must fail (FIXED_ERRORS), then
CASES random $text queries in batches. Each batch picks one to four
languages to favour (FOCUS) and is a fresh collection with a text index of
random options (text fields with random weights, some named by the weights
option alone, or "$**"; a default language, any of the 16 by name or code
in any case; a language override field; now and then fields before and
after the text fields, the query then giving an equality on the one
before; now and then first a default language MongoDB does not know: that
doc_create_index must fail), about 30 random documents made of a small
vocabulary per language that collides after stemming, case folding and
diacritic stripping (strings in arrays, nested arrays, embedded documents
and arrays of them, per-document and per-subdocument languages named in
any way, now and then a language MongoDB refuses — "klingon", "fr-FR",
"no", "", a number —: the write must then fail), and about 20 random
queries (terms, negations, phrases, $language, $caseSensitive,
$diacriticSensitive; sometimes with {n: {$gte: 2}} as well). Each query is
one comparison for each of:

  * a find projecting {_id: 1, s: {$meta: "textScore"}}: the set of _ids
    (each once), and each score to 1e-9 relative;
  * the same find with options {hint: {$natural: 1}} (a collection scan);
  * doc_count(collection, filter);
  * a find sorted by {s: {$meta: "textScore"}, _id: 1}: the same _ids and
    scores, in the order of the scores docext gave, ties by _id;
  * doc_aggregate: [{$match}, {$sort: {s: {$meta: "textScore"}, _id: 1}}]:
    the _ids in the order of the model's scores (near ties either way);
  * now and then doc_update_many(filter, {$inc: {hits: 1}}): matchedCount.

Then random documents are replaced (UPDATE c SET doc = ? WHERE _id = ?),
deleted and inserted, doc_check must say 'ok', and more queries run. A
query with a language MongoDB does not know ("klingon", "fr-FR") must be
an error.

The model:
  * languages: none, english/en, danish/da, dutch/nl, finnish/fi,
    french/fr, german/de, hungarian/hu, italian/it, norwegian/nb,
    portuguese/pt, romanian/ro, russian/ru, spanish/es, swedish/sv,
    turkish/tr; names and codes with A-Z in any case (FTSLanguage::make).
    Anything else is refused: as default_language, in a document's or
    embedded document's override field (also a non-string there), as
    $language. $language "" is no $language (TextMatchExpression takes the
    index's default when it is empty).
  * strings: FTSElementIterator — a string at a text field, the strings of
    an array there (not of arrays within it), the text fields of embedded
    documents and of arrays of them (also below a path that is itself a
    text field); with "$**" every string but the language override field's.
    A document or embedded document names its language in the override
    field; the strings within it are read in it (else the index's default).
    With "$**" a field without a weight weighs 1 (as MongoDB documents it;
    its code gives such a field the weight of the next weighted path in
    byte order).
  * words: maximal runs of code points that are not delimiters (PropList's
    White_Space, Dash, Hyphen, Quotation_Mark, Terminal_Punctuation,
    Pattern_Syntax, Sentence_Terminal; English alone keeps U+0027 in
    words, every other language and "none" cut there). Each is case-folded
    (CaseFolding.txt C+S; Turkish folds 'I' to 'ı' and 'İ' to 'i' and the
    rest as usual) for the stop-word check, stemmed, and stripped of
    diacritics (PropList's Diacritic removed; a code point maps to
    NFC(NFD(c) minus diacritics) when that is one code point), in the
    language of the string (query terms: of the query). A term that is
    empty after stripping is dropped (docext's choice; MongoDB keeps "").
    Case- and diacritic-sensitive tokens skip the folding and the stripping
    (the stemmer then sees the word as written). Unicode data:
    /usr/share/unicode (15.0); NFD/NFC: Python's unicodedata.
  * stop words: Snowball's lists as Debian's liblingua-stopwords-perl has
    them (Lingua::StopWords DA NL EN FI FR DE HU IT NO PT RU ES SV, read
    through perl at start-up), compared with the folded word (diacritics
    kept). Romanian and Turkish have none (Lingua's RO is not Snowball's),
    nor has "none". The English list is MongoDB's; its others are longer
    (French "les" is a stop word in MongoDB, not in Snowball's list): a
    known difference, docext keeps Snowball's.
  * stemmers: Snowball's of the language, via Debian's
    python3-snowballstemmer (Snowball 2.2.0, as the libstemmer docext
    links; docext stems English with its own MongoDB-exact stemmer, which
    Snowball's English matches for the words here). "none" does not stem.
  * scores: _scoreStringV2 — per string, a term's n-th occurrence adds
    1/2^(n-1) to freq; score = weight * freq * (0.5 * count / tokens + 0.5)
    * adj, adj = 1.1 when the raw string equals the term ASCII-case-
    insensitively with the same byte length; summed over the strings. The
    text score is the sum of the document's scores for the search's
    positive terms (lower-cased, "termsForBounds").
  * $search: FTSQueryParser/FTSQueryImpl — the bytes ' ', \n, \v, \f, \r
    (not \t) are white space, '-' and '"' delimiters; a '-' after white
    space negates until the next white space; "..." is a phrase (its words
    are terms too, except in a negated phrase); the sentences are tokenized
    in the query's language ($language, else the index's default) with the
    stop words dropped.
  * match: a bounds term among the document's index terms (MongoDB reads
    the text index at the bounds terms); with $caseSensitive or
    $diacriticSensitive also a positive term among its strings' tokens
    (with those options, no stop-word filter: FTSMatcher); no negated term
    among those tokens; every positive phrase and no negated phrase a
    substring of an indexed string (both case-folded unless $caseSensitive,
    stripped of diacritics unless $diacriticSensitive). A phrase compares
    with each string in that string's language (FTSMatcher::_phraseMatch:
    val.language()->getPhraseMatcher()); in Turkish both are folded the
    Turkish way even when $caseSensitive (String::substrMatch: "Turkish
    comparisons are always case insensitive").
    MODEL_SENSITIVE_NEEDS_BOUNDS=0 drops "a bounds term" for sensitive
    searches (the matcher's rule alone); the count of documents where that
    matters is printed as "sensitive match without a bounds term".

Weights are whole numbers here: MongoDB keeps a weight's integer part
(fixSpec: e.numberInt()), docext the number as given.

DIFF_SHOW (default 10) failures are printed in full; with DIFF_REPRO_DIR
set, each is also written there as a script for the sqlite3 shell. The last
line is "N passed, M failed"; the exit status is 1 when M > 0.
"""
import bisect
import json
import os
import random
import sqlite3
import subprocess
import sys
import unicodedata

import snowballstemmer

SO = os.environ.get("DOCEXT_SO", "./docext")
UCD = os.environ.get("UCD_DIR", "/usr/share/unicode")
REL = 1e-9
MAX_SHOWN = int(os.environ.get("DIFF_SHOW", "10"))
SENSITIVE_NEEDS_BOUNDS = os.environ.get("MODEL_SENSITIVE_NEEDS_BOUNDS", "1") == "1"
STATS = {"sensitive match without a bounds term": 0}

# ---------------------------------------------------------------------------
# Unicode facts (the data MongoDB's gen_*.py read, in Unicode 15)

def _proplist():
    props = {}
    with open(os.path.join(UCD, "PropList.txt"), encoding="utf-8") as f:
        for line in f:
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            rng, prop = [x.strip() for x in data.split(";")]
            if ".." in rng:
                a, b = rng.split("..")
                cps = range(int(a, 16), int(b, 16) + 1)
            else:
                cps = [int(rng, 16)]
            props.setdefault(prop, set()).update(cps)
    return props

PROPS = _proplist()
DELIMITERS = set()
for _p in ("White_Space", "Dash", "Hyphen", "Quotation_Mark",
           "Terminal_Punctuation", "Pattern_Syntax", "Sentence_Terminal"):
    DELIMITERS |= PROPS[_p]
DIACRITICS = PROPS["Diacritic"]

CASEFOLD = {}
with open(os.path.join(UCD, "CaseFolding.txt"), encoding="utf-8") as _f:
    for _line in _f:
        _data = _line.split("#", 1)[0].strip()
        if not _data:
            continue
        _v = [x.strip() for x in _data.split(";")]
        if _v[1] in ("C", "S"):
            CASEFOLD[int(_v[0], 16)] = int(_v[2], 16)

_strip_cache = {}

def strip_cp(c):
    """The code point c without diacritics: 0 for a pure diacritic."""
    r = _strip_cache.get(c)
    if r is None:
        if c in DIACRITICS:
            r = 0
        else:
            d = unicodedata.normalize("NFD", chr(c))
            kept = "".join(ch for ch in d if ord(ch) not in DIACRITICS)
            n = unicodedata.normalize("NFC", kept)
            r = ord(n) if len(n) == 1 and n != chr(c) else c
        _strip_cache[c] = r
    return r

def fold(s, lang=None):
    """toLowerToBuf: CaseFolding.txt C+S per code point; Turkish maps 'I' to
    dotless 'ı' and 'İ' to 'i' (MongoDB's CaseFoldMode::kTurkish)."""
    if lang == "turkish":
        return "".join("\u0131" if ch == "I" else "i" if ch == "\u0130" else
                       chr(CASEFOLD.get(ord(ch), ord(ch))) for ch in s)
    return "".join(chr(CASEFOLD.get(ord(ch), ord(ch))) for ch in s)

def strip(s):
    out = []
    for ch in s:
        r = strip_cp(ord(ch))
        if r:
            out.append(chr(r))
    return "".join(out)

def fold_phrase(s, case_sens, diac_sens, lang):
    """substrMatch's caseFoldAndStripDiacritics: fold each code point, then
    strip it. Turkish comparisons always fold ("due to their handling of
    I/i"), $caseSensitive or not."""
    if not case_sens or lang == "turkish":
        s = fold(s, lang)
    if not diac_sens:
        s = strip(s)
    return s

# ---------------------------------------------------------------------------
# Languages, stop words, stemmers

# MongoDB's text languages (version 3): name or ISO code, ASCII case
# ignored (FTSLanguage::make lower-cases the name).
LANGUAGE_CODES = {
    "none": "none", "english": "en", "danish": "da", "dutch": "nl",
    "finnish": "fi", "french": "fr", "german": "de", "hungarian": "hu",
    "italian": "it", "norwegian": "nb", "portuguese": "pt", "romanian": "ro",
    "russian": "ru", "spanish": "es", "swedish": "sv", "turkish": "tr",
}
LANGS = {}
for _name, _code in LANGUAGE_CODES.items():
    LANGS[_name] = _name
    LANGS[_code] = _name

# Snowball's stop word lists, as Debian's liblingua-stopwords-perl has them
# (Lingua::StopWords::XX, read once through perl). Romanian and Turkish have
# none (Lingua's RO list is not Snowball's), nor has "none". Lingua's EN list
# is MongoDB's stop_words_english.txt; MongoDB's other lists differ (its
# French one has "les", Snowball's has not): a known difference, docext keeps
# Snowball's.
STOP_MODULES = {"danish": "DA", "dutch": "NL", "english": "EN", "finnish": "FI",
                "french": "FR", "german": "DE", "hungarian": "HU", "italian": "IT",
                "norwegian": "NO", "portuguese": "PT", "russian": "RU",
                "spanish": "ES", "swedish": "SV"}

def _stop_words():
    script = ('use Lingua::StopWords qw(getStopWords);'
              'for my $m (@ARGV) { my $w = getStopWords($m, "UTF-8");'
              ' print "$m\t$_\n" for sort keys %$w }')
    try:
        out = subprocess.run(["perl", "-CS", "-e", script] + sorted(STOP_MODULES.values()),
                             check=True, capture_output=True).stdout.decode("utf-8")
    except (OSError, subprocess.CalledProcessError):
        print("diff_text: perl's Lingua::StopWords (liblingua-stopwords-perl) is needed", file=sys.stderr)
        print("0 passed, 1 failed")
        sys.exit(1)
    by_module = {}
    for line in out.splitlines():
        m, w = line.split("\t")
        by_module.setdefault(m, set()).add(w)
    lists = {lang: by_module.get(m, set()) for lang, m in STOP_MODULES.items()}
    for lang, words in lists.items():
        if len(words) < 50:
            print("diff_text: Lingua::StopWords gave %d %s stop words" % (len(words), lang), file=sys.stderr)
            print("0 passed, 1 failed")
            sys.exit(1)
    return lists

STOP_WORDS = _stop_words()
NO_STOP_WORDS = frozenset()

# MongoDB's stop_words_english.txt: Lingua's EN must be the same list.
MONGODB_ENGLISH = set("""
than during himself your theirs most same wouldn't at it here's their his an
out between doesn't not those only yourself mustn't and shouldn't him you'll
which more shan't after why up further over no its until them you don't few
why's i've for ours some when's they've won't herself but she he'd how's were
how we've because aren't should our each once they'd where above there or
they'll be to are it's too itself what whom has they're had she'd these other
when hasn't by we'll having then against he's as is that isn't below could
wasn't who's ourselves so any he cannot weren't was my would we'd yourselves
where's couldn't who didn't from i'm off have hers i am themselves of before
i'll here while what's myself ought me the into about this do can't a her
that's did very down you've we you're haven't on let's such they in with being
doing she's yours hadn't nor both does own again there's he'll i'd under you'd
through we're she'll been all if
""".split())
if STOP_WORDS["english"] != MONGODB_ENGLISH:
    print("diff_text: Lingua::StopWords::EN is not MongoDB's English list", file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)

# Snowball's stemmers (Debian's python3-snowballstemmer, Snowball 2.2.0, as
# the libstemmer docext links); "none" does not stem. English: Snowball's
# English stemmer, which docext's own MongoDB-exact stemmer matches for the
# words here.
_stemmers = {}
_stem_cache = {}

def stem(w, lang):
    if lang == "none":
        return w
    r = _stem_cache.get((lang, w))
    if r is None:
        st = _stemmers.get(lang)
        if st is None:
            st = _stemmers[lang] = snowballstemmer.stemmer(lang)
        r = st.stemWord(w)
        _stem_cache[(lang, w)] = r
    return r

# ---------------------------------------------------------------------------
# MODEL

def language(name):
    """The language a name or code stands for ('french'), or None (refused)."""
    k = "".join(c.lower() if c < "\x80" else c for c in name)   # A-Z only
    return LANGS.get(k)

def words(s, lang):
    """UnicodeFTSTokenizer's words: runs of non-delimiters (English keeps
    U+0027 in words; every other language cuts there)."""
    out, cur = [], []
    for ch in s:
        c = ord(ch)
        delim = c in DELIMITERS and not (lang == "english" and c == 0x27)
        if delim:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out

def tokens(s, lang, stop=True, case_sens=False, diac_sens=False):
    """UnicodeFTSTokenizer::moveNext: fold (Turkish: its i's), drop a stop
    word, take the word as written when case-sensitive, stem, strip."""
    stops = STOP_WORDS.get(lang, NO_STOP_WORDS) if stop else NO_STOP_WORDS
    out = []
    for w in words(s, lang):
        low = fold(w, lang)
        if low in stops:
            continue
        t = stem(w if case_sens else low, lang)
        if not diac_sens:
            t = strip(t)
        if t:
            out.append(t)
    return out


class Spec:
    """A text index: weights (path -> weight), wildcard, default language,
    language override field, compound prefix/suffix fields."""

    def __init__(self, weights, wildcard, default_lang, override, before, after):
        self.weights = dict(weights)
        self.wildcard = wildcard
        self.default_lang = default_lang
        self.override = override
        self.before = before
        self.after = after
        self.sorted = sorted(self.weights)

    def lower_bound(self, key):
        i = bisect.bisect_left(self.sorted, key)
        return self.sorted[i] if i < len(self.sorted) else None


def doc_lang(obj, spec, parent):
    if isinstance(obj, dict) and spec.override in obj:
        v = obj[spec.override]
        if not isinstance(v, str):
            raise ValueError("language override not a string")
        lang = language(v)
        if lang is None:
            raise ValueError("language override unsupported: %r" % v)
        return lang
    return parent

def walk(spec, doc):
    """FTSElementIterator: [(string, language, weight)]."""
    out = []

    def frame(obj, parent_path, is_array, parent_lang):
        lang = doc_lang(obj, spec, parent_lang)
        items = enumerate(obj) if is_array else obj.items()
        for name, v in items:
            name = str(name)
            if spec.wildcard and name == spec.override:
                continue
            dotted = name if parent_path == "" else (
                parent_path if is_array else parent_path + "." + name)
            i = spec.lower_bound(dotted + "." if isinstance(v, dict) else dotted)
            possible = i is not None
            if not spec.wildcard:
                if not possible:
                    continue
                if not (i == dotted or i.startswith(dotted + ".")):
                    continue
            exact = possible and i == dotted
            # docext's (and MongoDB's documented) weight: that of the path,
            # else 1.
            weight = spec.weights.get(dotted, 1)
            if isinstance(v, str):
                if exact or spec.wildcard:
                    out.append((v, lang, weight))
            elif isinstance(v, dict):
                if not exact or spec.wildcard:
                    frame(v, dotted, False, lang)
            elif isinstance(v, list):
                if not is_array or spec.wildcard:
                    frame(v, dotted, True, lang)

    frame(doc, "", False, spec.default_lang)
    return out

def ascii_lower(b):
    return b.lower()   # bytes.lower() lowers A-Z only

def score_strings(strings):
    """_scoreStringV2 over each string: {term: score}."""
    scores = {}
    for s, lang, weight in strings:
        toks = tokens(s, lang)
        if not toks:
            continue
        data = {}
        for t in toks:
            d = data.setdefault(t, [0, 0.0, 0.0])   # count, freq, exp
            d[2] = d[2] * 2 if d[2] else 1.0
            d[0] += 1
            d[1] += 1 / d[2]
        raw = s.encode("utf-8")
        for t in sorted(data):
            count, freq, _ = data[t]
            coeff = 0.5 * count / len(toks) + 0.5
            tb = t.encode("utf-8")
            adj = 1.1 if len(raw) == len(tb) and ascii_lower(raw) == ascii_lower(tb) else 1.0
            scores[t] = scores.get(t, 0.0) + weight * freq * coeff * adj
    return scores

QUERY_SPACE = b" \n\v\f\r"

def parse_search(search):
    """FTSQueryImpl::parse over FTSQueryParser's tokens: (positive sentence,
    negative sentence, positive phrases, negated phrases)."""
    raw = search.encode("utf-8")
    toks = []    # (kind, bytes, offset, previousWhiteSpace)
    pos = 0
    while pos < len(raw) and raw[pos] in QUERY_SPACE:
        pos += 1
    prev_ws = True
    while pos < len(raw):
        start = pos
        c = raw[pos]
        pos += 1
        if c in b'-"':
            kind = "D"
        else:
            kind = "T"
            while pos < len(raw) and raw[pos] not in QUERY_SPACE and raw[pos] not in b'-"':
                pos += 1
        data = raw[start:pos]
        ws_start = pos
        while pos < len(raw) and raw[pos] in QUERY_SPACE:
            pos += 1
        toks.append((kind, data, start, prev_ws))
        prev_ws = pos > ws_start
    pos_s, neg_s, pos_ph, neg_ph = [], [], [], []
    in_neg = in_phrase = False
    quote = 0
    for kind, data, off, pws in toks:
        if kind == "T":
            if in_phrase and in_neg:
                continue
            if in_neg and pws:
                in_neg = False
            (neg_s if in_neg else pos_s).append(data)
        elif data == b"-":
            if not in_phrase and pws:
                in_neg = True
        else:
            if in_phrase:
                phrase = raw[quote + 1:off].decode("utf-8")
                (neg_ph if in_neg else pos_ph).append(phrase)
                in_phrase = False
            else:
                in_phrase = True
                if in_neg and pws:
                    in_neg = False
                quote = off
    pos_sentence = b"".join(x + b" " for x in pos_s).decode("utf-8")
    neg_sentence = b"".join(x + b" " for x in neg_s).decode("utf-8")
    return pos_sentence, neg_sentence, pos_ph, neg_ph


class Query:
    def __init__(self, search, lang, case_sens, diac_sens):
        self.search = search
        self.lang = lang
        self.cs = case_sens
        self.ds = diac_sens
        ps, ns, self.pos_phrases, self.neg_phrases = parse_search(search)
        self.bounds = set(tokens(ps, lang))
        if case_sens or diac_sens:
            self.positive = set(tokens(ps, lang, True, case_sens, diac_sens))
            self.negated = set(tokens(ns, lang, True, case_sens, diac_sens))
        else:
            self.positive = set(self.bounds)
            self.negated = set(tokens(ns, lang))


def phrase_in(ph, strings, q):
    """FTSMatcher::_phraseMatch: is the phrase in one of the strings? Each
    string compares in its own language (val.language()'s phrase matcher)."""
    for s, lang, _ in strings:
        if fold_phrase(ph, q.cs, q.ds, lang) in fold_phrase(s, q.cs, q.ds, lang):
            return True
    return False

def model_match(spec, q, doc, doc_terms):
    """None (no match) or the text score."""
    strings = walk(spec, doc)
    has_bounds = any(t in doc_terms for t in q.bounds)
    sensitive = q.cs or q.ds
    if sensitive:
        has_pos = any(t in q.positive
                      for s, lang, _ in strings
                      for t in tokens(s, lang, False, q.cs, q.ds))
        ok = has_pos and (has_bounds or not SENSITIVE_NEEDS_BOUNDS)
        if has_pos and not has_bounds:
            STATS["sensitive match without a bounds term"] += 1
    else:
        ok = has_bounds
    if not ok:
        return None
    if q.negated:
        for s, lang, _ in strings:
            for t in tokens(s, lang, False, q.cs, q.ds):
                if t in q.negated:
                    return None
    for ph in q.pos_phrases:
        if not phrase_in(ph, strings, q):
            return None
    for ph in q.neg_phrases:
        if phrase_in(ph, strings, q):
            return None
    return sum(doc_terms.get(t, 0.0) for t in q.bounds)

# ---------------------------------------------------------------------------
# Random generation

LONG = "abc_" * 64      # 256 bytes, as long as docext's key; the stemmer leaves it

WORDS = [
    # English, symbols, other scripts: stems that collide
    "run", "runs", "running", "Running", "runner", "RUNNERS", "Run", "RUN", "ran",
    "connect", "connected", "connection", "Connections", "connecting",
    "happy", "happiness", "happily", "generous", "generously", "Generous",
    "haves", "Haves", "having", "Having", "have",
    # case and diacritics
    "café", "cafe", "Café", "CAFÉ", "CAFE", "cafés", "cafe\u0301", "Cafe\u0301s",
    "naïve", "naive", "NAÏVE", "résumé", "resume", "Résumés", "resumes",
    "élan", "Élan", "ELAN", "façade", "facade", "Façades",
    "Straße", "strasse", "STRASSE", "\u1e9e", "ß",
    "İstanbul", "istanbul", "ISTANBUL", "ǅungla",
    "x\u00b4", "\u00b4", "\u00a8", "l\u00b7l", "a\u02c6b",
    # stop words
    "the", "The", "THE", "and", "a", "of", "is", "not", "Not", "it's", "its",
    "don't", "Don't", "DON'T", "can't", "ourselves", "Ourselves",
    # apostrophes
    "dog's", "dogs", "dog", "Dog", "DOGS", "dog\u2019s", "don\u2019t", "o'clock",
    "'quoted'", "rock'n'roll",
    # hyphens and dashes, quotes, punctuation
    "well-known", "well\u2010known", "e-mail", "email", "E-Mail", "co-op", "coop",
    "en\u2013dash", "em\u2014dash", "\u201cquoted\u201d", "\u2018single\u2019",
    "\"dq\"", "hello,world", "end.", "what?", "wow!", "a/b", "(paren)",
    "semi;colon", "key:value", "50%", "#tag", "@user", "under_score", "a^b",
    "`tick`", "x+y", "1.5", "3,14", "\u00bfqu\u00e9?", "\u00a1s\u00ed!",
    # digits
    "42", "2024", "x2", "007",
    # other scripts
    "сырники", "Сырники", "СЫРНИКИ", "ёлка", "елка", "Ёлка",
    "λόγος", "λογος", "ΛΌΓΟΣ", "Ελλάδα", "ελλαδα", "σοφία",
    "東京", "😀", "ｆｕｌｌ", "ＦＵＬＬ", "\u212a", "\u212aelvin", "kelvin", "\u2126",
    "\ufb01ne", "fine", "\u01c5", "\u017fun", "sun", "SUN",
    # long words: terms beyond 32 bytes (MongoDB's key keeps 32 and a hash);
    # the Cyrillic two share their first 32
    "supercalifragilisticexpialidocious", "Supercalifragilisticexpialidociousness",
    "supercalifragilisticexpialidociously", "pneumonoultramicroscopicsilicovolcanoconiosis",
    "antidisestablishmentarianism", "\u0434\u043e\u0441\u0442\u043e\u043f\u0440\u0438\u043c\u0435\u0447\u0430\u0442\u0435\u043b\u044c\u043d\u043e\u0441\u0442\u044c",
    "\u0434\u043e\u0441\u0442\u043e\u043f\u0440\u0438\u043c\u0435\u0447\u0430\u0442\u0435\u043b\u044c\u043d\u043e\u0441\u0442\u0438",
    # terms beyond docext's 256-byte key, sharing their first 256 bytes
    LONG, LONG + "x1", LONG + "x2", LONG[:-1], LONG + "runs", LONG.upper() + "X1",
    # plain words
    "coffee", "Coffee", "shop", "shopping", "Shops", "cake", "baking", "bake",
    "river", "rivers", "water", "lake", "lakes", "fast", "faster", "car", "cars",
]

SEPARATORS = [" ", " ", " ", "  ", ", ", ". ", "-", " - ", " \u2014 ", "\t", "\n",
              "\u00a0", "/", "\u2019", "'", "; ", "!", "\u3000", "_", "\u2026"]

# Words of the other languages: inflected forms that share a stem, stop
# words, apostrophes (delimiters outside English), diacritics and case.
LANG_WORDS = {
    "french": ["cheval", "chevaux", "Chevaux", "CHEVAL", "maison", "maisons", "Maisons",
               "l'eau", "L'Eau", "eau", "d'eau", "aujourd'hui", "qu'il", "c'est", "les",
               "Les", "des", "une", "été", "ete", "Été", "ÉTÉ", "élève", "élèves", "eleve",
               "manger", "mangeons", "mangé", "continuation", "continuer", "français",
               "Française", "francais", "être", "à", "où", "de"],
    "german": ["Haus", "Häuser", "haus", "HÄUSER", "Hauses", "hauser", "und", "Und", "der",
               "die", "nicht", "Buch", "Bücher", "bucher", "laufen", "läuft", "gelaufen",
               "Mädchen", "madchen", "über", "Über", "uber", "Straße", "Strassen", "größer",
               "grosser", "Äpfel", "Apfel"],
    "spanish": ["niño", "niños", "nino", "Niños", "NIÑOS", "los", "Los", "las", "el", "del",
                "correr", "corriendo", "corre", "canción", "canciones", "cancion", "año",
                "años", "ano", "señor", "Señores", "¿qué?", "mañana", "de"],
    "russian": ["книга", "книги", "Книга", "КНИГИ", "книгу", "были", "Были", "был", "и",
                "не", "в", "дом", "дома", "домов", "Дом", "бегать", "бежал", "ёж", "ежи",
                "Ёж", "мир", "миры", "её", "ее"],
    "turkish": ["Istanbul", "İstanbul", "istanbul", "ıstanbul", "ISTANBUL", "İSTANBUL",
                "ılık", "ILIK", "Ilık", "ilik", "İLİK", "kitap", "kitaplar", "Kitaplar",
                "KİTAPLAR", "kitapları", "ev", "evler", "evlerimiz", "Iğdır", "ığdır",
                "şehir", "şehirler", "ŞEHİR", "çocuk", "çocuklar", "ve", "bir", "DİL", "dil",
                "dıl", "DIL", "I", "İ", "ı", "i"],
    "dutch": ["huis", "huizen", "Huizen", "fiets", "fietsen", "de", "het", "een", "van",
              "lopen", "gelopen", "kind", "kinderen", "café's", "zee", "zeeën", "'s"],
    "danish": ["hus", "huse", "husene", "barn", "børn", "Børn", "og", "ikke", "København",
               "kobenhavn", "æble", "æbler", "Ærø", "af"],
    "swedish": ["häst", "hästar", "Hästarna", "och", "inte", "flicka", "flickorna",
                "Göteborg", "goteborg", "åker", "åkrar", "av"],
    "norwegian": ["hest", "hester", "hestene", "og", "ikke", "bok", "bøker", "jente",
                  "jenter", "Tromsø", "tromso", "av"],
    "finnish": ["talo", "talossa", "taloissa", "ja", "ei", "kissa", "kissat", "kissoja",
                "Hyvää", "päivää", "paiva", "ovat"],
    "hungarian": ["ház", "házak", "haz", "és", "nem", "könyv", "könyvek", "alma", "almák",
                  "Győr", "gyor", "az"],
    "italian": ["acqua", "dell'acqua", "l'acqua", "Dell'Acqua", "gatto", "gatti", "della",
                "il", "di", "che", "città", "citta", "perché", "bambino", "bambini",
                "un'altra", "sono"],
    "portuguese": ["cidade", "cidades", "não", "nao", "coração", "corações", "livro",
                   "livros", "os", "uma", "São", "sao", "d'água", "de"],
    "romanian": ["școală", "școli", "scoala", "şcoală", "ŞCOALĂ", "țară", "tara", "țări",
                 "ţară", "mâine", "maine", "în", "și", "şi", "pâine", "câine", "câini",
                 "Îmi", "ăsta", "de", "cu"],
}
ALL_LANGS = sorted(LANGUAGE_CODES)             # the 15 and "none"

OVERRIDES = [None, None, "lang", "idioma"]
# refused languages: an error where read (MongoDB's Norwegian is "nb", not "no")
BAD_LANGS = [7, "klingon", "fr-FR", "", "english ", "fra", "no", {"x": 1}, ["english"]]
BAD_QUERY_LANGS = ["klingon", "fr-FR", "no", "english ", 7]

# The languages of a batch: a few, so that documents, queries and words meet.
FOCUS = ["english"]


def lang_name(rng, lang):
    """A way of naming lang: its name or code, in some case."""
    n = rng.choice([lang, lang, LANGUAGE_CODES[lang]])
    return rng.choice([n, n, n.upper(), n.capitalize()])

def rand_lang(rng):
    return rng.choice(FOCUS) if rng.random() < 0.8 else rng.choice(ALL_LANGS)

def rand_word(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(WORDS)
    lang = rand_lang(rng)
    return rng.choice(LANG_WORDS.get(lang) or WORDS)

def rand_string(rng):
    # mostly the words of one language, else of any
    if rng.random() < 0.6:
        group = LANG_WORDS.get(rand_lang(rng), WORDS)
        word = lambda: rng.choice(group)
    else:
        word = lambda: rand_word(rng)
    r = rng.random()
    if r < 0.2:
        return word()
    if r < 0.23:
        return rng.choice(["", " ", "\u2014", "the", "The and of", "\u00b4", "- -", "les et de",
                           "und die", "и не в", "'", "l'"])
    if r < 0.3:
        w = word()
        return rng.choice(SEPARATORS).join([w] * rng.randint(2, 5)) + rng.choice(["", " " + word()])
    n = rng.randint(2, 7)
    parts = []
    for i in range(n):
        if i:
            parts.append(rng.choice(SEPARATORS))
        parts.append(word())
    s = "".join(parts)
    if rng.random() < 0.1:
        s = rng.choice(SEPARATORS) + s
    if rng.random() < 0.1:
        s = s + rng.choice(SEPARATORS)
    return s

def rand_strings(rng, nested=True):
    out = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if nested and r < 0.12:
            out.append(rand_strings(rng, False))
        elif r < 0.18:
            out.append(rng.choice([5, 2.5, True, None]))
        elif nested and r < 0.25:
            out.append({"note": rand_string(rng)})
        else:
            out.append(rand_string(rng))
    return out

def rand_meta_obj(rng, override):
    m = {}
    if rng.random() < 0.7:
        m["note"] = rand_string(rng) if rng.random() < 0.85 else rand_strings(rng)
    if rng.random() < 0.5:
        m["tags"] = rand_strings(rng) if rng.random() < 0.7 else rand_string(rng)
    if rng.random() < 0.2:
        m["other"] = rand_string(rng)
    if rng.random() < 0.15:
        m["deep"] = {"note": rand_string(rng)}
    if override and rng.random() < 0.3:
        m[override] = lang_name(rng, rand_lang(rng)) if rng.random() < 0.95 else rng.choice(BAD_LANGS)
    return m

def rand_doc(rng, _id, override, decoy):
    d = {"_id": _id}
    r = rng.random()
    if r < 0.75:
        d["title"] = rand_string(rng)
    elif r < 0.82:
        d["title"] = rng.choice([42, 1.5, None, False, {"note": rand_string(rng)}])
    elif r < 0.9:
        d["title"] = rand_strings(rng)
    r = rng.random()
    if r < 0.6:
        d["body"] = rand_string(rng)
    elif r < 0.75:
        d["body"] = rand_strings(rng)
    if rng.random() < 0.6:
        d["tags"] = rand_strings(rng)
    elif rng.random() < 0.2:
        d["tags"] = rand_string(rng)
    r = rng.random()
    if r < 0.4:
        d["meta"] = rand_meta_obj(rng, override)
    elif r < 0.6:
        d["meta"] = [rand_meta_obj(rng, override) if rng.random() < 0.8 else
                     rng.choice([rand_string(rng), [rand_meta_obj(rng, override)]])
                     for _ in range(rng.randint(0, 3))]
    elif r < 0.65:
        d["meta"] = rand_string(rng)
    if rng.random() < 0.3:
        d["extra"] = {"s": rand_string(rng), "n": [1, {"t": rand_string(rng)}]}
    if rng.random() < 0.5:
        d["n"] = rng.choice([1, 2, 3.5, -7])
    if rng.random() < 0.2:
        d["flag"] = rng.random() < 0.5
    if rng.random() < 0.7:
        d["cat"] = rng.choice(["a", "b"])
    if override and rng.random() < 0.35:
        d[override] = lang_name(rng, rand_lang(rng)) if rng.random() < 0.97 else rng.choice(BAD_LANGS)
    if decoy and rng.random() < 0.3:
        d[decoy] = rng.choice(["english", "none", "spanish", "klingon", rand_string(rng)])
    keys = list(d)[1:]
    rng.shuffle(keys)
    return {"_id": _id, **{k: d[k] for k in keys}}

TEXT_FIELDS = ["title", "body", "tags", "meta.note", "meta.tags", "tags.note", "meta", "meta.deep.note"]

def rand_spec(rng):
    """(key pattern, options, Spec)."""
    override = rng.choice(OVERRIDES)
    default = None if rng.random() < 0.15 else lang_name(rng, rand_lang(rng))
    options = {}
    if default is not None:
        options["default_language"] = default
    if override is not None:
        options["language_override"] = override
    weights = {}
    before, after = [], []
    if rng.random() < 0.25:
        key = {"$**": "text"}
        wildcard = True
        if rng.random() < 0.6:
            for f in rng.sample(["title", "tags", "meta.note", "body", "extra.s"], rng.randint(1, 3)):
                weights[f] = rng.randint(2, 9)
            options["weights"] = dict(weights)
    else:
        wildcard = False
        fields = rng.sample(TEXT_FIELDS[:6], rng.randint(1, 3))
        if rng.random() < 0.08:
            fields.append(rng.choice(["meta", "meta.deep.note"]))
        key = {}
        if rng.random() < 0.15:
            key["cat"] = 1
            before.append("cat")
        for f in fields:
            key[f] = "text"
            weights[f] = 1
        if override and rng.random() < 0.06:
            fields.append(override)
            key[override] = "text"
            weights[override] = 1
        if rng.random() < 0.1:
            key["n"] = -1
            after.append("n")
        w = {}
        for f in fields:
            if rng.random() < 0.5:
                w[f] = rng.randint(1, 12) if rng.random() < 0.9 else rng.choice([99999, 1000, 37])
        if rng.random() < 0.08:
            extra = rng.choice([f for f in TEXT_FIELDS[:6] if f not in fields] or ["body"])
            if extra not in fields:
                w[extra] = rng.randint(1, 5)
        if w:
            options["weights"] = w
            weights.update(w)
    lang = language(default) if default else "english"
    spec = Spec(weights, wildcard, lang, override or "language", before, after)
    return key, options, spec

def rand_phrase(rng, docs):
    r = rng.random()
    if r < 0.6 and docs:
        d = rng.choice(docs)
        strings = [s for s, _, _ in walk_any(d) if s]
        if strings:
            s = rng.choice(strings)
            a = rng.randint(0, len(s) - 1)
            b = rng.randint(a + 1, min(len(s), a + 14))
            p = s[a:b]
            if '"' not in p:
                if rng.random() < 0.3:
                    p = p.upper() if rng.random() < 0.5 else p.lower()
                return p
    if r < 0.65:
        return ""
    return rand_word(rng).replace('"', "") + rng.choice([" ", "-", ", "]) + rand_word(rng).replace('"', "")

def walk_any(doc):
    """Every string of a document (for picking phrases)."""
    out = []
    def rec(v):
        if isinstance(v, str):
            out.append((v, None, None))
        elif isinstance(v, dict):
            for x in v.values():
                rec(x)
        elif isinstance(v, list):
            for x in v:
                rec(x)
    rec(doc)
    return out

def rand_search(rng, docs):
    parts = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.5:
            w = rand_word(rng)
            if rng.random() < 0.15:
                w = w.upper()
            elif rng.random() < 0.1:
                w = w.capitalize()
            if rng.random() < 0.2:
                w = "-" + w
            parts.append(w)
        elif r < 0.72:
            p = '"' + rand_phrase(rng, docs) + '"'
            if rng.random() < 0.25:
                p = "-" + p
            parts.append(p)
        elif r < 0.78:
            parts.append("- " + rand_word(rng))
        elif r < 0.84:
            parts.append(rng.choice(["-", ""]) + rand_word(rng) + rng.choice(["-", "\t", "\u00a0", "-\"", "\u2014"]) + rand_word(rng))
        elif r < 0.88:
            parts.append('"' + rand_word(rng) + " -" + rand_word(rng) + '"')
        elif r < 0.92:
            parts.append(rng.choice(["the", "a", "-the", "and", "\u201cquoted\u201d", "\"", "--", "-\"\"", "\u00b4",
                                     "les", "-les", "und", "были", "los", "l'", "-l'eau", "ve", "și",
                                     "\"l'eau\"", "\"ILIK\"", "\"ılık\"", "\"İstanbul\"", "\"istanbul\""]))
        else:
            parts.append(rng.choice(WORDS[:30]))
    sep = lambda: rng.choice([" "] * 10 + ["  ", "\n", "\r\n", "\t", "\f", "\v"])
    if rng.random() < 0.01:
        return rng.choice(["", " ", "-", '""', "the"])
    s = ""
    for i, p in enumerate(parts):
        if i:
            s += sep()
        s += p
    if rng.random() < 0.05:
        s = " " + s + " "
    return s

# ---------------------------------------------------------------------------
# Fixed cases, worked out by hand from MongoDB's code (each is also a check of
# the model): (name, key, options, documents, $text, expected {_id: score}).

C2 = {"_id": 2, "a": "Coffee shop"}
FIXED = [
    ("one term; no 1.1 for 'coffee' (the term is 'coffe')", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee"}, C2], {"$search": "coffee"}, {1: 1.0, 2: 0.75}),
    ("the string is the term: 1.1", {"a": "text"}, {},
     [{"_id": 1, "a": "Run"}, {"_id": 2, "a": "runs"}], {"$search": "RUN"}, {1: 1.1, 2: 1.0}),
    ("occurrences add 1, 1/2, 1/4", {"a": "text"}, {},
     [{"_id": 1, "a": "run run run"}], {"$search": "run"}, {1: 1.75}),
    ("weights and fields named by weights alone", {"a": "text"}, {"weights": {"a": 3, "b": 2}},
     [{"_id": 1, "a": "run", "b": "run fast"}], {"$search": "run"}, {1: 3 * 1.1 + 2 * 0.75}),
    ("a tab is no white space to $search: '-' after it negates nothing", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee"}, C2], {"$search": "coffee\t-shop"}, {1: 1.0, 2: 1.5}),
    ("a tab before a quote starts no negated phrase", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee"}, C2], {"$search": "shop\t-\"coffee shop\""}, {2: 1.5}),
    ("no-break space is no white space to $search", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee"}, C2], {"$search": "coffee\u00a0-shop"}, {1: 1.0, 2: 1.5}),
    ("\\v and \\r are white space: '-' after them negates", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee"}, C2], {"$search": "coffee\u000b-shop\r-cake"}, {1: 1.0}),
    ("-a-b negates both", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee"}, C2], {"$search": "run -coffee-shop"}, {}),
    ("a stop word's stem is a negated term ('-haves' excludes 'having')", {"a": "text"}, {},
     [{"_id": 1, "a": "coffee having"}, {"_id": 2, "a": "coffee"}], {"$search": "coffee -haves"}, {2: 1.0}),
    ("a stop word is no index term ('haves' does not find 'having')", {"a": "text"}, {},
     [{"_id": 1, "a": "having"}], {"$search": "haves"}, {}),
    ("case-sensitive: the document needs a bounds term too (the index scan)", {"a": "text"}, {},
     [{"_id": 1, "a": "Having"}, {"_id": 2, "a": "Haves"}], {"$search": "Haves", "$caseSensitive": True},
     {2: 1.0}),
    ("a text field and one below it: meta.note is read", {"meta": "text", "meta.note": "text"}, {},
     [{"_id": 1, "meta": {"note": "coffee"}}, {"_id": 2, "meta": "coffee"}], {"$search": "coffee"},
     {1: 1.0, 2: 1.0}),
    ("an array's embedded documents at a text field and one below it", {"tags": "text", "tags.note": "text"},
     {"weights": {"tags.note": 2}},
     [{"_id": 1, "tags": ["coffee", {"note": "coffee"}]}], {"$search": "coffee"}, {1: 3.0}),
    ("phrases fold case and diacritics", {"a": "text"}, {},
     [{"_id": 1, "a": "Caf\u00e9 con leche"}], {"$search": "\"CAFE CON\""}, {1: 2 * (0.5 / 3 + 0.5)}),
    ("$diacriticSensitive phrases keep them", {"a": "text"}, {},
     [{"_id": 1, "a": "Caf\u00e9 con leche"}], {"$search": "\"CAFE CON\"", "$diacriticSensitive": True}, {}),
    ("English keeps U+0027 in words (and stems dog's), not U+2019; 'none' does not keep it",
     {"a": "text"}, {},
     [{"_id": 1, "a": "dog's"}, {"_id": 2, "a": "dog\u2019s"}, {"_id": 3, "a": "dog's", "language": "none"}],
     {"$search": "dog"}, {1: 1.0, 2: 0.75, 3: 0.75}),
    ("language 'none' per embedded document", {"a.b": "text"}, {},
     [{"_id": 1, "a": {"b": "running", "language": "none"}}, {"_id": 2, "a": [{"b": "running"}]}],
     {"$search": "running"}, {2: 1.0}),
    ("terms beyond 256 bytes with the same first 256: each document once", {"a": "text"}, {},
     [{"_id": 1, "a": LONG + "y1 " + LONG + "y2 " + LONG + "y2"}, {"_id": 2, "a": LONG + "y2"}],
     {"$search": LONG + "y1"}, {1: 0.5 / 3 + 0.5}),
    ("'$**': every string but the override field's, weight 1 unless named", {"$**": "text"},
     {"weights": {"x.y": 4}},
     [{"_id": 1, "x": {"y": "run"}, "z": [["run"]], "language": "english"}], {"$search": "run english"},
     {1: 4 * 1.1 + 1.1}),
    # the other languages
    ("French stems: 'chevaux' and 'cheval' are 'cheval'", {"a": "text"}, {"default_language": "french"},
     [{"_id": 1, "a": "chevaux"}, {"_id": 2, "a": "Cheval blanc"}, {"_id": 3, "a": "chevaux", "language": "en"}],
     {"$search": "CHEVAL"}, {1: 1.0, 2: 0.75}),
    ("a French stop word is no term: 'des' finds nothing (Snowball's list has no 'les')", {"a": "text"},
     {"default_language": "fr"},
     [{"_id": 1, "a": "des maisons"}, {"_id": 2, "a": "des"}], {"$search": "des Des"}, {}),
    ("'des' is a word in English, not counted in French ('maisons' alone: 1.0)", {"a": "text"},
     {"default_language": "FR"},
     [{"_id": 1, "a": "des maisons"}, {"_id": 2, "a": "des maisons", "language": "English"}],
     {"$search": "maison des", "$language": "en"}, {1: 1.0, 2: 0.75 + 0.75}),
    ("German: 'Häuser', 'hauser' and 'Haus' are 'haus' (1.1 for 'Haus' only)", {"a": "text"},
     {"default_language": "german"},
     [{"_id": 1, "a": "Häuser"}, {"_id": 2, "a": "Haus"}, {"_id": 3, "a": "hauser"}],
     {"$search": "haus"}, {1: 1.0, 2: 1.1, 3: 1.0}),
    ("Russian: 'книги', 'книга', 'книгу' are 'книг'; 'и' is a stop word", {"a": "text"},
     {"default_language": "ru"},
     [{"_id": 1, "a": "книги"}, {"_id": 2, "a": "Книга и книгу"}, {"_id": 3, "a": "и"}],
     {"$search": "КНИГА и"}, {1: 1.0, 2: 1.5}),
    ("Turkish folds 'I' to 'ı' (English to 'i')", {"a": "text"}, {"default_language": "turkish"},
     [{"_id": 1, "a": "ILIK"}, {"_id": 2, "a": "ılık"}, {"_id": 3, "a": "ilik"},
      {"_id": 4, "a": "ILIK", "language": "english"}],
     {"$search": "ılık"}, {1: 1.0, 2: 1.1}),
    ("Turkish folds 'İ' to 'i'; elsewhere 'İ' keeps its case and loses its dot", {"a": "text"},
     {"default_language": "tr"},
     [{"_id": 1, "a": "İstanbul"}, {"_id": 2, "a": "istanbul"}, {"_id": 3, "a": "Istanbul"},
      {"_id": 4, "a": "İstanbul", "language": "french"}],
     {"$search": "istanbul"}, {1: 1.0, 2: 1.1}),
    ("Turkish phrases fold even when $caseSensitive", {"a": "text"}, {"default_language": "turkish"},
     [{"_id": 1, "a": "ILIK su"}, {"_id": 2, "a": "ılık su"}, {"_id": 3, "a": "ilik su"}],
     {"$search": "su \"ılık\"", "$caseSensitive": True}, {1: 1.5, 2: 1.5}),
    ("a phrase compares in the string's language, not the query's",
     {"a": "text"}, {"default_language": "turkish"},
     [{"_id": 1, "a": "ILIK su"}, {"_id": 2, "a": "ILIK su", "language": "english"}],
     {"$search": "su \"ılık\"", "$caseSensitive": True},
     {1: 1.5}),
    ("Romanian has no stop words: 'și' is a term ('si'; 'şi' with a cedilla too)", {"a": "text"},
     {"default_language": "romanian"},
     [{"_id": 1, "a": "și în"}, {"_id": 2, "a": "şi"}, {"_id": 3, "a": "și", "language": "none"}],
     {"$search": "ȘI"}, {1: 0.75, 2: 1.0, 3: 1.0}),
    ("U+0027 is a delimiter in French: l'eau is 'l' (a stop word) and 'eau'", {"a": "text"},
     {"default_language": "french"},
     [{"_id": 1, "a": "l'eau"}, {"_id": 2, "a": "l'eau", "language": "en"}, {"_id": 3, "a": "L'Eau"}],
     {"$search": "eau"}, {1: 1.0, 3: 1.0}),
    ("$language \"\" is no $language: the index's", {"a": "text"},
     {"default_language": "french"},
     [{"_id": 1, "a": "chevaux"}], {"$search": "cheval", "$language": ""}, {1: 1.0}),
    ("languages per embedded document, by name or code in any case", {"a.b": "text"}, {},
     [{"_id": 1, "a": [{"b": "chevaux", "language": "FR"}, {"b": "chevaux"}]},
      {"_id": 2, "a": {"b": "chevaux"}}, {"_id": 3, "a": {"b": "Cheval", "language": "French"}}],
     {"$search": "cheval", "$language": "Fr"}, {1: 1.0, 3: 1.1}),
]

# Refused languages, each a statement that must fail after the index
# {a: "text", "e.b": "text"} of options FIXED_ERROR_INDEX.
FIXED_ERROR_INDEX = {"default_language": "french"}
FIXED_ERRORS = [
    ("an unknown default_language", "SELECT doc_create_index('c', '{b: \"text\"}', '{default_language: \"klingon\"}')"),
    ("default_language \"\"", "SELECT doc_create_index('c', '{b: \"text\"}', '{default_language: \"\"}')"),
    ("a document's language 'no' (Norwegian is 'nb')",
     "INSERT INTO c(doc) VALUES('{_id: 9, a: \"x\", language: \"no\"}')"),
    ("an embedded document's language 'fr-FR'",
     "INSERT INTO c(doc) VALUES('{_id: 9, e: [{b: \"x\", language: \"fr-FR\"}]}')"),
    ("$language 'klingon'", "SELECT doc_count('c', '{$text: {$search: \"x\", $language: \"klingon\"}}')"),
    ("$language 'english '", "SELECT doc_count('c', '{$text: {$search: \"x\", $language: \"english \"}}')"),
]


def run_fixed(R):
    for name, key, options, fdocs, text, want in FIXED:
        spec = spec_of(key, options)
        q = Query(text["$search"], language(text.get("$language", "")) or spec.default_lang,
                  bool(text.get("$caseSensitive")), bool(text.get("$diacriticSensitive")))
        model = {}
        for d in fdocs:
            sc = model_match(spec, q, d, model_terms(spec, d))
            if sc is not None:
                model[d["_id"]] = sc
        same = lambda got: isinstance(got, dict) and set(got) == set(want) and all(
            isinstance(got[i], (int, float)) and close(want[i], got[i]) for i in want)
        R.record("fixed (the model)", same(model),
                 "  %s\n  expected %s, the model says %s" % (name, want, model))
        R.log = []
        R.execute("DROP TABLE IF EXISTS c")
        R.execute("CREATE VIRTUAL TABLE c USING docext")
        R.execute("SELECT doc_create_index('c', ?, ?)",
                  (json.dumps(key, ensure_ascii=False), json.dumps(options, ensure_ascii=False)))
        for d in fdocs:
            R.execute("INSERT INTO c(doc) VALUES(?)", (json.dumps(d, ensure_ascii=False),))
        fj = json.dumps({"$text": text}, ensure_ascii=False)
        for how, extra in (("index", ""), ("$natural", " AND options = '{hint: {$natural: 1}}'")):
            sql = "SELECT doc FROM c WHERE filter = ? AND projection = '{s: {$meta: \"textScore\"}}'" + extra
            try:
                got = {}
                for (row,) in R.con.execute(sql, (fj,)).fetchall():
                    o = json.loads(row)
                    if o["_id"] in got:
                        got = "_id %s twice" % o["_id"]
                        break
                    got[o["_id"]] = o.get("s")
            except sqlite3.Error as e:
                got = "error: %s" % e
            R.record("fixed (%s)" % how, same(got),
                     "  %s\n  index: %s %s\n  filter: %s\n  expected %s, got %s" % (
                         name, json.dumps(key), json.dumps(options), fj, want, got), inline(sql, (fj,)))


def run_fixed_errors(R):
    R.execute("DROP TABLE IF EXISTS c")
    R.execute("CREATE VIRTUAL TABLE c USING docext")
    R.execute("SELECT doc_create_index('c', '{a: \"text\", \"e.b\": \"text\"}', ?)",
              (json.dumps(FIXED_ERROR_INDEX),))
    R.execute("INSERT INTO c(doc) VALUES('{_id: 1, a: \"x\", e: [{b: \"y\", language: \"NB\"}]}')")
    for name, sql in FIXED_ERRORS:
        try:
            R.con.execute(sql).fetchall()
            err = None
        except sqlite3.Error as e:
            err = str(e)
        R.record("fixed (refused)", err is not None and err.startswith("docext:"),
                 "  %s\n  %s\n  expected an error, got %s" % (name, sql, err or "ok"), sql)


def spec_of(key, options):
    wildcard = "$**" in key
    weights = {f: 1 for f, v in key.items() if v == "text" and f != "$**"}
    weights.update(options.get("weights", {}))
    before, after, seen = [], [], False
    for f, v in key.items():
        if v == "text":
            seen = True
        else:
            (after if seen else before).append(f)
    lang = language(options["default_language"]) if "default_language" in options else "english"
    return Spec(weights, wildcard, lang, options.get("language_override", "language"), before, after)


# ---------------------------------------------------------------------------
# Running

def run_batch(R, rng, cases, done):
    """One collection, its documents and queries; the new count of queries."""
    R.log = []
    R.execute("DROP TABLE IF EXISTS c")
    R.execute("CREATE VIRTUAL TABLE c USING docext")
    FOCUS[:] = rng.sample(ALL_LANGS, rng.randint(1, 4))
    key, options, spec = rand_spec(rng)
    if rng.random() < 0.04:
        # a default language MongoDB does not know: the index is refused
        bad = dict(options, default_language=rng.choice([b for b in BAD_LANGS if isinstance(b, str)]))
        try:
            R.execute("SELECT doc_create_index('c', ?, ?)",
                      (json.dumps(key, ensure_ascii=False), json.dumps(bad, ensure_ascii=False)))
            err = None
        except sqlite3.Error as e:
            err = str(e)
        R.record("doc_create_index refused", err is not None and err.startswith("docext:"),
                 "%s\n  expected an error, got %s" % (spec_desc(key, bad), err or "ok"))
    decoy = rng.choice(["language", "lang", "idioma"])
    if decoy == spec.override:
        decoy = None
    docs = {}
    ndocs = rng.randint(15, 35)
    index_first = rng.random() < 0.5
    str_ids = rng.random() < 0.2
    mkid = (lambda i: rng.choice(["doc", "Run", "caf\u00e9", "the"]) + "-" + str(i)) if str_ids else (lambda i: i)
    key_json = json.dumps(key, ensure_ascii=False)
    opt_json = json.dumps(options, ensure_ascii=False)
    if index_first:
        R.execute("SELECT doc_create_index('c', ?, ?)", (key_json, opt_json))
    for i in range(1, ndocs + 1):
        insert(R, rand_doc(rng, mkid(i), spec.override, decoy), docs, spec, index_first)
    if not index_first:
        # documents whose language the index cannot read make it fail
        bad = [i for i, d in docs.items() if not model_ok(spec, d)]
        try:
            R.execute("SELECT doc_create_index('c', ?, ?)", (key_json, opt_json))
            err = None
        except sqlite3.Error as e:
            err = str(e)
        R.record("doc_create_index", (err is None) == (not bad),
                 "%s\n  expected %s, got %s\n  documents: %s" % (
                     spec_desc(key, options), "an error" if bad else "ok", err or "ok",
                     [json.dumps(docs[i], ensure_ascii=False) for i in bad[:2]]))
        if bad:
            for i in bad:
                R.execute("DELETE FROM c WHERE _id = ?", (i,))
                del docs[i]
            if err is not None:
                R.execute("SELECT doc_create_index('c', ?, ?)", (key_json, opt_json))
    check(R, "doc_check after inserts", spec_desc(key, options))

    def run_queries(nq):
        nonlocal done
        dlist = list(docs.values())
        for _ in range(nq):
            if done >= cases:
                return
            done += 1
            run_query(R, rng, spec, key, options, docs, dlist)

    run_queries(rng.randint(15, 25))
    # writes: replace, delete, insert
    ids = list(docs)
    for _id in rng.sample(ids, min(len(ids), rng.randint(2, 8))):
        update(R, rand_doc(rng, _id, spec.override, decoy), docs, spec)
    for _id in rng.sample(list(docs), min(len(docs), rng.randint(0, 3))):
        R.execute("DELETE FROM c WHERE _id = ?", (_id,))
        del docs[_id]
    for i in range(rng.randint(0, 3)):
        insert(R, rand_doc(rng, mkid(1000 + i), spec.override, decoy), docs, spec)
    check(R, "doc_check after writes", spec_desc(key, options))
    run_queries(rng.randint(8, 14))
    return done


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261128
    rng = random.Random(seed)
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(SO)
    R = Recorder(con)
    run_fixed(R)
    run_fixed_errors(R)
    done = 0
    while done < cases:
        try:
            done = run_batch(R, rng, cases, done)
        except sqlite3.Error as e:
            R.record("batch", False, "  unexpected error: %s" % e)
            done += 1
    for k in sorted(R.kinds):
        print("  %-28s %d passed %d failed" % (k, R.kinds[k][0], R.kinds[k][1]), file=sys.stderr)
    for k, v in STATS.items():
        print("  (%s: %d)" % (k, v), file=sys.stderr)
    print("%d passed, %d failed" % (R.passed, R.failed))
    return 1 if R.failed else 0


class Recorder:
    """Counts the comparisons, runs and logs the SQL of a batch, shows the
    first failures (and, with DIFF_REPRO_DIR, writes each shown failure's
    batch as a SQL script for the sqlite3 shell)."""

    def __init__(self, con):
        self.con = con
        self.passed = self.failed = self.shown = 0
        self.kinds = {}
        self.log = []
        self.repro_dir = os.environ.get("DIFF_REPRO_DIR")

    def execute(self, sql, params=()):
        self.log.append(inline(sql, params) + ";")
        return self.con.execute(sql, params)

    def record(self, kind, ok, detail, query_sql=None):
        k = self.kinds.setdefault(kind, [0, 0])
        if ok:
            self.passed += 1
            k[0] += 1
            return True
        self.failed += 1
        k[1] += 1
        if self.shown < MAX_SHOWN:
            self.shown += 1
            print("FAIL %s\n%s" % (kind, detail() if callable(detail) else detail))
            if self.repro_dir:
                path = os.path.join(self.repro_dir, "fail%03d.sql" % self.shown)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(".load %s\n" % os.path.abspath(SO))
                    f.write("\n".join(self.log) + "\n")
                    if query_sql:
                        f.write(query_sql + ";\n")
                print("  repro: " + path)
        return False


def inline(sql, params):
    parts = sql.split("?")
    out = parts[0]
    for p, rest in zip(params, parts[1:]):
        out += (sqlq(p) if isinstance(p, str) else repr(p)) + rest
    return out


def sqlq(s):
    return "'" + s.replace("'", "''") + "'"

def spec_desc(key, options):
    return "  index: %s %s" % (json.dumps(key, ensure_ascii=False), json.dumps(options, ensure_ascii=False))

def model_terms(spec, doc):
    return score_strings(walk(spec, doc))

def model_ok(spec, d):
    try:
        model_terms(spec, d)
        return True
    except ValueError:
        return False

def insert(R, d, docs, spec, indexed=True):
    j = json.dumps(d, ensure_ascii=False)
    want_ok = model_ok(spec, d) or not indexed
    try:
        R.execute("INSERT INTO c(doc) VALUES(?)", (j,))
        got_ok, err = True, None
    except sqlite3.Error as e:
        got_ok, err = False, str(e)
    if want_ok and got_ok:
        docs[d["_id"]] = d
    R.record("insert", want_ok == got_ok, "  doc: %s\n  expected %s, got %s" % (
        j, "ok" if want_ok else "an error", "ok" if got_ok else err))

def update(R, d, docs, spec):
    j = json.dumps(d, ensure_ascii=False)
    want_ok = model_ok(spec, d)
    try:
        R.execute("UPDATE c SET doc = ? WHERE _id = ?", (j, d["_id"]))
        got_ok, err = True, None
    except sqlite3.Error as e:
        got_ok, err = False, str(e)
    if want_ok and got_ok:
        docs[d["_id"]] = d
    if want_ok != got_ok:
        R.record("update", False, "  doc: %s\n  expected %s, got %s" % (
            j, "ok" if want_ok else "an error", "ok" if got_ok else err))
    else:
        R.record("update", True, "")

def check(R, what, desc):
    try:
        r = R.con.execute("SELECT doc_check('c')").fetchone()[0]
    except sqlite3.Error as e:
        r = "error: %s" % e
    R.record("doc_check", r == "ok", "%s\n  %s: %s" % (desc, what, r), "SELECT doc_check('c')")

def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b), 1e-300)

def run_query(R, rng, spec, key, options, docs, dlist):
    search = rand_search(rng, dlist)
    t = {"$search": search}
    qlang = spec.default_lang
    expect_error = False
    r = rng.random()
    if r < 0.3:
        lang = rand_lang(rng)
        t["$language"] = lang_name(rng, lang)
        qlang = lang
    elif r < 0.315:
        t["$language"] = rng.choice(BAD_QUERY_LANGS)
        expect_error = True
    elif r < 0.32:
        # MongoDB reads "" as no $language (TextMatchExpression: "if
        # (_ftsQuery.getLanguage().empty())" takes the index's)
        t["$language"] = ""
    if rng.random() < 0.25:
        t["$caseSensitive"] = True
    elif rng.random() < 0.1:
        t["$caseSensitive"] = False
    if rng.random() < 0.25:
        t["$diacriticSensitive"] = True
    elif rng.random() < 0.1:
        t["$diacriticSensitive"] = False
    filt = {}
    prefix = None
    if spec.before:
        prefix = rng.choice(["a", "b"])
        filt["cat"] = prefix
    filt["$text"] = t
    ngte = rng.random() < 0.1
    if ngte:
        filt["n"] = {"$gte": 2}
    fj = json.dumps(filt, ensure_ascii=False)

    want = {}
    q = None
    if not expect_error:
        q = Query(search, qlang, bool(t.get("$caseSensitive")), bool(t.get("$diacriticSensitive")))
        for _id, d in docs.items():
            if prefix is not None and d.get("cat") != prefix:
                continue
            if ngte and not (type(d.get("n")) in (int, float) and d["n"] >= 2):
                continue
            s = model_match(spec, q, d, model_terms(spec, d))
            if s is not None:
                want[_id] = s
    shown = [False]

    def detail(got):
        def text():
            if shown[0]:
                return "  (the query above) got: %s" % fmt(got)
            shown[0] = True
            lines = [spec_desc(key, options), "  filter: " + fj]
            if q is not None:
                lines.append("  model: bounds=%s positive=%s negated=%s phrases=%s negated phrases=%s" % (
                    sorted(q.bounds), sorted(q.positive), sorted(q.negated), q.pos_phrases, q.neg_phrases))
            lines.append("  expected: %s" % ("an error" if expect_error else fmt(want)))
            lines.append("  got:      %s" % fmt(got))
            g = got if isinstance(got, dict) else {}
            bad = [i for i in sorted(set(want) | set(g)) if not isinstance(got, dict)
                   or (i in want) != (i in g) or (i in want and not close(want[i], g[i]))]
            for i in bad[:3]:
                if i in docs:
                    lines.append("  doc: " + json.dumps(docs[i], ensure_ascii=False))
                    lines.append("    strings: %s" % [(s, l, w) for s, l, w in walk(spec, docs[i])])
                    lines.append("    terms: %s" % model_terms(spec, docs[i]))
            return "\n".join(lines)
        return text

    def fmt(x):
        return json.dumps({k: x[k] for k in sorted(x)}) if isinstance(x, dict) else str(x)

    base = "SELECT doc FROM c WHERE filter = ? AND projection = ?"
    proj = '{_id: 1, s: {$meta: "textScore"}}'

    def find(extra_sql, params):
        try:
            rows = R.con.execute(base + extra_sql, (fj, proj) + params).fetchall()
        except sqlite3.Error as e:
            return "error: %s" % e, None
        got, order = {}, []
        for (row,) in rows:
            o = json.loads(row)
            if o["_id"] in got:
                return "_id %s twice in %s" % (json.dumps(o["_id"]), [json.loads(r[0])["_id"] for r in rows]), None
            got[o["_id"]] = o.get("s")
            order.append((o["_id"], o.get("s")))
        return got, order

    def same(got):
        if expect_error:
            return isinstance(got, str) and got.startswith("error: docext:")
        if not isinstance(got, dict) or set(got) != set(want):
            return False
        return all(isinstance(got[i], (int, float)) and close(want[i], got[i]) for i in want)

    got, _ = find("", ())
    R.record("find", same(got), detail(got), inline(base, (fj, proj)))
    nat = (" AND options = ?", ('{hint: {$natural: 1}}',))
    got, _ = find(*nat)
    R.record("find $natural", same(got), detail(got), inline(base + nat[0], (fj, proj) + nat[1]))
    try:
        n = R.con.execute("SELECT doc_count('c', ?)", (fj,)).fetchone()[0]
    except sqlite3.Error as e:
        n = "error: %s" % e
    if expect_error:
        ok = isinstance(n, str) and n.startswith("error: docext:")
    else:
        ok = n == len(want)
    R.record("doc_count", ok, detail("count %s, expected %s" % (n, "an error" if expect_error else len(want))),
             inline("SELECT doc_count('c', ?)", (fj,)))
    srt = (" AND sort = ?", ('{s: {$meta: "textScore"}, _id: 1}',))
    got, order = find(*srt)
    ok = same(got)
    if ok and not expect_error:
        ok = sorted(order, key=lambda x: (-x[1], x[0])) == order
        if not ok:
            got = "order %s" % [i for i, _ in order]
    R.record("find sorted by score", ok, detail(got), inline(base + srt[0], (fj, proj) + srt[1]))

    # a pipeline: $match with $text, then $sort by the score (ties by _id)
    pipeline = '[{"$match": %s}, {"$sort": {"s": {"$meta": "textScore"}, "_id": 1}}, {"$project": {"_id": 1}}]' % fj
    agg = "SELECT doc FROM doc_aggregate('c', ?)"
    try:
        ids = [json.loads(r[0])["_id"] for r in R.con.execute(agg, (pipeline,)).fetchall()]
        got = ids
    except sqlite3.Error as e:
        got = "error: %s" % e
    if expect_error:
        ok = isinstance(got, str) and got.startswith("error: docext:")
    else:
        ok = isinstance(got, list) and len(got) == len(want) and set(got) == set(want) and all(
            want[a] > want[b] or (close(want[a], want[b]) and (a < b or abs(want[a] - want[b]) > 0))
            for a, b in zip(got, got[1:]))
    R.record("doc_aggregate $sort by score", ok, detail("order %s" % got), inline(agg, (pipeline,)))

    # now and then, an update of the matching documents
    if rng.random() < 0.05:
        upd = "SELECT doc_update_many('c', ?, '{$inc: {hits: 1}}')"
        try:
            r = json.loads(R.execute(upd, (fj,)).fetchone()[0])
            got = r["matchedCount"]
        except sqlite3.Error as e:
            got = "error: %s" % e
        if expect_error:
            ok = isinstance(got, str) and got.startswith("error: docext:")
        else:
            ok = got == len(want)
            for i in want:
                docs[i]["hits"] = docs[i].get("hits", 0) + 1
        R.record("doc_update_many", ok, detail("matchedCount %s" % got), inline(upd, (fj,)))


if __name__ == "__main__":
    sys.exit(main())
