/* quiltsolve.engine._endgame: the exact endgame solver's alpha-beta in C (engine/endgame.py drives it).
 *
 * The same algorithm as engine/endgame.py's pure-Python _Search, step for step:
 *   - fail-soft alpha-beta (PVS: null window after the first child) on player 0's margin (0 max, 1 min);
 *   - a node is counted on entry; every CHECK_EVERY nodes the stop token then the deadline are looked at;
 *   - terminal -> margin; ply >= max_plies -> abort "horizon";
 *   - the table: probe, cut on its bounds, narrow the window, its move first, then the ply's killer;
 *     store lo/hi merged;
 *   - children (endgame_children): the same order and the same rule-R1 pruning as _children();
 *   - rule B (the hindsight relaxation): a player may be *deferred* (eg_state.dfr): the patches they buy
 *     and the leather they take are not placed but only known to fit into their empty cells together
 *     (pack_fits, the same depth-first packing as _fit, with the same step budget); at an exact player's
 *     node each group of moves (one patch's placements, or the leather cells) is first bounded by one
 *     search of the position after it with the mover deferred, again whenever the window moved.
 * With no table replacement (table_full false in both) both count the same nodes and find the same moves.
 * The game rules are engine/_core/state.h (the compiled core's, which mirrors engine/state.py);
 * board measures are policy.h's.
 *
 * The table is a fixed array of entries (4-way buckets; the key as engine/endgame.py _dkey, rule R3)
 * holding the full key, so a hash collision never
 * gives a wrong value. The GIL is released during a search and taken back every CHECK_EVERY nodes only
 * to call stop.is_set().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <time.h>
#include "state.h"
#include "policy.h"

#define EG_CHECK_EVERY 256
#define EG_INF (1 << 20)
#define EG_MAX_DEPTH 400
#define EG_PACK_STEPS 500
#define EG_MIN_GROUP 2
#define EG_PACK_CACHE (1 << 20)         /* the most packing answers per search (engine/endgame.py pack_slots) */
#define EG_PACK_CACHE_MIN (1 << 16)     /* the fewest: a search starts with these */
#define EG_PACK_GROW_NODES (1 << 20)    /* from this node count on, the cache has all its slots */
#define EG_REACH_CACHE (1 << 12)
#define EG_GROUPS (QS_MAX_PATCHES + 1)     /* one per patch id, then the leather cells */
#define EG_LEATHER_GROUP QS_MAX_PATCHES
#define EG_NO_INDEX 0xFFFF                 /* a deferred buy's move: no placement */

enum { EG_OK = 0, EG_TIME = 1, EG_STOPPED = 2, EG_HORIZON = 3, EG_ERROR = 4, EG_DEEP = 5 };

static qs_tables T;
static int tables_ready = 0;

/* A search position: the rules' state and, per player, whether they are deferred (rule B) with the
   patches (bit pid) and leather patches they took since, not placed; dcells = their cells. */
typedef struct {
    qs_state s;
    uint64_t dset[2];
    uint8_t dfr[2], dl[2], dcells[2];
} eg_state;

typedef struct {
    qs_mask board[2];
    uint64_t dset[2];
    int16_t buttons[2];
    uint8_t position[2], income[2], bonus[2], dfr[2], dl[2];
    uint8_t cur, pending, nleather, ncircle;
    uint8_t circle[QS_MAX_PATCHES];
} eg_key;

typedef struct {
    eg_key key;
    uint64_t work;
    int32_t lo, hi;
    uint8_t used, move_kind, move_arg;
    uint16_t move_index;        /* buy: index in PATCH_MASKS[pid] (EG_NO_INDEX: deferred); leather: the cell */
    int8_t has_move;
} eg_entry;

typedef struct {
    qs_mask region;
    qs_mask witness;            /* a fit question answered by a packing found: its cells (else 0) */
    uint64_t set;
    int16_t leathers;           /* -1: the fit question; else the claim question with this many leathers */
    uint8_t used, answer;
} eg_pack;

typedef struct {
    qs_mask region, under;
    uint64_t inside[QS_MAX_MASKS / 64];   /* bit j: PATCH_MASKS[pid][j] lies inside the region */
    int8_t most[QS_MAX_BONUS];
    uint8_t used, pid;
} eg_reach;

typedef struct {
    PyObject_HEAD
    eg_entry *table;
    uint64_t size, mask;
    uint64_t nodes;
    int table_full;
    int max_plies;               /* -1: none */
    double deadline;             /* < 0: none */
    PyObject *stop;              /* or NULL */
    int abort;
    int relax;
    eg_pack *pack;
    uint64_t pack_mask;          /* slots - 1 */
    uint64_t pack_max;           /* the slots it grows to (engine/endgame.py _Packer._grow) */
    uint64_t pack_grow;          /* at this node count (EG_PACK_GROW_NODES unless a test asks otherwise) */
    eg_reach *reach;
    qs_action *levels[EG_MAX_DEPTH];
    qs_action killer[EG_MAX_DEPTH];
    int has_killer[EG_MAX_DEPTH];
} Searcher;

static double now_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cells(const eg_state *e, int i) { return qs_popcount(e->s.p[i].board) + (e->dfr[i] ? e->dcells[i] : 0); }

static int score_of(const eg_state *e, int i) {
    const qs_player *p = &e->s.p[i];
    return p->buttons + (p->bonus ? T.bonus_points : 0) - T.empty_penalty * (T.board_cells - cells(e, i));
}

static int margin(const eg_state *e) { return score_of(e, 0) - score_of(e, 1); }

static void make_key(const eg_state *e, eg_key *k) {
    const qs_state *s = &e->s;
    memset(k, 0, sizeof *k);
    for (int i = 0; i < 2; i++) {
        const qs_player *p = &s->p[i];
        int done = p->position == T.end && !(s->pending && s->cur == i);   /* rule R3 */
        if (done) k->board[i] = (qs_mask)cells(e, i);
        else {
            k->board[i] = p->board;
            k->income[i] = (uint8_t)p->income;
            if (e->dfr[i]) { k->dfr[i] = 1; k->dset[i] = e->dset[i]; k->dl[i] = e->dl[i]; }
        }
        k->buttons[i] = (int16_t)p->buttons;
        k->position[i] = (uint8_t)p->position;
        k->bonus[i] = (uint8_t)p->bonus;
    }
    k->cur = (uint8_t)s->cur;
    k->pending = (uint8_t)s->pending;
    k->nleather = (uint8_t)s->nleather;
    k->ncircle = (uint8_t)s->ncircle;
    memcpy(k->circle, s->circle, (size_t)s->ncircle);
}

static uint64_t hash_key(const eg_key *k) {
    const unsigned char *b = (const unsigned char *)k;
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    size_t n = sizeof *k, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h ^= w;
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    for (; i < n; i++) { h ^= b[i]; h *= 0x94D049BB133111EBULL; }
    h ^= h >> 29;
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 32);
}

#define EG_BUCKET 4

static eg_entry *probe(Searcher *S, const eg_key *k, uint64_t h) {
    uint64_t i = h & S->mask & ~(uint64_t)(EG_BUCKET - 1);
    for (uint64_t j = i; j < i + EG_BUCKET; j++) {
        eg_entry *e = &S->table[j];
        if (e->used && !memcmp(&e->key, k, sizeof *k)) return e;
    }
    return NULL;
}

static void set_move(eg_entry *e, const qs_action *m) {
    if (!m) return;
    e->has_move = 1;
    e->move_kind = (uint8_t)m->kind;
    e->move_arg = (uint8_t)m->arg;
    e->move_index = 0;
    if (m->kind == QS_BUY) e->move_index = m->mask ? (uint16_t)qs_mask_index(&T, m->arg, m->mask) : EG_NO_INDEX;
    else if (m->kind == QS_LEATHER) e->move_index = (uint16_t)m->arg;
}

static void get_move(const eg_entry *e, qs_action *m) {
    m->kind = e->move_kind;
    m->arg = e->move_arg;
    if (m->kind == QS_BUY) m->mask = e->move_index == EG_NO_INDEX ? 0 : T.masks[m->arg][e->move_index];
    else if (m->kind == QS_LEATHER) m->mask = (qs_mask)1 << m->arg;
    else m->mask = 0;
}

static void store(Searcher *S, const eg_key *k, uint64_t h, int lo, int hi, const qs_action *move, uint64_t work) {
    uint64_t i = h & S->mask & ~(uint64_t)(EG_BUCKET - 1);
    eg_entry *e = NULL;
    for (uint64_t j = i; j < i + EG_BUCKET; j++) {
        eg_entry *x = &S->table[j];
        if (!x->used) { if (!e) e = x; }
        else if (!memcmp(&x->key, k, sizeof *k)) {
            if (lo > x->lo) x->lo = lo;
            if (hi < x->hi) x->hi = hi;
            if (move) set_move(x, move);
            x->work += work;
            return;
        }
    }
    if (!e) {
        S->table_full = 1;
        e = &S->table[i];
        for (uint64_t j = i + 1; j < i + EG_BUCKET; j++)
            if (S->table[j].work < e->work) e = &S->table[j];
    }
    memset(e, 0, sizeof *e);
    e->key = *k;
    e->used = 1;
    e->lo = lo;
    e->hi = hi;
    e->work = work;
    set_move(e, move);
}

/* ------------------------------------------------------------------ children (engine/endgame.py _children) */
static int bonus_reachable(qs_mask board, int leathers) {
    for (int i = 0; i < T.n_bonus; i++)
        if (qs_popcount(T.bonus_masks[i] & ~board) <= leathers) return 1;
    return 0;
}

static int last_leather_cell(const qs_state *s) {
    qs_mask board = s->p[s->cur].board;
    qs_mask empty = T.full ^ board;
    if (s->bonus_open) {
        int k = s->pending, best_n = 82;
        qs_mask best_w = 0;
        for (int i = 0; i < T.n_bonus; i++) {
            int n = qs_popcount(T.bonus_masks[i] & empty);
            if (n < best_n) { best_w = T.bonus_masks[i]; best_n = n; }
        }
        if (best_n > 0 && best_n <= k) return qs_lowbit(best_w & empty);
    }
    return qs_lowbit(empty);
}

/* Stable sort of n actions by score, best first (a counting sort: scores lie in [lo, hi]). */
static void sort_by_score(qs_action *a, int *sc, int n, qs_action *tmp) {
    if (n < 2) return;
    int lo = sc[0], hi = sc[0];
    for (int i = 1; i < n; i++) { if (sc[i] < lo) lo = sc[i]; if (sc[i] > hi) hi = sc[i]; }
    int w = hi - lo + 1;
    int cnt[256];
    if (w > 256) {   /* never with the board measures used; keep it correct anyway: stable insertion */
        for (int i = 1; i < n; i++) {
            qs_action x = a[i];
            int v = sc[i], j = i;
            while (j > 0 && sc[j - 1] < v) { a[j] = a[j - 1]; sc[j] = sc[j - 1]; j--; }
            a[j] = x; sc[j] = v;
        }
        return;
    }
    memset(cnt, 0, sizeof(int) * (size_t)w);
    for (int i = 0; i < n; i++) cnt[hi - sc[i]]++;
    int pos = 0;
    for (int j = 0; j < w; j++) { int c = cnt[j]; cnt[j] = pos; pos += c; }
    for (int i = 0; i < n; i++) tmp[cnt[hi - sc[i]]++] = a[i];
    memcpy(a, tmp, sizeof(qs_action) * (size_t)n);
}

static int endgame_children(const qs_state *s, qs_action *out) {
    const qs_player *p = &s->p[s->cur];
    qs_mask board = p->board;
    int n = 0;
    static __thread int sc[QS_MAX_ACTIONS];
    static __thread qs_action tmp[QS_MAX_ACTIONS];
    if (s->pending) {
        if (p->position == T.end) {
            int c = last_leather_cell(s);
            out[0].kind = QS_LEATHER; out[0].arg = c; out[0].mask = (qs_mask)1 << c;
            return 1;
        }
        /* _search_policy.leather_scores */
        qs_mask empty = T.full ^ board;
        int near_full = s->bonus_open && qs_popcount(board) >= 48;
        qs_mask open1 = qs_one_open(&T, empty);
        qs_mask e = empty;
        while (e) {
            qs_mask c = e & (~e + 1);
            e ^= c;
            qs_mask nb = qs_neighbours(&T, c) & empty;
            int v = (4 - qs_popcount(nb)) - 3 * qs_popcount(nb & open1);
            if (near_full) {
                qs_mask after = board | c;
                for (int i = 0; i < T.n_bonus; i++)
                    if ((after & T.bonus_masks[i]) == T.bonus_masks[i]) { v += 100; break; }
            }
            int cell = qs_lowbit(c);
            out[n].kind = QS_LEATHER; out[n].arg = cell; out[n].mask = c; sc[n] = v; n++;
        }
        sort_by_score(out, sc, n, tmp);
        return n;
    }
    double rates[3];
    int pids[3];
    int no = qs_buy_rates(&T, s, rates, pids);
    int advanced = 0, have_planes = 0;
    qs_mask b0 = 0, b1 = 0, b2 = 0;
    for (int j = 0; j < no; j++) {
        int pid = pids[j];
        const qs_mask *ms = T.masks[pid];
        int nm = T.n_masks[pid];
        int first = n;
        for (int i = 0; i < nm; i++)
            if (!(ms[i] & board)) { out[n].kind = QS_BUY; out[n].arg = pid; out[n].mask = ms[i]; n++; }
        if (n == first) continue;
        if (!advanced && rates[j] <= T.advance_rate) {
            /* advance goes before this patch's placements */
            memmove(out + first + 1, out + first, sizeof(qs_action) * (size_t)(n - first));
            out[first].kind = QS_ADVANCE; out[first].arg = 0; out[first].mask = 0;
            first++; n++;
            advanced = 1;
        }
        if (p->position + T.time[pid] >= T.end) {
            /* rule R1: one placement */
            int pick = first;
            if (s->bonus_open) {
                int target = p->position + T.time[pid];
                if (target > T.end) target = T.end;
                int taken = 0;
                for (int i = 0; i < s->nleather; i++) if (s->leather[i] <= target) taken++;
                int empty_after = T.board_cells - qs_popcount(board) - qs_popcount(out[first].mask);
                int leathers = taken < empty_after ? taken : empty_after;
                for (int i = first; i < n; i++)
                    if (bonus_reachable(board | out[i].mask, leathers)) { pick = i; break; }
            }
            out[first] = out[pick];
            n = first + 1;
            continue;
        }
        if (!have_planes) { qs_contact_planes(&T, board, &b0, &b1, &b2); have_planes = 1; }
        for (int i = first; i < n; i++) {
            qs_mask m = out[i].mask;
            sc[i - first] = qs_popcount(m & b0) + 2 * qs_popcount(m & b1) + 4 * qs_popcount(m & b2);
        }
        sort_by_score(out + first, sc, n - first, tmp);
    }
    if (!advanced) { out[n].kind = QS_ADVANCE; out[n].arg = 0; out[n].mask = 0; n++; }
    return n;
}

static int same_action(const qs_action *a, const qs_action *b) {
    return a->kind == b->kind && a->arg == b->arg && a->mask == b->mask;
}

/* ------------------------------------------------------------------ rule B: packing (engine/endgame.py _fit, _cover) */
/* 1: all of pieces fit into region at once (*used |= the cells of one such packing); 0: they do not;
   -1: out of steps (taken as "yes"). */
static int check_limits(Searcher *S);

/* One step of a packing search: -1 out of steps, -2 the search must stop (S->abort set), else 0. A step
   counts as a node (so every EG_CHECK_EVERY nodes or steps the stop token and the clock are looked at). */
static int pack_step(Searcher *S, long *steps) {
    if (--*steps < 0) return -1;
    S->nodes++;
    if (!(S->nodes % EG_CHECK_EVERY)) {
        int r = check_limits(S);
        if (r) { S->abort = r; return -2; }
    }
    return 0;
}

/* What one patch can do in a region (engine/endgame.py _reach): the cells under its placements there, and
   the most cells of each 7x7 window's part of the region one placement covers (-1: none fits). */
static eg_reach *reach_of(Searcher *S, qs_mask region, int pid) {
    uint64_t h = (uint64_t)region ^ ((uint64_t)(region >> 64) * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)(pid + 1) * 0xBF58476D1CE4E5B9ULL);
    h ^= h >> 31;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 29;
    eg_reach *r = &S->reach[h & (EG_REACH_CACHE - 1)];
    if (r->used && r->region == region && r->pid == pid) return r;
    r->used = 1;
    r->region = region;
    r->pid = (uint8_t)pid;
    r->under = 0;
    memset(r->inside, 0, sizeof r->inside);
    qs_mask need[QS_MAX_BONUS];
    for (int w = 0; w < T.n_bonus; w++) { need[w] = T.bonus_masks[w] & region; r->most[w] = -1; }
    const qs_mask *ms = T.masks[pid];
    for (int j = 0; j < T.n_masks[pid]; j++) {
        if (ms[j] & ~region) continue;
        r->inside[j >> 6] |= 1ULL << (j & 63);
        r->under |= ms[j];
        for (int w = 0; w < T.n_bonus; w++) {
            int k = qs_popcount(ms[j] & need[w]);
            if (k > r->most[w]) r->most[w] = (int8_t)k;
        }
    }
    return r;
}

/* The packing searches keep, for each patch still to place, the set of its placements inside the region
   (bit j: PATCH_MASKS[pid][j]), filtered as patches are placed: the same choices, in the same order (ascending
   j), as scanning every placement (engine/endgame.py _fit and _cover), without the scan. A placement m rules out
   the placements covering one of its cells: COVER[pid][cell] (set by _init_tables), so filtering is a few word
   operations per cell of m. */
#define EG_WORDS ((QS_MAX_MASKS + 63) / 64)
static uint64_t COVER[QS_MAX_PATCHES][QS_CELLS][EG_WORDS];
static int N_WORDS = EG_WORDS;   /* words in use: (the most placements of a patch + 63) / 64 */

typedef struct {
    int n;
    int pid[QS_MAX_PATCHES];
    int len[QS_MAX_PATCHES];
    uint64_t bits[QS_MAX_PATCHES][EG_WORDS];
} eg_lists;

static void lists_make(Searcher *S, eg_lists *L, const int *pieces, int np, qs_mask region) {
    L->n = np;
    for (int i = 0; i < np; i++) {
        const eg_reach *x = reach_of(S, region, pieces[i]);   /* the placements inside, remembered per region */
        int k = 0;
        for (int w = 0; w < N_WORDS; w++) { L->bits[i][w] = x->inside[w]; k += __builtin_popcountll(x->inside[w]); }
        L->pid[i] = pieces[i];
        L->len[i] = k;
    }
}

/* child lists: `from` without piece `skip` (-1: none), the placements meeting `m` removed */
static void lists_filter(eg_lists *L, const eg_lists *from, int skip, qs_mask m) {
    int cells[QS_CELLS], nc = 0;
    for (qs_mask r = m; r; r &= r - 1) cells[nc++] = qs_lowbit(r);
    L->n = 0;
    for (int i = 0; i < from->n; i++) {
        if (i == skip) continue;
        int pid = from->pid[i], o = L->n, k = 0;
        for (int w = 0; w < N_WORDS; w++) {
            uint64_t b = from->bits[i][w];
            for (int c = 0; b && c < nc; c++) b &= ~COVER[pid][cells[c]][w];
            L->bits[o][w] = b;
            k += __builtin_popcountll(b);
        }
        L->pid[o] = pid; L->len[o] = k; L->n++;
    }
}

static int fit_lists(Searcher *S, qs_mask region, const eg_lists *L, long *steps, qs_mask *used) {
    if (!L->n) return 1;
    int st = pack_step(S, steps);
    if (st) return st;
    int bi = -1, bn = 0;
    for (int i = 0; i < L->n; i++) {   /* the piece with the fewest places first (ties: the lower id) */
        if (!L->len[i]) return 0;
        if (bi < 0 || L->len[i] < bn) { bi = i; bn = L->len[i]; }
    }
    const qs_mask *ms = T.masks[L->pid[bi]];
    eg_lists C;
    for (int w = 0; w < N_WORDS; w++)
        for (uint64_t b = L->bits[bi][w]; b; b &= b - 1) {
            qs_mask m = ms[w * 64 + __builtin_ctzll(b)];
            lists_filter(&C, L, bi, m);
            int r = fit_lists(S, region & ~m, &C, steps, used);
            if (r == 1) *used |= m;
            if (r) return r;
        }
    return 0;
}

static int cover_lists(Searcher *S, qs_mask region, const eg_lists *L, qs_mask need, int leathers, long *steps) {
    qs_mask left = need & region;
    int n = qs_popcount(left);
    if (n <= leathers) { qs_mask used = 0; return fit_lists(S, region, L, steps, &used); }
    int st = pack_step(S, steps);
    if (st) return st;
    qs_mask under = 0;
    int most = leathers;
    for (int i = 0; i < L->n; i++) {
        const qs_mask *ms = T.masks[L->pid[i]];
        int top = -1;
        for (int w = 0; w < N_WORDS; w++)
            for (uint64_t b = L->bits[i][w]; b; b &= b - 1) {
                qs_mask m = ms[w * 64 + __builtin_ctzll(b)];
                under |= m;
                int k = qs_popcount(m & left);
                if (k > top) top = k;
            }
        if (top < 0) return 0;
        most += top;
    }
    if (most < n || qs_popcount(left & ~under) > leathers) return 0;
    qs_mask c = left & (~left + 1);
    int cell = qs_lowbit(c);
    eg_lists C;
    for (int i = 0; i < L->n; i++) {
        const qs_mask *ms = T.masks[L->pid[i]];
        const uint64_t *at = COVER[L->pid[i]][cell];   /* its placements covering the cell, ascending */
        for (int w = 0; w < N_WORDS; w++)
            for (uint64_t b = L->bits[i][w] & at[w]; b; b &= b - 1) {
                qs_mask m = ms[w * 64 + __builtin_ctzll(b)];
                lists_filter(&C, L, i, m);
                int r = cover_lists(S, region & ~m, &C, need, leathers, steps);
                if (r) return r;
            }
    }
    if (leathers) {
        lists_filter(&C, L, -1, c);
        return cover_lists(S, region & ~c, &C, need, leathers - 1, steps);
    }
    return 0;
}

/* 1: all of pieces fit into region at once (*used |= the cells of one such packing); 0: they do not;
   -1: out of steps (taken as "yes"); -2: stopped (S->abort set). */
static int pack_fit(Searcher *S, qs_mask region, const int *pieces, int np, long *steps, qs_mask *used) {
    eg_lists L;
    lists_make(S, &L, pieces, np, region);
    return fit_lists(S, region, &L, steps, used);
}

/* Like pack_fit, leaving at most `leathers` cells of `need` uncovered (engine/endgame.py _cover): cut when a
   piece fits nowhere, when more cells of need than leathers lie under no placement, or when the most each
   piece can cover of them does not add up; else the lowest uncovered cell of need is covered by a placement
   of some piece, or (if a leather patch is left) by a leather patch. */
static int pack_cover(Searcher *S, qs_mask region, const int *pieces, int np, qs_mask need, int leathers,
                      long *steps) {
    eg_lists L;
    lists_make(S, &L, pieces, np, region);
    return cover_lists(S, region, &L, need, leathers, steps);
}

static int pieces_of(uint64_t set, int *out, int *area) {
    int n = 0, a = 0;
    while (set) {
        int pid = __builtin_ctzll(set);
        set &= set - 1;
        out[n++] = pid;
        a += T.area[pid];
    }
    *area = a;
    return n;
}

static eg_pack *pack_slot(Searcher *S, qs_mask region, uint64_t set, int leathers, int *hit) {
    uint64_t h = (uint64_t)region ^ ((uint64_t)(region >> 64) * 0x9E3779B97F4A7C15ULL) ^ (set * 0xBF58476D1CE4E5B9ULL)
                 ^ ((uint64_t)(leathers + 2) * 0x94D049BB133111EBULL);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    eg_pack *c = &S->pack[h & S->pack_mask];
    *hit = c->used && c->region == region && c->set == set && c->leathers == leathers;
    return c;
}

/* _Packer._grow: from EG_PACK_GROW_NODES nodes on, the cache gets all its slots (its answers moved in slot
   order, a later one replacing an earlier one); kept as it is when the memory is not there (the same answers,
   only the nodes may then differ from the Python search's). */
static void pack_grow(Searcher *S) {
    if (S->pack_mask + 1 >= S->pack_max || S->nodes < S->pack_grow) return;
    eg_pack *n = (eg_pack *)calloc((size_t)S->pack_max, sizeof(eg_pack));
    if (!n) { S->pack_max = S->pack_mask + 1; return; }
    uint64_t mask = S->pack_max - 1, old = S->pack_mask;
    eg_pack *o = S->pack;
    S->pack = n;
    S->pack_mask = mask;
    for (uint64_t i = 0; i <= old; i++) {
        if (!o[i].used) continue;
        int hit;
        eg_pack *c = pack_slot(S, o[i].region, o[i].set, o[i].leathers, &hit);
        *c = o[i];
    }
    free(o);
}

/* _Packer.fits: do the patches of `set` fit into `region` at once? (A packing already found for all but one
   of them is tried first: the same answer, found sooner.) */
static int pack_fits(Searcher *S, qs_mask region, uint64_t set) {
    pack_grow(S);
    int hit;
    eg_pack *c = pack_slot(S, region, set, -1, &hit);
    if (hit) return c->answer;
    int pieces[QS_MAX_PATCHES], area;
    int np = pieces_of(set, pieces, &area);
    int r = -2;
    qs_mask used = 0;
    if (area > qs_popcount(region)) r = 0;
    else if (np > 1) {
        for (int i = 0; i < np && r == -2; i++) {
            int h2;
            eg_pack *w = pack_slot(S, region, set & ~(1ULL << pieces[i]), -1, &h2);
            if (!h2 || !w->witness) continue;
            const qs_mask *ms = T.masks[pieces[i]];
            qs_mask free_ = region & ~w->witness;
            for (int j = 0; j < T.n_masks[pieces[i]]; j++)
                if (!(ms[j] & ~free_)) { r = 1; used = w->witness | ms[j]; break; }
        }
    }
    if (r == -2) {
        long steps = EG_PACK_STEPS;
        int x = pack_fit(S, region, pieces, np, &steps, &used);
        if (x == -2) return 0;   /* stopped: the answer is not used (and not kept) */
        r = x != 0;
        if (x != 1) used = 0;
    }
    c = pack_slot(S, region, set, -1, &hit);
    c->used = 1; c->region = region; c->set = set; c->leathers = -1; c->answer = (uint8_t)r; c->witness = used;
    return r;
}

/* _Packer.claims: do they and `leathers` 1x1 patches fit into `region` completing a 7x7 window? */
static int pack_claims(Searcher *S, qs_mask region, uint64_t set, int leathers) {
    pack_grow(S);
    int hit;
    eg_pack *c = pack_slot(S, region, set, leathers, &hit);
    if (hit) return c->answer;
    int pieces[QS_MAX_PATCHES], area;
    int np = pieces_of(set, pieces, &area);
    int r = 0;
    long steps = EG_PACK_STEPS;
    for (int i = 0; i < T.n_bonus; i++) {
        qs_mask need = T.bonus_masks[i] & region;
        int n = qs_popcount(need);
        /* the pieces and leathers of a deferred player always fit at once (they were checked) */
        if (n <= leathers) { r = 1; break; }
        if (n <= leathers + area) {
            /* pack_cover's first cut, from each patch's reach (no step): most the patches cover of the
               window, the window's cells under none of them */
            int most = leathers, none = 0;
            qs_mask under = 0;
            for (int j = 0; j < np; j++) {
                eg_reach *x = reach_of(S, region, pieces[j]);
                if (x->most[i] < 0) { none = 1; break; }
                most += x->most[i];
                under |= x->under;
            }
            if (none || most < n || qs_popcount(need & ~under) > leathers) continue;
            int x = pack_cover(S, region, pieces, np, need, leathers, &steps);
            if (x == -2) return 0;   /* stopped: the answer is not used (and not kept) */
            if (x) { r = 1; break; }   /* 1, or -1: out of steps, taken as "yes" */
        }
    }
    c->used = 1; c->region = region; c->set = set; c->leathers = (int16_t)leathers; c->answer = (uint8_t)r;
    c->witness = 0;
    return r;
}

/* ------------------------------------------------------------------ rule B: a deferred player's moves */
static void defer(eg_state *e, int i) {
    if (!e->dfr[i]) { e->dfr[i] = 1; e->dset[i] = 0; e->dl[i] = 0; e->dcells[i] = 0; }
}

static void d_move(eg_state *e, int cur, int target) {   /* _dmove */
    qs_state *s = &e->s;
    qs_player *p = &s->p[cur];
    int a = p->position;
    if (target > T.end) target = T.end;
    p->position = target;
    int n = T.income_up_to[target] - T.income_up_to[a];
    if (n) p->buttons += n * p->income;
    if (s->nleather && s->leather[0] <= target) {
        int k = 1;
        while (k < s->nleather && s->leather[k] <= target) k++;
        memmove(s->leather, s->leather + k, (size_t)(s->nleather - k));
        s->nleather -= k;
        int empty = T.board_cells - cells(e, cur);
        s->pending = k < empty ? k : empty;
    }
    if (target == T.end && s->first_to_end < 0) s->first_to_end = cur;
    if (!s->pending) qs__end_turn(&T, s, cur);
}

static void d_claim(Searcher *S, eg_state *e, int cur) {
    qs_state *s = &e->s;
    if (s->bonus_open && pack_claims(S, T.full ^ s->p[cur].board, e->dset[cur], e->dl[cur])) {
        s->p[cur].bonus = 1;
        s->bonus_open = 0;
    }
}

static void d_buy(Searcher *S, eg_state *e, int pid) {   /* _dbuy */
    qs_state *s = &e->s;
    int cur = s->cur;
    qs_player *p = &s->p[cur];
    defer(e, cur);
    int i = qs_circle_index(s, pid);
    p->buttons -= T.cost[pid];
    p->income += T.income[pid];
    p->patches[p->npatches++] = (uint8_t)pid;
    uint8_t tmp[QS_MAX_PATCHES];
    int nc = s->ncircle, k = 0;
    for (int j = i + 1; j < nc; j++) tmp[k++] = s->circle[j];
    for (int j = 0; j < i; j++) tmp[k++] = s->circle[j];
    memcpy(s->circle, tmp, (size_t)k);
    s->ncircle = k;
    e->dset[cur] |= 1ULL << pid;
    e->dcells[cur] = (uint8_t)(e->dcells[cur] + T.area[pid]);
    d_claim(S, e, cur);
    d_move(e, cur, p->position + T.time[pid]);
}

static void d_leather(Searcher *S, eg_state *e) {   /* _dleather */
    qs_state *s = &e->s;
    int cur = s->cur;
    defer(e, cur);
    e->dl[cur]++;
    e->dcells[cur]++;
    s->p[cur].leather += 1;
    s->pending -= 1;
    if (cells(e, cur) == T.board_cells) s->pending = 0;
    d_claim(S, e, cur);
    if (!s->pending) qs__end_turn(&T, s, cur);
}

static void d_advance(eg_state *e) {
    qs_state *s = &e->s;
    int cur = s->cur;
    qs_player *p = &s->p[cur];
    int target = s->p[1 - cur].position + 1;
    if (target > T.end) target = T.end;
    p->buttons += target - p->position;
    d_move(e, cur, target);
}

static void eg_apply(Searcher *S, eg_state *e, const qs_action *a) {   /* _dapply */
    if (!e->dfr[e->s.cur]) qs_apply_unchecked(&T, &e->s, a);
    else if (e->s.pending) d_leather(S, e);
    else if (a->kind == QS_BUY) d_buy(S, e, a->arg);
    else d_advance(e);
}

static int d_children(Searcher *S, const eg_state *e, qs_action *out) {   /* _dchildren */
    const qs_state *s = &e->s;
    int cur = s->cur;
    if (s->pending) { out[0].kind = QS_LEATHER; out[0].arg = 0; out[0].mask = 1; return 1; }
    const qs_player *p = &s->p[cur];
    qs_mask region = T.full ^ p->board;
    int room = T.board_cells - qs_popcount(p->board) - e->dcells[cur];
    double rates[3];
    int pids[3];
    int no = qs_buy_rates(&T, s, rates, pids);
    int n = 0, advanced = 0;
    for (int j = 0; j < no; j++) {
        int pid = pids[j];
        if (T.area[pid] > room || !pack_fits(S, region, e->dset[cur] | 1ULL << pid)) continue;
        if (!advanced && rates[j] <= T.advance_rate) {
            out[n].kind = QS_ADVANCE; out[n].arg = 0; out[n].mask = 0; n++;
            advanced = 1;
        }
        out[n].kind = QS_BUY; out[n].arg = pid; out[n].mask = 0; n++;
    }
    if (!advanced) { out[n].kind = QS_ADVANCE; out[n].arg = 0; out[n].mask = 0; n++; }
    return n;
}

static int group_of(const qs_action *a) {   /* _group */
    if (a->kind == QS_BUY) return a->arg;
    if (a->kind == QS_LEATHER) return EG_LEATHER_GROUP;
    return -1;
}

/* ------------------------------------------------------------------ the search */
static int check_limits(Searcher *S) {
    if (S->stop) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyObject *r = PyObject_CallMethod(S->stop, "is_set", NULL);
        int set = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
        if (set < 0) PyErr_Clear();
        PyGILState_Release(g);
        if (set != 0) return EG_STOPPED;
    }
    if (S->deadline >= 0 && now_monotonic() >= S->deadline) return EG_TIME;
    return EG_OK;
}

static int ab(Searcher *S, const eg_state *e, int alpha, int beta, int ply) {
    const qs_state *s = &e->s;
    if (S->abort) return 0;   /* a packing question was stopped while this position was being made */
    S->nodes++;
    if (!(S->nodes % EG_CHECK_EVERY)) {
        int r = check_limits(S);
        if (r) { S->abort = r; return 0; }
    }
    if (s->over) return margin(e);
    if (S->max_plies >= 0 && ply >= S->max_plies) { S->abort = EG_HORIZON; return 0; }
    if (ply >= EG_MAX_DEPTH) { S->abort = EG_DEEP; return 0; }
    eg_key key;
    make_key(e, &key);
    uint64_t h = hash_key(&key);
    eg_entry *en = probe(S, &key, h);
    qs_action tt;
    int have_tt = 0;
    if (en) {
        int lo = en->lo, hi = en->hi;
        if (lo == hi || lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
        if (en->has_move) { get_move(en, &tt); have_tt = 1; }
    }
    uint64_t start = S->nodes;
    if (!S->levels[ply]) {
        S->levels[ply] = (qs_action *)malloc(sizeof(qs_action) * QS_MAX_ACTIONS);
        if (!S->levels[ply]) { S->abort = EG_ERROR; return 0; }
    }
    qs_action *acts = S->levels[ply];
    int cur = s->cur, exact = !e->dfr[cur];
    int n = exact ? endgame_children(s, acts) : d_children(S, e, acts);
    if (S->abort) return 0;
    if (have_tt && !same_action(&acts[0], &tt)) {
        for (int i = 1; i < n; i++)
            if (same_action(&acts[i], &tt)) {
                memmove(acts + 1, acts, sizeof(qs_action) * (size_t)i);
                acts[0] = tt;
                break;
            }
    }
    if (S->has_killer[ply]) {   /* the last move that cut off at this ply, right after the table's move */
        int at = have_tt ? 1 : 0;
        for (int i = at + 1; i < n; i++)
            if (same_action(&acts[i], &S->killer[ply])) {
                qs_action k = acts[i];
                memmove(acts + at + 1, acts + at, sizeof(qs_action) * (size_t)(i - at));
                acts[at] = k;
                break;
            }
    }
    /* rule B: the groups of an exact mover's moves large enough to be bounded at once */
    int sizes[EG_GROUPS], checked[EG_GROUPS];
    uint8_t has_checked[EG_GROUPS], cut[EG_GROUPS];
    int any = 0;
    if (S->relax && exact) {
        memset(sizes, 0, sizeof sizes);
        memset(has_checked, 0, sizeof has_checked);
        memset(cut, 0, sizeof cut);
        for (int i = 0; i < n; i++) {
            int g = group_of(&acts[i]);
            if (g >= 0) { sizes[g]++; any = 1; }
        }
    }
    int maxing = cur == 0;
    int best_i = -1, best = maxing ? -EG_INF : EG_INF;
    int a = alpha, b = beta, first = 1;
    for (int i = 0; i < n; i++) {
        if (any) {
            int g = group_of(&acts[i]);
            if (g >= 0 && sizes[g] >= EG_MIN_GROUP) {
                if (cut[g]) continue;
                int edge = maxing ? a : b;
                if (!has_checked[g] || checked[g] != edge) {   /* again whenever the window moved */
                    has_checked[g] = 1;
                    checked[g] = edge;
                    eg_state c = *e;
                    if (acts[i].kind == QS_BUY) d_buy(S, &c, acts[i].arg);
                    else d_leather(S, &c);
                    int rb;
                    if (maxing) {
                        rb = ab(S, &c, a, a + 1, ply + 1);
                        if (S->abort) return 0;
                        if (rb <= a) {
                            cut[g] = 1;
                            if (rb > best) { best = rb; best_i = i; }
                            continue;
                        }
                    } else {
                        rb = ab(S, &c, b - 1, b, ply + 1);
                        if (S->abort) return 0;
                        if (rb >= b) {
                            cut[g] = 1;
                            if (rb < best) { best = rb; best_i = i; }
                            continue;
                        }
                    }
                }
            }
        }
        eg_state c = *e;
        eg_apply(S, &c, &acts[i]);
        int v;
        if (maxing) {
            if (first) v = ab(S, &c, a, b, ply + 1);
            else {   /* principal variation search: a null window first, the full one if it fails high */
                v = ab(S, &c, a, a + 1, ply + 1);
                if (!S->abort && v > a && v < b) v = ab(S, &c, a, b, ply + 1);
            }
            first = 0;
            if (S->abort) return 0;
            if (v > best) {
                best = v; best_i = i;
                if (v > a) { a = v; if (a >= b) { S->killer[ply] = acts[i]; S->has_killer[ply] = 1; break; } }
            }
        } else {
            if (first) v = ab(S, &c, a, b, ply + 1);
            else {
                v = ab(S, &c, b - 1, b, ply + 1);
                if (!S->abort && v < b && v > a) v = ab(S, &c, a, b, ply + 1);
            }
            first = 0;
            if (S->abort) return 0;
            if (v < best) {
                best = v; best_i = i;
                if (v < b) { b = v; if (a >= b) { S->killer[ply] = acts[i]; S->has_killer[ply] = 1; break; } }
            }
        }
    }
    const qs_action *bm = best_i >= 0 ? &acts[best_i] : NULL;
    uint64_t work = S->nodes - start;
    /* the move only when it proves the bound (_Search._ab): not when every move of the mover failed */
    if (best <= alpha) store(S, &key, h, -EG_INF, best, maxing ? NULL : bm, work);
    else if (best >= beta) store(S, &key, h, best, EG_INF, maxing ? bm : NULL, work);
    else store(S, &key, h, best, best, bm, work);
    return best;
}

static void eg_from_state(const qs_state *s, eg_state *e) {
    memset(e, 0, sizeof *e);
    e->s = *s;
}

/* ------------------------------------------------------------------ the Python type */
static void Searcher_dealloc(Searcher *S) {
    free(S->table);
    free(S->pack);
    free(S->reach);
    for (int i = 0; i < EG_MAX_DEPTH; i++) free(S->levels[i]);
    Py_XDECREF(S->stop);
    Py_TYPE(S)->tp_free((PyObject *)S);
}

static int Searcher_init(Searcher *S, PyObject *args, PyObject *kw) {
    long long table_bytes;
    int max_plies;
    double deadline;
    PyObject *stop;
    int relax = 1;
    unsigned long long grow = EG_PACK_GROW_NODES;
    if (!PyArg_ParseTuple(args, "LidO|pK", &table_bytes, &max_plies, &deadline, &stop, &relax, &grow)) return -1;
    if (!tables_ready) { PyErr_SetString(PyExc_RuntimeError, "engine._endgame: _init_tables() was not called"); return -1; }
    uint64_t n = EG_BUCKET;
    while ((long long)(n * 2 * sizeof(eg_entry)) <= table_bytes) n *= 2;
    free(S->table);
    S->table = (eg_entry *)calloc((size_t)n, sizeof(eg_entry));
    if (!S->table) { PyErr_NoMemory(); return -1; }
    free(S->pack);
    uint64_t slots = EG_PACK_CACHE_MIN;   /* table_bytes / 256 rounded down to a power of two, clamped */
    while (slots < EG_PACK_CACHE && (long long)(2 * slots * 256) <= table_bytes) slots *= 2;
    S->pack_max = slots;
    S->pack_grow = (uint64_t)grow;
    S->pack_mask = EG_PACK_CACHE_MIN - 1;
    S->pack = (eg_pack *)calloc(EG_PACK_CACHE_MIN, sizeof(eg_pack));
    if (!S->pack) { PyErr_NoMemory(); return -1; }
    free(S->reach);
    S->reach = (eg_reach *)calloc(EG_REACH_CACHE, sizeof(eg_reach));
    if (!S->reach) { PyErr_NoMemory(); return -1; }
    S->relax = relax;
    S->size = n;
    S->mask = n - 1;
    S->nodes = 0;
    S->table_full = 0;
    S->max_plies = max_plies;
    S->deadline = deadline;
    Py_XDECREF(S->stop);
    S->stop = NULL;
    if (stop != Py_None) { Py_INCREF(stop); S->stop = stop; }
    S->abort = 0;
    return 0;
}

static PyObject *Searcher_ab(Searcher *S, PyObject *args) {
    PyObject *st;
    int alpha, beta, ply, dmask = 0;
    if (!PyArg_ParseTuple(args, "Oiii|i", &st, &alpha, &beta, &ply, &dmask)) return NULL;
    qs_state s;
    if (qs_state_from_py(&T, st, &s) < 0) return NULL;
    eg_state e;
    eg_from_state(&s, &e);
    if (dmask & 1) defer(&e, 0);
    if (dmask & 2) defer(&e, 1);
    S->abort = 0;
    int v;
    Py_BEGIN_ALLOW_THREADS
    v = ab(S, &e, alpha, beta, ply);
    Py_END_ALLOW_THREADS
    if (S->abort == EG_ERROR) return PyErr_NoMemory();
    if (S->abort == EG_DEEP) { PyErr_SetString(PyExc_RuntimeError, "endgame search deeper than 400 plies"); return NULL; }
    return Py_BuildValue("(ii)", S->abort, v);
}

static PyObject *Searcher_ab_after(Searcher *S, PyObject *args) {
    PyObject *st, *act;
    int alpha, beta, ply;
    if (!PyArg_ParseTuple(args, "OOiii", &st, &act, &alpha, &beta, &ply)) return NULL;
    qs_state s;
    qs_action a;
    if (qs_state_from_py(&T, st, &s) < 0 || qs_action_from_py(act, &a) < 0) return NULL;
    if (s.over || (a.kind != QS_BUY && a.kind != QS_LEATHER) || (a.kind == QS_LEATHER) != (s.pending > 0)
        || (a.kind == QS_BUY && qs_circle_index(&s, a.arg) < 0)) {
        PyErr_SetString(PyExc_ValueError, "ab_after: a buy of a patch of the circle, or a leather placement when one "
                        "is pending");
        return NULL;
    }
    eg_state e;
    eg_from_state(&s, &e);
    S->abort = 0;
    int v;
    Py_BEGIN_ALLOW_THREADS
    if (a.kind == QS_BUY) d_buy(S, &e, a.arg);
    else d_leather(S, &e);
    v = ab(S, &e, alpha, beta, ply);
    Py_END_ALLOW_THREADS
    if (S->abort == EG_ERROR) return PyErr_NoMemory();
    if (S->abort == EG_DEEP) { PyErr_SetString(PyExc_RuntimeError, "endgame search deeper than 400 plies"); return NULL; }
    return Py_BuildValue("(ii)", S->abort, v);
}

static PyObject *Searcher_children(Searcher *S, PyObject *st) {
    qs_state s;
    if (qs_state_from_py(&T, st, &s) < 0) return NULL;
    qs_action *buf = (qs_action *)malloc(sizeof(qs_action) * QS_MAX_ACTIONS);
    if (!buf) return PyErr_NoMemory();
    int n = s.over ? 0 : endgame_children(&s, buf);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *a = qs_action_to_py(&buf[i]);
        if (!a) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, i, a);
    }
    free(buf);
    return out;
}

static PyObject *Searcher_probe_move(Searcher *S, PyObject *args) {
    PyObject *st;
    int dmask = 0;
    if (!PyArg_ParseTuple(args, "O|i", &st, &dmask)) return NULL;
    qs_state s;
    if (qs_state_from_py(&T, st, &s) < 0) return NULL;
    eg_state es;
    eg_from_state(&s, &es);
    if (dmask & 1) defer(&es, 0);
    if (dmask & 2) defer(&es, 1);
    eg_key key;
    make_key(&es, &key);
    eg_entry *e = probe(S, &key, hash_key(&key));
    if (!e || !e->has_move) Py_RETURN_NONE;
    qs_action m;
    get_move(e, &m);
    return qs_action_to_py(&m);
}

static PyObject *Searcher_get_nodes(Searcher *S, void *c) { return PyLong_FromUnsignedLongLong(S->nodes); }
static PyObject *Searcher_get_full(Searcher *S, void *c) { return PyBool_FromLong(S->table_full); }
static PyObject *Searcher_get_slots(Searcher *S, void *c) { return PyLong_FromUnsignedLongLong(S->size); }

static PyMethodDef Searcher_methods[] = {
    {"ab", (PyCFunction)Searcher_ab, METH_VARARGS,
     "ab(state_tuple, alpha, beta, ply, defer=0) -> (abort code, value): 0 ok, 1 time, 2 stopped, 3 horizon;\n"
     "defer: bit 0 / bit 1 = player 0 / 1 deferred at the start (rule B: the value is then that relaxation's)."},
    {"ab_after", (PyCFunction)Searcher_ab_after, METH_VARARGS,
     "ab_after(state_tuple, action, alpha, beta, ply) -> (abort code, value): the search of the position after\n"
     "any move of action's group (a buy of its patch, or a leather placement) by the mover, deferred from there on."},
    {"children", (PyCFunction)Searcher_children, METH_O, "The searched actions of a state, in order."},
    {"probe_move", (PyCFunction)Searcher_probe_move, METH_VARARGS,
     "probe_move(state_tuple, defer=0) -> the table's best move of a state, or None."},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef Searcher_getset[] = {
    {"nodes", (getter)Searcher_get_nodes, NULL, "nodes searched", NULL},
    {"table_full", (getter)Searcher_get_full, NULL, "an entry of another position was replaced", NULL},
    {"slots", (getter)Searcher_get_slots, NULL, "table entries", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "quiltsolve.engine._endgame.Searcher",
    .tp_basicsize = sizeof(Searcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Searcher(table_bytes, max_plies (-1 none), deadline (monotonic, < 0 none), stop or None, relax=True)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Searcher_init,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_methods = Searcher_methods,
    .tp_getset = Searcher_getset,
};

static PyObject *py_init_tables(PyObject *self, PyObject *arg) {
    qs_tables t;
    if (qs_tables_from_py(&t, arg) < 0) return NULL;
    if (tables_ready)
        for (int i = 0; i < t.n_patches; i++) free(t.masks[i]);
    else {
        T = t;
        for (int pid = 0; pid < T.n_patches; pid++)
            for (int cell = 0; cell < T.board_cells; cell++)
                for (int j = 0; j < T.n_masks[pid]; j++)
                    if ((T.masks[pid][j] >> cell) & 1) COVER[pid][cell][j >> 6] |= 1ULL << (j & 63);
        int most = 0;
        for (int pid = 0; pid < T.n_patches; pid++) if (T.n_masks[pid] > most) most = T.n_masks[pid];
        N_WORDS = (most + 63) / 64;
        tables_ready = 1;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_init_tables", py_init_tables, METH_O, "Fill the rule tables (engine.core.core_tables())."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_endgame",
                                    "The exact endgame solver's search in C (engine/endgame.py).", -1, methods};

PyMODINIT_FUNC PyInit__endgame(void) {
    if (PyType_Ready(&SearcherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0) { Py_DECREF(&SearcherType); Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "ENTRY_BYTES", (long)sizeof(eg_entry)) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "CHECK_EVERY", EG_CHECK_EVERY) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "PACK_STEPS", EG_PACK_STEPS) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "MIN_GROUP", EG_MIN_GROUP) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "PACK_CACHE", EG_PACK_CACHE) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "PACK_CACHE_MIN", EG_PACK_CACHE_MIN) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "PACK_GROW_NODES", EG_PACK_GROW_NODES) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
