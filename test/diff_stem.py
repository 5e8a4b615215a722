#!/usr/bin/python3
"""test/diff_stem.py — differential test of docext's English stemmer
(ext/docext_stem.c) against Snowball's own, Debian's python3-snowballstemmer.

    /usr/bin/python3 test/diff_stem.py TEST_STEM [SEED] [-v]
    (test/diff_stem.sh runs it; test/run.sh runs test/diff_*.sh)

Builds a fixed vocabulary of about 50,000 words, stems each with
snowballstemmer (Snowball 2.2, whose English rules are those of the 2011
Snowball that MongoDB compiles), writes "word<TAB>stem" lines to a
temporary file and runs TEST_STEM --pairs on it (build/MODE/test_stem),
which stems each word with docextStemEnglish and counts the agreements.

The vocabulary:
  - every word (letters, digits, apostrophes; as written and lower-cased)
    of the licence texts in /usr/share/common-licenses and of the copyright
    files of a fixed list of packages every Debian system has;
  - a fixed list of English stems, each followed by suffixes the algorithm
    knows (every one of them after every tenth stem), or by two of them;
  - seeded random variants: letter strings rich in y's and doubles, words
    with uppercase letters, with letters beyond ASCII (Latin, Greek,
    Cyrillic, CJK: one to three bytes of UTF-8), with digits, with
    apostrophes.

One kind of word is left out: those with a character beyond U+FFFF (four
bytes of UTF-8, e.g. emoji). MongoDB's libstemmer reads such a character as
two non-vowels for its letter classes (and, reading backwards, with the
bytes before it), where Snowball 2.2 reads one character; docext follows
MongoDB (see ext/docext_stem.c), so the two differ by design. test_stem.c
checks those words against stems worked out from MongoDB's code.

The last line is "N passed, M failed" (TEST_STEM's own). Skipped if the
installed snowballstemmer has Snowball 3's English rules (2025), which are
not MongoDB's.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

import snowballstemmer

LICENSES = "/usr/share/common-licenses"
# Essential or near-essential packages: their copyright files are on every
# Debian system (a missing one is skipped).
PACKAGES = ["base-files", "bash", "coreutils", "dpkg", "apt", "libc6", "tar",
            "grep", "sed", "findutils", "diffutils", "gzip", "util-linux",
            "perl-base", "debianutils", "login", "passwd", "hostname",
            "ncurses-base", "bsdutils", "mawk", "sensible-utils", "python3",
            "sqlite3"]

STEMS = """
    abandon abate abdic abolish absorb abus accept accommod accord account
    achiev acquir act adapt add address adjust admir adopt advis affect agre
    alloc allow alter amus analys announc annoy appl apolog appear appreci
    approv argu arous arrang arriv arsen assembl assum attach attend attract
    bak ban bath battl bear beauti beg believ belong bless blot bor bother
    bounc bow brag broadcast brows brush bud build bump burn bus buy calcul
    can car carri cater caus celebr challeng chang charg chat cheer chew chop
    civil claim clap clean climb clos coach collect combin comfort commun
    compar compet complain comput concentr conclud condit confus connect
    consid consign consist construct contain continu contribut control cop
    correct cough count cover crawl cri cross crush cycl damag danc dar
    decid declar defin delight deliv depend describ deserv destroy determin
    develop di dig dim disappear discov dislik divid doubl drag drain dream
    dress drip drop dry dye earn educ elect emerg employ encourag end enjoy
    enter entertain equip escap establish examin excit excus exist expand
    expect experi explain explod extend fad fail fanc fasten fax fear feel
    fenc fetch fill film fit fix flap flash float flow fly fold follow forc
    form found frame frighten fund gener gentl glu gossip govern grab grate
    greet grin grip groan guarante guess guid hammer hand handl hang happen
    harm hat hop hope host hug hum hunt hurr identifi ignor imagin impress
    improv includ increas influenc inform inject injur instruct intend interest
    introduc invent invit iron irrit itch jail jam jog join judg juggl jump
    kick kill kiss kneel knit knock knot label land last laugh lay learn level
    licens lick lie lighten lik list listen liv load lock long look lov
    manag march mark marri match mate matter measur melt memor mend milk mine
    miss mix moan moor mourn muddl mug multipl murder nail nam nest nod note
    notic number obey object observ obtain occur offend offer open oper
    order organ own pack paddl paint park part pass paus peck pedal peel
    perform permit phon pick pinch pine place plan plant play pleas plug point
    poke polish pop possess post pour practis pray preach preced prefer prepar
    present preserv press pretend prevent prick print produc program promis
    protect provid pull pump punch punctur punish push question queue race
    radiat rain rais reach realis receiv recogn record reduc reflect refus
    regret reign reject rejoic relax releas rel remain rememb remind remov
    repair repeat replac repli report reproduc request rescu retir return
    rhym rins risk rob rock roll rot rub ruin rule rush sack sail satisfi save
    saw scar scatter scold scorch scrap scratch scream screw scribbl scrub seal
    search separ serv settl shad shar shav shelter shiver shock shop shrug sigh
    sign signal sin sip ski skip slap slip slow smash smell smil smoke snatch
    sneez sniff snor snow soak sooth sound spar spark sparkl spell spill spoil
    spot spray sprout squash squeak squeal squeez stain stamp star stare start
    stay steer step stir stitch stop store strap strengthen stretch strip
    stroke stuff subtract succeed suck suffer suggest suit suppli support
    suppos surpris surround suspect suspend switch talk tam tap tast teas
    telephon tempt terrifi test thank thaw tick tickl tie time tip tir touch
    tour tow trac trad train transport trap travel treat trembl trick trip
    trot troubl trust tri tumbl turn twist typ undress unfasten unit unlock
    unpack untidi us vanish visit wail wait walk wander want warm warn wash
    wast watch water wav weigh welcom whip whirl whisper whistl wink wip wish
    wobbl wonder work worri wrap wreck wrestl wriggl yawn yell zip zoom
    sky news howe atlas cosmos bias andes inning outing canning herring
    earring proceed exceed succeed dying lying tying idly gently ugly early
    only singly skis skies gas gap kiwi tie cri ski say sai boy toy ey yy
    y ye yes yet you young yield yacht year yellow day ray stay pay ply
    """.split()

SUFFIXES = """
    s es ies ied 's ' 's' sses us ss ed ing edly ingly eed eedly ly y ily
    ness fulness ational tional enci anci abli entli izer ization ation ator
    alism aliti alli ousli ousness iveness iviti biliti bli ogi logi fulli
    lessli li cli dli eli gli hli kli mli nli rli tli sli alize icate iciti
    ical ful ative al ance ence er ic able ible ant ement ment ent ism ate iti
    ous ive ize ion sion tion e l ll le at bl iz bb dd ff gg mm nn pp rr tt
    cc hh jj kk vv ww xx zz ling lings est ers yed ying yly ys yer
    """.split()

NON_ASCII = ["é", "è", "ü", "ö", "ß", "ø", "å", "ñ", "ç", "œ", "æ", "ÿ", "ý",
             "ı", "ł", "α", "ω", "д", "ж", "я", "中", "文", "한", "ア", "€", "ﬁ"]


def words_of_texts():
    """Every word of the licence and copyright texts, as written and
    lower-cased."""
    paths = sorted(os.path.join(LICENSES, f) for f in os.listdir(LICENSES))
    paths += ["/usr/share/doc/%s/copyright" % p for p in PACKAGES]
    words = set()
    for path in paths:
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for w in re.findall(r"[\w']+", f.read()):
                words.add(w)
                words.add(w.lower())
    return words


def synthetic_words(rng):
    words = set()
    for i, stem in enumerate(STEMS):
        words.add(stem)
        # every suffix after every tenth stem, 25 of them after the others
        for suf in SUFFIXES if i % 10 == 0 else rng.sample(SUFFIXES, 25):
            words.add(stem + suf)
    for _ in range(8000):
        words.add(rng.choice(STEMS) + rng.choice(SUFFIXES) + rng.choice(SUFFIXES))
    # letter strings rich in vowels, y's and doubles
    alphabet = "aeiouyybcdlmnprstgwxyY'"
    for _ in range(9000):
        n = rng.randint(1, 12)
        w = "".join(rng.choice(alphabet) for _ in range(n))
        if rng.random() < 0.3:
            w += rng.choice(SUFFIXES)
        words.add(w)
    base = sorted(words)
    for _ in range(4000):               # uppercase letters
        w = rng.choice(base)
        words.add("".join(c.upper() if rng.random() < 0.3 else c for c in w))
    for _ in range(5000):               # letters beyond ASCII
        w = list(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            w.insert(rng.randint(0, len(w)), rng.choice(NON_ASCII))
        words.add("".join(w))
    for _ in range(1500):               # digits
        w = list(rng.choice(base))
        w.insert(rng.randint(0, len(w)), str(rng.randint(0, 999)))
        words.add("".join(w))
    for _ in range(1500):               # apostrophes
        w = rng.choice(base)
        words.add(rng.choice(["'", "''", ""]) + w + rng.choice(["'", "'s", "'s'", "''", ""]))
    return words


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    if not args:
        print("usage: diff_stem.py TEST_STEM [SEED] [-v]", file=sys.stderr)
        return 2
    prog = args[0]
    seed = int(args[1]) if len(args) > 1 else 20260101
    rng = random.Random(seed)
    vocab = words_of_texts() | synthetic_words(rng)
    # beyond U+FFFF MongoDB's libstemmer and Snowball 2.2 differ (see above)
    vocab = sorted(w for w in vocab
                   if "\t" not in w and "\n" not in w and "\r" not in w
                   and all(ord(c) <= 0xFFFF for c in w))
    stemmer = snowballstemmer.stemmer("english")
    # Snowball 3 (2025) changed the English rules (evening is one of its new
    # exceptions); MongoDB's are those of Snowball 2 and earlier.
    if stemmer.stemWord("evening") != "even":
        print("skipped: python3-snowballstemmer has Snowball 3's English rules, "
              "not those MongoDB uses")
        print("0 passed, 0 failed")
        return 0
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".tsv",
                                     prefix="diff_stem-", delete=False) as f:
        path = f.name
        for w in vocab:
            f.write("%s\t%s\n" % (w, stemmer.stemWord(w)))
    try:
        print("diff_stem: %d words (seed %d)" % (len(vocab), seed))
        sys.stdout.flush()
        cmd = [prog, "--pairs", path] + (["-v"] if "-v" in sys.argv[1:] else [])
        return subprocess.call(cmd)
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
