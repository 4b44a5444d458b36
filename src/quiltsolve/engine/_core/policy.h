/* quiltsolve compiled core: the random stream, the snug placement, the leather cell and the playouts.
 *
 * Each function mirrors a Python one exactly (same operations, same tie orders):
 *   qs_rng_seed / qs_rng_next / qs_rng_double   engine/_core_py.py: Rng (xoshiro256** seeded by SplitMix64,
 *                                                doubles (x >> 11) * 2**-53)
 *   qs_neighbours, qs_contact_planes, qs_one_open, qs_pocket_penalty   engine/board.py
 *   qs_tight_placement(T, board, pid, &mask)    engine/players/_search_policy.py: tight_placement
 *   qs_leather_cell(T, board, bonus_open)       _search_policy.leather_cell
 *   qs_buy_rates(T, s, rates, pids)             _search_policy.buy_rates (stable sort, best first)
 *   qs_greedy_playout(T, s, rng, eps, pc)       _search_policy.playout (pc: a qs_pcache memo of the snug
 *                                                placements, or NULL)
 *   qs_random_playout(T, s, rng)                engine/_core_py.py: random_playout (RandomPlayer's policy)
 */
#ifndef QS_POLICY_H
#define QS_POLICY_H

#include "state.h"

typedef struct { uint64_t s[4]; } qs_rng;

static inline uint64_t qs__splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline void qs_rng_seed(qs_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = qs__splitmix(&x);
}

static inline uint64_t qs__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t qs_rng_next(qs_rng *r) {
    uint64_t *s = r->s;
    uint64_t out = qs__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = qs__rotl(s[3], 45);
    return out;
}

static inline double qs_rng_double(qs_rng *r) { return (double)(qs_rng_next(r) >> 11) * 0x1.0p-53; }

/* ------------------------------------------------------------------ board measures */
static inline qs_mask qs_neighbours(const qs_tables *T, qs_mask m) {
    int sd = T->side;
    return (((m & T->not_col_last) << 1) | ((m & T->not_col0) >> 1) | (m << sd) | (m >> sd)) & T->full;
}

static inline void qs_contact_planes(const qs_tables *T, qs_mask board, qs_mask *p0, qs_mask *p1, qs_mask *p2) {
    int sd = T->side;
    qs_mask u = ((board << sd) & T->full) | T->row0;
    qs_mask d = (board >> sd) | T->row_last;
    qs_mask lf = ((board & T->not_col_last) << 1) | T->col0;
    qs_mask rt = ((board & T->not_col0) >> 1) | T->col_last;
    qs_mask s1 = u ^ d, c1 = u & d, s2 = lf ^ rt, c2 = lf & rt;
    qs_mask a = s1 & s2;
    *p0 = s1 ^ s2;
    *p1 = c1 ^ c2 ^ a;
    *p2 = (c1 & c2) | (c1 & a) | (c2 & a);
}

static inline qs_mask qs_one_open(const qs_tables *T, qs_mask empty) {
    int sd = T->side;
    qs_mask u = (empty << sd) & T->full;
    qs_mask d = empty >> sd;
    qs_mask lf = (empty & T->not_col_last) << 1;
    qs_mask rt = (empty & T->not_col0) >> 1;
    qs_mask s1 = u ^ d, c1 = u & d, s2 = lf ^ rt, c2 = lf & rt;
    return empty & (s1 ^ s2) & ~(s1 & s2) & ~c1 & ~c2;
}

static inline int qs_lowbit(qs_mask m) {
    uint64_t lo = (uint64_t)m;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(m >> 64));
}

/* engine.board.pocket_penalty (an integer there too: 2 per lone cell, 1 per 2-cell pocket). */
static inline int qs_pocket_penalty(const qs_tables *T, qs_mask board, qs_mask mask) {
    qs_mask after = board | mask;
    qs_mask empty = T->full ^ after;
    qs_mask near = qs_neighbours(T, mask) & empty;
    if (!near) return 0;
    qs_mask en = qs_neighbours(T, empty);
    qs_mask lone = near & ~en;
    int pen = 2 * qs_popcount(lone);
    qs_mask rest = near & ~lone;
    while (rest) {
        qs_mask c = rest & (~rest + 1);
        rest ^= c;
        qs_mask nb = qs_neighbours(T, c) & empty;
        if (nb && !(nb & (nb - 1)) && (qs_neighbours(T, nb) & empty) == c) {
            pen += 1;
            rest &= ~nb;
        }
    }
    return pen;
}

#define QS_TIGHT_CANDIDATES 8

/* _search_policy.tight_placement: the index in T->masks[pid] of the snug placement, or -1 when the patch fits
 * nowhere. */
static inline int qs_tight_index(const qs_tables *T, qs_mask board, int pid) {
    qs_mask b0, b1, b2;
    qs_contact_planes(T, board, &b0, &b1, &b2);
    const qs_mask *ms = T->masks[pid];
    int nm = T->n_masks[pid];
    int tt[QS_MAX_MASKS];
    int ti[QS_MAX_MASKS];
    int n = 0, top = -1;
    /* the scan in 64-bit halves: the 128-bit form spilled the board and the planes to the stack */
    const uint64_t bl = (uint64_t)board, bh = (uint64_t)(board >> 64);
    const uint64_t l0 = (uint64_t)b0, h0 = (uint64_t)(b0 >> 64), l1 = (uint64_t)b1, h1 = (uint64_t)(b1 >> 64);
    const uint64_t l2 = (uint64_t)b2, h2 = (uint64_t)(b2 >> 64);
    for (int i = 0; i < nm; i++) {
        const uint64_t ml = (uint64_t)ms[i], mh = (uint64_t)(ms[i] >> 64);
        if ((ml & bl) | (mh & bh)) continue;
        int t = __builtin_popcountll(ml & l0) + __builtin_popcountll(mh & h0)
              + 2 * (__builtin_popcountll(ml & l1) + __builtin_popcountll(mh & h1))
              + 4 * (__builtin_popcountll(ml & l2) + __builtin_popcountll(mh & h2));
        if (t >= top - 1) {
            tt[n] = t; ti[n] = i; n++;
            if (t > top) top = t;
        }
    }
    if (!n) return -1;
    if (n == 1) return ti[0];
    /* candidates: within 1 of the best; more than 8: the best ones first (stable), cut to 8 */
    int ct[QS_MAX_MASKS], ci[QS_MAX_MASKS], nc = 0;
    for (int j = 0; j < n; j++)
        if (tt[j] >= top - 1) { ct[nc] = tt[j]; ci[nc] = ti[j]; nc++; }
    int ft[QS_TIGHT_CANDIDATES], fi[QS_TIGHT_CANDIDATES], nf = 0;
    if (nc > QS_TIGHT_CANDIDATES) {
        for (int j = 0; j < nc && nf < QS_TIGHT_CANDIDATES; j++)
            if (ct[j] == top) { ft[nf] = ct[j]; fi[nf] = ci[j]; nf++; }
        for (int j = 0; j < nc && nf < QS_TIGHT_CANDIDATES; j++)
            if (ct[j] != top) { ft[nf] = ct[j]; fi[nf] = ci[j]; nf++; }
    } else {
        for (int j = 0; j < nc; j++) { ft[j] = ct[j]; fi[j] = ci[j]; }
        nf = nc;
    }
    int best_s = 0, best = -1;
    for (int j = 0; j < nf; j++) {
        int sc = ft[j] - qs_pocket_penalty(T, board, ms[fi[j]]);
        if (best < 0 || sc > best_s) { best_s = sc; best = fi[j]; }
    }
    return best;
}

/* qs_tight_index as a mask: returns 1 and sets *out, or 0 when the patch fits nowhere. */
static inline int qs_tight_placement(const qs_tables *T, qs_mask board, int pid, qs_mask *out) {
    int i = qs_tight_index(T, board, pid);
    if (i < 0) return 0;
    *out = T->masks[pid][i];
    return 1;
}

/* A memo of qs_tight_index for one search (or one batch of playouts): the snug placement is a pure function of
 * (board, patch), and the playouts from one leaf follow the same greedy line nine moves in ten, so the same
 * (board, patch) comes back again and again; a hit costs one probe instead of a scan of up to 448 placements
 * (the scan is two thirds of a search's time). Direct-mapped, 16-byte entries, overwritten on collision; it
 * changes no answer. Not shared between threads. */
typedef struct { uint64_t lo; uint32_t hi; int32_t idx; } qs_pc_entry;
typedef struct { qs_pc_entry *e; int bits; } qs_pcache;

#define QS_PCACHE_BITS 15

/* 0, or -1 when out of memory (then pc->e is NULL and every call scans). */
static inline int qs_pcache_init(qs_pcache *pc, int bits) {
    pc->bits = bits;
    pc->e = (qs_pc_entry *)calloc((size_t)1 << bits, sizeof(qs_pc_entry));
    return pc->e ? 0 : -1;
}

static inline void qs_pcache_free(qs_pcache *pc) { free(pc->e); pc->e = NULL; }

/* the key's high word: the board's top 17 bits and the patch (+1, so that no key is 0: an empty entry) */
static inline uint32_t qs__pc_hi(qs_mask board, int pid) {
    return (uint32_t)(board >> 64) | ((uint32_t)(pid + 1) << 24);
}

static inline qs_pc_entry *qs__pc_slot(const qs_pcache *pc, uint64_t lo, uint32_t hi) {
    uint64_t h = (lo ^ (lo >> 29)) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)hi * 0xC2B2AE3D27D4EB4FULL;
    return &pc->e[(h ^ (h >> 31)) >> (64 - pc->bits)];
}

/* Start loading the memo's entry for (board, pid) early: a miss in L1/L2 was a third of the playout's own time. */
static inline void qs_pcache_prefetch(const qs_pcache *pc, qs_mask board, int pid) {
    if (pc && pc->e) __builtin_prefetch(qs__pc_slot(pc, (uint64_t)board, qs__pc_hi(board, pid)));
}

/* qs_tight_placement through the memo (pc NULL or without a table: a plain scan). */
static inline int qs_tight_cached(const qs_tables *T, qs_pcache *pc, qs_mask board, int pid, qs_mask *out) {
    if (!pc || !pc->e) return qs_tight_placement(T, board, pid, out);
    uint64_t lo = (uint64_t)board;
    uint32_t hi = qs__pc_hi(board, pid);
    qs_pc_entry *e = qs__pc_slot(pc, lo, hi);
    int i;
    if (e->hi == hi && e->lo == lo) i = e->idx;
    else {
        i = qs_tight_index(T, board, pid);
        e->lo = lo; e->hi = hi; e->idx = i;
    }
    if (i < 0) return 0;
    *out = T->masks[pid][i];
    return 1;
}

/* _search_policy.leather_cell: the bit index of the best empty cell (-1 on a full board). */
static inline int qs_leather_cell(const qs_tables *T, qs_mask board, int bonus_open) {
    qs_mask empty = T->full ^ board;
    if (bonus_open && qs_popcount(board) >= 48) {
        for (int i = 0; i < T->n_bonus; i++) {
            qs_mask miss = T->bonus_masks[i] & empty;
            if (miss && !(miss & (miss - 1))) return qs_lowbit(miss);
        }
    }
    qs_mask open1 = qs_one_open(T, empty);
    int best_s = 0, best_i = -1;
    qs_mask e = empty;
    while (e) {
        qs_mask c = e & (~e + 1);
        e ^= c;
        qs_mask nb = qs_neighbours(T, c) & empty;
        int sc = (4 - qs_popcount(nb)) - 3 * qs_popcount(nb & open1);
        if (best_i < 0 || sc > best_s) { best_s = sc; best_i = qs_lowbit(c); }
    }
    return best_i;
}

/* _search_policy.buy_rates: (rate, pid) of each affordable front patch, best first (stable). Returns the count. */
static inline int qs_buy_rates(const qs_tables *T, const qs_state *s, double *rates, int *pids) {
    const qs_player *p = &s->p[s->cur];
    const double *row = T->greedy_rates[T->payouts_after[p->position]];
    int n = 0, k = s->ncircle < 3 ? s->ncircle : 3;
    for (int j = 0; j < k; j++) {
        int pid = s->circle[j];
        if (T->cost[pid] > p->buttons) continue;
        double r = row[pid];
        int i = n++;
        while (i > 0 && rates[i - 1] < r) { rates[i] = rates[i - 1]; pids[i] = pids[i - 1]; i--; }
        rates[i] = r; pids[i] = pid;
    }
    return n;
}

static inline void qs_place_pending_leather(const qs_tables *T, qs_state *s) {
    while (s->pending) qs_leather(T, s, qs_leather_cell(T, s->p[s->cur].board, s->bonus_open));
}

/* _search_policy.playout: the ε-greedy policy to the end of the game (s changed in place). */
static inline void qs_greedy_playout(const qs_tables *T, qs_state *s, qs_rng *rng, double eps, qs_pcache *pc) {
    while (!s->over) {
        qs_player *p = &s->p[s->cur];
        if (s->pending) { qs_leather(T, s, qs_leather_cell(T, p->board, s->bonus_open)); continue; }
        qs_mask board = p->board;
        const double *row = T->greedy_rates[T->payouts_after[p->position]];
        double rates[3];
        int pids[3], n = 0, k = s->ncircle < 3 ? s->ncircle : 3;
        for (int j = 0; j < k; j++) {
            int pid = s->circle[j];
            if (T->cost[pid] <= p->buttons) {
                rates[n] = row[pid]; pids[n] = pid; n++;
                qs_pcache_prefetch(pc, board, pid);
            }
        }
        int buy = -1;
        qs_mask m = 0;
        if (n) {
            if (qs_rng_double(rng) < eps) {
                int kk = (int)(qs_rng_double(rng) * (double)(n + 1));
                if (kk < n && qs_tight_cached(T, pc, board, pids[kk], &m)) buy = pids[kk];
            } else {
                /* stable sort by rate, best first */
                for (int i = 1; i < n; i++) {
                    double r = rates[i];
                    int pd = pids[i], j = i;
                    while (j > 0 && rates[j - 1] < r) { rates[j] = rates[j - 1]; pids[j] = pids[j - 1]; j--; }
                    rates[j] = r; pids[j] = pd;
                }
                for (int i = 0; i < n; i++) {
                    if (rates[i] <= T->advance_rate) break;
                    if (qs_tight_cached(T, pc, board, pids[i], &m)) { buy = pids[i]; break; }
                }
            }
        }
        if (buy >= 0) qs_buy(T, s, buy, m);
        else qs_advance(T, s);
    }
}

#define QS_RANDOM_TRIES 8

/* engine/_core_py.py random_playout: RandomPlayer's policy with the core's random stream. */
static inline void qs_random_playout(const qs_tables *T, qs_state *s, qs_rng *rng) {
    while (!s->over) {
        qs_player *p = &s->p[s->cur];
        qs_mask board = p->board;
        if (s->pending) {
            int cell = -1;
            for (int t = 0; t < QS_RANDOM_TRIES; t++) {
                int i = (int)(qs_rng_double(rng) * (double)T->board_cells);
                if (!(board & ((qs_mask)1 << i))) { cell = i; break; }
            }
            if (cell < 0) {
                int free_[QS_CELLS], nf = 0;
                for (int i = 0; i < T->board_cells; i++) if (!(board & ((qs_mask)1 << i))) free_[nf++] = i;
                cell = free_[(int)(qs_rng_double(rng) * (double)nf)];
            }
            qs_leather(T, s, cell);
            continue;
        }
        int opid[4];
        qs_mask omask[4];
        int no = 1;
        opid[0] = -1; omask[0] = 0;
        int k = s->ncircle < 3 ? s->ncircle : 3;
        for (int j = 0; j < k; j++) {
            int pid = s->circle[j];
            if (T->cost[pid] > p->buttons) continue;
            const qs_mask *ms = T->masks[pid];
            int nm = T->n_masks[pid], found = 0;
            for (int t = 0; t < QS_RANDOM_TRIES; t++) {
                qs_mask m = ms[(int)(qs_rng_double(rng) * (double)nm)];
                if (!(m & board)) { opid[no] = pid; omask[no] = m; no++; found = 1; break; }
            }
            if (!found) {
                int nf = 0;
                for (int i = 0; i < nm; i++) if (!(ms[i] & board)) nf++;
                if (nf) {
                    int want = (int)(qs_rng_double(rng) * (double)nf);
                    for (int i = 0; i < nm; i++)
                        if (!(ms[i] & board) && want-- == 0) { opid[no] = pid; omask[no] = ms[i]; no++; break; }
                }
            }
        }
        int c = (int)(qs_rng_double(rng) * (double)no);
        if (opid[c] < 0) qs_advance(T, s);
        else qs_buy(T, s, opid[c], omask[c]);
    }
}

#endif /* QS_POLICY_H */
