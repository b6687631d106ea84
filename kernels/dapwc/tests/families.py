"""Planted sequence families with known answers, for the DA-PWC tests and the
clustering benchmark (bench/clustering). Standard library only, so that ctest
can use it without numpy.

A family is an ancestor plus members grown from it by independent mutation
(substitutions and single-base indels at a given rate). Ancestors are either real
reads of ../shared/data/16s-4640.fasta picked at least `min_apart` edit distance
apart (over the longer read; some reads there are only 1-3 % apart, and families
grown from such ancestors overlap, so nothing could recover them), or random
sequences.
"""
import random

BASES = "ACGT"


def read_fasta(path):
    """(id, sequence) pairs in file order."""
    records, name, parts = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(parts)))
                name, parts = line[1:].split()[0], []
            elif line:
                parts.append(line)
    if name is not None:
        records.append((name, "".join(parts)))
    return records


def edit_distance(a, b):
    """Levenshtein distance (unit costs)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def distinct_ancestors(reads, count, rng, min_apart=0.15):
    """`count` reads (sequences, ACGT only) pairwise at least `min_apart` edit
    distance over the longer read apart, tried in a random order."""
    candidates = [s for s in reads if set(s) <= set(BASES)]
    rng.shuffle(candidates)
    chosen = []
    for s in candidates:
        if all(edit_distance(s, t) >= min_apart * max(len(s), len(t)) for t in chosen):
            chosen.append(s)
            if len(chosen) == count:
                return chosen
    raise ValueError(f"only {len(chosen)} reads are {min_apart:.0%} apart")


def mutate(sequence, rate, rng):
    """Each position mutates with probability `rate`: a substitution (60 %), a
    deletion (20 %) or an insertion after it (20 %)."""
    out = []
    for base in sequence:
        if rng.random() >= rate:
            out.append(base)
            continue
        kind = rng.random()
        if kind < 0.6:
            out.append(rng.choice([b for b in BASES if b != base]))
        elif kind >= 0.8:
            out.append(base)
            out.append(rng.choice(BASES))
    return "".join(out)


def grow(ancestors, sizes, rate, rng):
    """Shuffled (name, sequence, family) triples: sizes[i] members of family i+1."""
    members = [(family + 1, mutate(a, rate, rng)) for family, (a, size) in enumerate(zip(ancestors, sizes))
               for _ in range(size)]
    rng.shuffle(members)
    return [(f"s{i}_f{family}", seq, family) for i, (family, seq) in enumerate(members)]


def real_read_families(fasta, families, sizes, rate, seed):
    """Families grown from real reads far apart; sizes is (lowest, highest) members."""
    rng = random.Random(seed)
    ancestors = distinct_ancestors([s for _, s in read_fasta(fasta)], families, rng)
    return grow(ancestors, [rng.randint(*sizes) for _ in ancestors], rate, rng)


def random_ancestor_families(families, size, length, rate, seed):
    rng = random.Random(seed)
    ancestors = ["".join(rng.choice(BASES) for _ in range(length)) for _ in range(families)]
    return grow(ancestors, [size] * families, rate, rng)


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq, _ in records:
            f.write(f">{name}\n{seq}\n")


def adjusted_rand_index(a, b):
    """Adjusted Rand index of two labelings (1.0 when both are trivial)."""
    from collections import Counter
    pairs = lambda x: x * (x - 1) / 2
    index = sum(pairs(c) for c in Counter(zip(a, b)).values())
    rows = sum(pairs(c) for c in Counter(a).values())
    cols = sum(pairs(c) for c in Counter(b).values())
    expected = rows * cols / pairs(len(a))
    maximum = (rows + cols) / 2
    return 1.0 if maximum == expected else (index - expected) / (maximum - expected)


def subfamily_set(fasta, seed, members=20, split=0.08, rate=0.02):
    """A family of two subfamilies beside two other families, for re-clustering
    (SPIDAL's multistage DA-PWC): two sub-ancestors each mutated at `split` from
    one real read, two more real reads as ancestors, `members` per group grown at
    `rate`. Family labels: 1 and 2 are the subfamilies of one family, 3 and 4 the
    other families."""
    rng = random.Random(seed)
    first, *others = distinct_ancestors([s for _, s in read_fasta(fasta)], 3, rng)
    ancestors = [mutate(first, split, rng), mutate(first, split, rng), *others]
    return grow(ancestors, [members] * len(ancestors), rate, rng)


if __name__ == "__main__":
    # A subfamily set as JSON on stdout, for the gateway's re-clustering test:
    # families.py subfamilies FASTA SEED
    import json
    import sys
    if sys.argv[1:2] != ["subfamilies"] or len(sys.argv) != 4:
        sys.exit("usage: families.py subfamilies FASTA SEED")
    print(json.dumps([{"id": name, "sequence": seq, "family": family}
                      for name, seq, family in subfamily_set(sys.argv[2], int(sys.argv[3]))]))
