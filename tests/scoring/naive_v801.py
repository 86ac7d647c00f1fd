"""A deliberately literal, slow port of v8.01's ``CorScorer.pm`` (IdentifMentions, MUCScorer, BCUBED, CEAF,
BLANC_Internal) and of coval's ``lea``, over chains of hashable ids: the oracle for randomized tests.

Explicit loops and explicit link sets, integer ids as Perl assigns them; CEAF on the full similarity matrix.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.optimize import linear_sum_assignment


def identify(keys, response):
    ids, idcount = {}, 0
    for entity in keys:
        for mention in entity:
            ids[mention] = idcount
            idcount += 1
    mapping, assigned, repeats = {}, set(), 0
    kept_response = []
    for entity in response:
        kept = []
        for mention in entity:
            if mention in mapping:
                repeats += 1
                continue
            if mention in ids and ids[mention] not in assigned:
                assigned.add(ids[mention])
                mapping[mention] = ids[mention]
            kept.append(mention)
        if kept:
            kept_response.append(kept)
    for entity in kept_response:
        for mention in entity:
            if mention not in mapping:
                mapping[mention] = idcount
                idcount += 1
    key_chains = [[ids[m] for m in entity] for entity in keys if entity]
    response_chains = [[mapping[m] for m in entity] for entity in kept_response]
    totals = (len(assigned), len(ids), len(assigned), len(mapping))
    return key_chains, response_chains, totals, repeats


def index_of(chains):
    index = {}
    for i, chain in enumerate(chains):
        for m in chain:
            index[m] = i
    return index


def muc(keys, response):
    k_index = index_of(keys)
    correct = 0
    for chain in response:
        for i, a in enumerate(chain):
            if any(a in k_index and b in k_index and k_index[a] == k_index[b] for b in chain[i + 1 :]):
                correct += 1
    return correct, sum(len(c) - 1 for c in keys), correct, sum(len(c) - 1 for c in response)


def bcub(keys, response):
    k_index = index_of(keys)
    acum_p = acum_r = 0.0
    for chain in response:
        for m in chain:
            k_chain = keys[k_index[m]] if m in k_index else []
            ci = sum(1 for mr in chain if mr in k_chain)
            acum_p += ci / len(chain)
            if k_chain:
                acum_r += ci / len(k_chain)
    return acum_r, sum(map(len, keys)), acum_p, sum(map(len, response))


def ceaf(keys, response, entity):
    sim = np.zeros((len(keys), len(response)))
    for i, k in enumerate(keys):
        for j, r in enumerate(response):
            common = sum(1 for a in k if a in r)
            sim[i, j] = 2 * common / (len(k) + len(r)) if entity else common
    rows, cols = linear_sum_assignment(sim, maximize=True)
    best = dict(zip(rows.tolist(), sim[rows, cols].tolist(), strict=True))
    numerator = 0.0
    for i in range(len(keys)):
        numerator += 1 - (1 - best.get(i, 0.0))
    if entity:
        return numerator, len(keys), numerator, len(response)
    return numerator, sum(map(len, keys)), numerator, sum(map(len, response))


def links(chains):
    coref, non = set(), set()
    for chain in chains:
        for a, b in combinations(chain, 2):
            coref.add((min(a, b), max(a, b)))
    for first, second in combinations(chains, 2):
        for a in first:
            for b in second:
                non.add((min(a, b), max(a, b)))
    return coref, non


def blanc(keys, response):
    kc, kn = links(keys)
    rc, rn = links(response)
    return len(kc & rc), len(kc), len(rc), len(kn & rn), len(kn), len(rn)


def lea_side(inputs, outputs):
    index = index_of(outputs)
    num = den = 0.0
    for c in inputs:
        if len(c) == 1:
            all_links = 1
            common = 1 if c[0] in index and len(outputs[index[c[0]]]) == 1 else 0
        else:
            common = 0
            all_links = len(c) * (len(c) - 1) / 2.0
            for i, m in enumerate(c):
                if m in index:
                    for m2 in c[i + 1 :]:
                        if m2 in index and index[m] == index[m2]:
                            common += 1
        num += len(c) * common / float(all_links)
        den += len(c)
    return num, den


def lea(keys, response):
    recall_num, recall_den = lea_side(keys, response)
    precision_num, precision_den = lea_side(response, keys)
    return recall_num, recall_den, precision_num, precision_den
