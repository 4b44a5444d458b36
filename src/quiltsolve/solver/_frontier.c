/* Counting tilings by dynamic programming over a frontier: the C twin of
 * solver/puzzle/frontier.py (run_dp_py), same tables, same answers.
 *
 * count(n, reach, pstart, masks, adds, fmasks, lims, estart, efm, efull,
 *       need_fm, need_full, table_bytes, time_limit, stop)
 *   n:       cells, swept in order 0..n-1
 *   pstart:  array('q') of n + 1: the placements anchored at cell a are
 *            pstart[a] .. pstart[a + 1] - 1
 *   masks:   array('Q'), per placement: bit d for the cell a + d (bit 0 set)
 *   adds:    array('Q'), per placement: added to the copies word
 *   fmasks:  array('Q'), per placement: the copies field of its type (0: untracked)
 *   lims:    array('Q'), per placement: the field's largest value before it
 *   estart:  array('q') of n + 1; efm / efull array('Q'): after cell a the
 *            states whose (copies & efm[k]) != efull[k], k in
 *            estart[a] .. estart[a + 1] - 1, are dropped
 *   need_fm / need_full: array('Q'): at the end, the states counted
 *   table_bytes: the bound on the tables' bytes (status 5 past it)
 *   stop:    None or a bytearray(1) another thread sets (read without the GIL)
 *   init:    optional (cell i0, limbs L, entries as bytes): start at cell i0
 *            from that table (a snapshot) instead of the empty board
 *   snaps:   optional cells: the table before each is handed back as such a
 *            triple (a fixed-point count shares the identity count's start)
 *   threads: optional, 0 (default): 2 on a machine of 2 or more cores, else
 *            1; 1 or 2: that many for the hash steps (same answers)
 * -> (status, count as little-endian bytes, peak states, snapshots)
 *   status 0 done, 2 time limit, 3 stopped, 5 table bound passed.
 *
 * A state is (frontier, copies): bit d of the frontier is the cell i + d
 * already covered; copies packs the used copies of the tracked types.
 * Between steps a table is one compact array of entries: the key, then the
 * value as L 64-bit limbs (exact). A step writes either a sorted array (the
 * merge step) or an open-addressing table of whole entries (the hash step),
 * compacted after it. L grows by one when a step carries out of the top
 * limb: the step is redone from the old table (which a step never changes),
 * widened. States that no tiling can complete are not kept (dead-state
 * pruning, below).
 *
 * The GIL is released while counting.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>

typedef unsigned __int128 u128;

/* A table is written by one thread at a time (t->n at every new state),
 * and two threads write two tables side by side: a cache line each, or the
 * line they share ping-pongs between the cores (2 threads then took 3x the
 * CPU time, in the runs where the stack put them on one line). */
typedef struct {
    _Alignas(64) uint64_t *e;   /* entries: (f, c, L limbs) each, n used, cap allocated */
    size_t n, cap;
    size_t nslot;      /* while a hash step writes it: its slots (a power of 2), else 0 */
    int shift;         /* 64 - log2(nslot) */
    int sbits;         /* hash bits taken by the shard (the top ones): 0 or 1 */
} Table;

static double now_sec(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Fibonacci hashing: the top bits of the product (its low bits would only
 * see the frontier's low bits) */
static inline uint64_t hash64(uint64_t f, uint64_t c) {
    return (f ^ (c * 0xC2B2AE3D27D4EB4FULL)) * 0x9E3779B97F4A7C15ULL;
}

/* dst += src over L 64-bit limbs; the carry out of the top limb (1: the sum needs one more limb) */
static inline unsigned limbs_add(uint64_t *dst, const uint64_t *src, int L) {
    unsigned char carry = 0;
    for (int l = 0; l < L; l++) {
        u128 s = (u128)dst[l] + src[l] + carry;
        dst[l] = (uint64_t)s;
        carry = (unsigned char)(s >> 64);
    }
    return carry;
}


/* Dead-state pruning: the cover lists of the window before one cell (see
 * cover_build) */
typedef struct {
    uint64_t m;        /* the cells (relative to the window's first) */
    uint64_t fm, lim;  /* its type's copies field and the field's largest value before it (fm 0: untracked) */
} CMask;

typedef struct {
    CMask *m;          /* the masks, list after list */
    size_t cap;
    int nd;            /* cells with a list to check, in order */
    int ds[64];
    uint64_t hit[64];  /* per list: cells every mask holds besides its own (0: none known) */
    size_t start[65];  /* list k: m[start[k] .. start[k + 1]) */
    int last;          /* the list of the window's last cell, -1 none */
    signed char kof[64];   /* the list of cell d, -1 none */
    uint64_t *aff;     /* per placement of the step: the cells whose lists it may empty */
    size_t aff_cap;
} Cover;

typedef struct {
    int n, L, reach;
    Cover cover;
    int prune_skip;    /* steps left before pruning is tried again */
    int prune_on;      /* this step checks its successors */
    int threads;       /* 1 or 2 (step_par) */
    double last_growth;    /* states after / before the last hash step */
    /* the placements of the step's anchor by the next LOW_BITS cells: those
     * that fit a frontier f are fits[fstart[x] .. fstart[x + 1]), x the bits
     * 1 .. low_bits of f (see fits_prepare) */
    int low_bits;
    uint32_t *fstart;
    uint16_t *fits;
    size_t fits_cap;
    int cur_i;         /* the cell being stepped */
    size_t checked, dropped;
    const int64_t *pstart, *estart;
    const uint64_t *mask, *add, *fm, *lim, *efm, *efull;
    double deadline;
    volatile const unsigned char *stop_flag;
    size_t table_bytes;
    int status, oom, overflow;
    size_t peak;
} Run;

static size_t bytes_for(size_t entries, size_t slots, int L) {
    return entries * (16 + 8 * (size_t)L) + slots * 4;
}

/* Large tables are hashed into at random: ask for huge pages (fewer TLB
 * misses; the kernel's transparent huge pages in "madvise" mode) */
static void huge_pages(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    if (bytes < ((size_t)4 << 20)) return;
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, b = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
    (void)p; (void)bytes;
#endif
}

static int entries_reserve(Table *t, size_t cap, int L) {
    if (cap <= t->cap) return 0;
    uint64_t *e = realloc(t->e, cap * (size_t)(2 + L) * 8);
    if (!e) return -1;
    huge_pages(e, cap * (size_t)(2 + L) * 8);
    t->e = e;
    t->cap = cap;
    return 0;
}

/* The hash step writes into an open-addressing table of whole entries
 * (linear probing; a free slot's frontier is EMPTY, never a frontier: they
 * have at most 63 bits): an insert costs one cache miss, not two (index,
 * then entry). Its load stays under OPEN_LOAD_NUM / OPEN_LOAD_DEN (the table
 * doubles past it); after the step it is compacted in place. */
#define EMPTY (~0ULL)
#define OPEN_LOAD_NUM 7
#define OPEN_LOAD_DEN 10

static int log2_of(size_t n) {
    int k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

/* t as an empty open table of nslot slots (a power of 2), next to `other`
 * bytes of the old table; -1 abort (status/oom set) */
static int open_reset(Run *r, Table *t, size_t nslot, size_t other) {
    size_t w = (size_t)(2 + r->L);
    if (bytes_for(nslot, 0, r->L) + other > r->table_bytes) { r->status = 5; return -1; }
    if (entries_reserve(t, nslot, r->L) < 0) { r->oom = 1; return -1; }
    memset(t->e, 0xFF, nslot * w * 8);    /* every word EMPTY (a plain fill is the fastest) */
    t->nslot = nslot;
    t->shift = 64 - log2_of(nslot);
    t->n = 0;
    return 0;
}

/* double the open table t (its entries rehashed); -1 abort */
static int open_grow(Run *r, Table *t, size_t other) {
    size_t w = (size_t)(2 + r->L), nslot = 2 * t->nslot;
    if (bytes_for(nslot + t->cap, 0, r->L) + other > r->table_bytes) { r->status = 5; return -1; }
    uint64_t *e = malloc(nslot * w * 8);
    if (!e) { r->oom = 1; return -1; }
    huge_pages(e, nslot * w * 8);
    for (size_t k = 0; k < nslot; k++) e[k * w] = EMPTY;
    int shift = 64 - log2_of(nslot);
    size_t m = nslot - 1;
    for (size_t k = 0; k < t->nslot; k++) {
        const uint64_t *x = t->e + k * w;
        if (x[0] == EMPTY) continue;
        size_t h = (size_t)((hash64(x[0], x[1]) << t->sbits) >> shift);
        while (e[h * w] != EMPTY) h = (h + 1) & m;
        memcpy(e + h * w, x, w * 8);
    }
    free(t->e);
    t->e = e;
    t->cap = t->nslot = nslot;
    t->shift = shift;
    return 0;
}

/* add the value src (L limbs) to the state (f, c) of the open table t; -1 abort */
static inline int open_add(Run *r, Table *t, size_t other, uint64_t f, uint64_t c, const uint64_t *src) {
    int L = r->L;
    size_t w = (size_t)(2 + L);
    for (;;) {
        size_t m = t->nslot - 1, h = (size_t)((hash64(f, c) << t->sbits) >> t->shift);
        for (;;) {
            uint64_t *e = t->e + h * w;
            if (e[0] == f && e[1] == c) {
                if (limbs_add(e + 2, src, L)) r->overflow = 1;
                return 0;
            }
            if (e[0] == EMPTY) {
                if ((t->n + 1) * OPEN_LOAD_DEN > t->nslot * OPEN_LOAD_NUM) break;   /* grow, then again */
                e[0] = f;
                e[1] = c;
                memcpy(e + 2, src, (size_t)L * 8);
                t->n++;
                return 0;
            }
            h = (h + 1) & m;
        }
        if (open_grow(r, t, other) < 0) return -1;
    }
}

/* t's entries moved to its front (the table is only read from now on), its
 * array cut to them; -1 no memory */
static int open_compact(Run *r, Table *t) {
    size_t w = (size_t)(2 + r->L), keep = 0;
    for (size_t k = 0; k < t->nslot; k++) {
        const uint64_t *x = t->e + k * w;
        if (x[0] == EMPTY) continue;
        if (keep != k) memcpy(t->e + keep * w, x, w * 8);
        keep++;
    }
    t->n = keep;
    t->nslot = 0;
    /* the array is kept for the next steps (freed and faulted in again, its
     * pages cost more than the hashing), unless it is mostly empty */
    size_t cap = keep + 1024;
    if (8 * cap < t->cap) {
        uint64_t *e = realloc(t->e, cap * w * 8);
        if (!e) { r->oom = 1; return -1; }
        t->e = e;
        t->cap = cap;
    }
    return 0;
}

/* The inserts of a step go through a ring of RING pending ones: a state's
 * slot is prefetched when it enters, written when it leaves (the misses of
 * RING inserts overlap). */
#define RING 16

typedef struct {
    uint64_t f[RING], c[RING];
    const uint64_t *v[RING];
    unsigned head, n;
} Ring;

static inline int ring_push(Run *r, Table *t, size_t other, Ring *q, uint64_t f, uint64_t c, const uint64_t *v) {
    size_t w = (size_t)(2 + r->L);
    __builtin_prefetch(t->e + ((hash64(f, c) << t->sbits) >> t->shift) * w, 1, 1);
    if (q->n == RING) {
        unsigned k = q->head;
        if (open_add(r, t, other, q->f[k], q->c[k], q->v[k]) < 0) return -1;
        q->f[k] = f; q->c[k] = c; q->v[k] = v;
        q->head = (k + 1) % RING;
        return 0;
    }
    unsigned k = (q->head + q->n++) % RING;
    q->f[k] = f; q->c[k] = c; q->v[k] = v;
    return 0;
}

static int ring_flush(Run *r, Table *t, size_t other, Ring *q) {
    for (; q->n; q->n--) {
        unsigned k = q->head;
        if (open_add(r, t, other, q->f[k], q->c[k], q->v[k]) < 0) return -1;
        q->head = (k + 1) % RING;
    }
    return 0;
}

/* widen every value of t from L to L + 1 limbs (in place, from the end); -1 no memory */
static int widen(Table *t, int L) {
    size_t w0 = (size_t)(2 + L), w1 = w0 + 1;
    size_t cap = t->cap ? t->cap : 1;
    uint64_t *e = realloc(t->e, cap * w1 * 8);
    if (!e) return -1;
    for (size_t k = t->n; k-- > 0;) {
        memmove(e + k * w1, e + k * w0, w0 * 8);
        e[k * w1 + w0] = 0;
    }
    t->e = e;
    t->cap = cap;
    return 0;
}

static int poll_abort(Run *r) {
    if (r->stop_flag && *r->stop_flag) { r->status = 3; return 1; }
    if (now_sec() >= r->deadline) { r->status = 2; return 1; }
    return 0;
}

/* Dead-state pruning. Before cell i1 every cell before it is covered, so a
 * free cell j = i1 + d of the window must still be covered by a placement
 * anchored at some a in i1 .. j (its lowest cell) that misses the covered
 * cells. Cover list d holds those placements' masks, relative to i1 and cut
 * to the window (a cell past it is free), minimal ones only, fewest cells
 * first; a state whose free cell d meets every mask of list d is dead (no
 * tiling completes it) and is not stored. Only a necessary condition
 * (copies and the placements' mutual overlaps are not looked at), so the
 * count is the same with or without it; the states are fewer (pentominoes
 * with repeats on 8x10: a quarter at the peak). A cell whose list holds the
 * single-cell mask (a placement reaching only past the window) is always
 * coverable and gets no list.
 *
 * Only the successors made by a placement are checked: a state that shifts
 * on keeps its witnesses (one anchored at the cell it leaves would hold that
 * covered cell), so of a live state only the cell entering the window may
 * die. */
static int popcmp(const void *a, const void *b) {
    const CMask *x = a, *y = b;
    int px = __builtin_popcountll(x->m), py = __builtin_popcountll(y->m);
    if (px != py) return px < py ? -1 : 1;
    if (x->m != y->m) return x->m < y->m ? -1 : 1;
    if (x->fm != y->fm) return x->fm < y->fm ? -1 : 1;
    return x->lim < y->lim ? -1 : x->lim > y->lim;
}

/* A list of at most HIT_SCAN masks gets a hitting set (greedy, at most
 * HIT_MAX cells besides d that every mask holds): all of them covered, d is
 * dead without scanning its list (a pocket walled in). */
#define HIT_SCAN 1024
#define HIT_MAX 6

/* the work of cover_build for the window before cell i1 (placements looked at) */
static size_t cover_cost(const Run *r, int i1) {
    int R = r->reach - 1;
    size_t cost = 0;
    for (int e = 0; e < R && i1 + e < r->n; e++)
        cost += (size_t)(r->pstart[i1 + e + 1] - r->pstart[i1 + e]) * (size_t)(R - e);
    return cost;
}

static uint64_t hitting_set(const CMask *m, size_t k, int d) {
    if (k > HIT_SCAN) return 0;
    unsigned char open[HIT_SCAN];
    memset(open, 1, k);
    size_t rest = k;
    uint64_t hit = 0;
    for (int nhit = 0; rest; nhit++) {
        int cnt[64] = {0}, best = -1;
        for (size_t q = 0; q < k; q++) {
            if (!open[q]) continue;
            for (uint64_t b = m[q].m & ~(1ULL << d); b; b &= b - 1) cnt[__builtin_ctzll(b)]++;
        }
        for (int b = 0; b < 64; b++)
            if (cnt[b] && (best < 0 || cnt[b] > cnt[best])) best = b;
        if (best < 0 || nhit == HIT_MAX) return 0;
        hit |= 1ULL << best;
        for (size_t q = 0; q < k; q++)
            if (open[q] && (m[q].m >> best & 1)) { open[q] = 0; rest--; }
    }
    return hit;
}

/* the cover lists of the window before cell i1 into r->cover; -1 no memory */
static int cover_build(Run *r, int i1) {
    Cover *cv = &r->cover;
    int R = r->reach - 1;
    uint64_t wmask = R >= 64 ? ~0ULL : (1ULL << R) - 1;
    size_t n = 0;
    cv->nd = 0;
    cv->last = -1;
    cv->start[0] = 0;
    memset(cv->kof, -1, sizeof cv->kof);
    for (int d = 0; d < R && i1 + d < r->n; d++) {
        size_t first = n;
        int trivial = 0;
        for (int e = 0; e <= d && !trivial; e++) {
            int a = i1 + e;
            for (int64_t p = r->pstart[a]; p < r->pstart[a + 1]; p++) {
                uint64_t m = r->mask[p];
                if (!((m >> (d - e)) & 1)) continue;
                uint64_t mm = (m << e) & wmask;
                if (mm == (1ULL << d) && !r->fm[p]) { trivial = 1; break; }
                if (n == cv->cap) {
                    size_t cap = cv->cap ? 2 * cv->cap : 4096;
                    CMask *nm = realloc(cv->m, cap * sizeof *nm);
                    if (!nm) return -1;
                    cv->m = nm;
                    cv->cap = cap;
                }
                cv->m[n].m = mm;
                cv->m[n].fm = r->fm[p];
                cv->m[n].lim = r->lim[p];
                n++;
            }
        }
        if (trivial) { n = first; continue; }
        /* fewest cells first; a mask holding another of the same type (or
         * of an untracked one) is dropped (the other serves whenever it does) */
        if (n - first > 1) qsort(cv->m + first, n - first, sizeof *cv->m, popcmp);   /* (cv->m may still be NULL) */
        size_t u = first;
        for (size_t k = first; k < n; k++) {
            CMask x = cv->m[k];
            size_t j = first;
            while (j < u && !((cv->m[j].m & x.m) == cv->m[j].m &&
                              (!cv->m[j].fm || (cv->m[j].fm == x.fm && cv->m[j].lim >= x.lim))))
                j++;
            if (j == u) cv->m[u++] = x;
        }
        n = u;
        cv->hit[cv->nd] = hitting_set(cv->m + first, n - first, d);
        if (d == R - 1) cv->last = cv->nd;
        cv->kof[d] = (signed char)cv->nd;
        cv->ds[cv->nd++] = d;
        cv->start[cv->nd] = n;
    }
    return 0;
}

/* whether the free cell of list k can still be covered in the state (f, c):
 * by a placement missing the covered cells whose type has copies left */
static inline int cell_alive(const Cover *cv, int k, uint64_t f, uint64_t c) {
    uint64_t h = cv->hit[k];
    if (h && (f & h) == h) return 0;
    const CMask *m = cv->m + cv->start[k], *end = cv->m + cv->start[k + 1];
    for (; m < end; m++)
        if (!(f & m->m) && (!m->fm || (c & m->fm) <= m->lim)) return 1;
    return 0;
}

/* Pruning pays where the tables are large against the lists' cost; where
 * under 1/PRUNE_POOR of a step's checked successors are dead it rests
 * PRUNE_REST steps. */
#define PRUNE_COST_PER_STATE 2
#define PRUNE_POOR 32
#define PRUNE_REST 8

/* before step i (from a table of `states` states): whether its successors
 * are checked (r->prune_on), the lists built if so; -1 no memory */
static int prune_prepare(Run *r, int i, size_t states) {
    r->prune_on = 0;
    r->cur_i = i;
    r->checked = r->dropped = 0;
    if (r->reach < 2 || i + 1 >= r->n || !states) return 0;
    if (r->prune_skip > 0) { r->prune_skip--; return 0; }
    if (cover_cost(r, i + 1) > PRUNE_COST_PER_STATE * states) return 0;
    if (cover_build(r, i + 1) < 0) return -1;
    Cover *cv = &r->cover;
    r->prune_on = cv->nd > 0;
    /* a placement can wall in the cells whose hitting set it touches (and
     * those without one): only they are checked in its successors */
    int64_t p0 = r->pstart[i], np = r->pstart[i + 1] - p0;
    if ((size_t)np > cv->aff_cap) {
        uint64_t *a = realloc(cv->aff, (size_t)np * sizeof *a);
        if (!a) return -1;
        cv->aff = a;
        cv->aff_cap = (size_t)np;
    }
    for (int64_t q = 0; q < np; q++) {
        uint64_t mc = r->mask[p0 + q] >> 1, a = 0;
        for (int k = 0; k < cv->nd; k++)
            if (!cv->hit[k] || (cv->hit[k] & mc)) a |= 1ULL << cv->ds[k];
        cv->aff[q] = a;
    }
    return 0;
}

static void prune_finish(Run *r) {
    if (r->prune_on && r->dropped * PRUNE_POOR < r->checked) r->prune_skip = PRUNE_REST;
}

/* whether the successor f made by a placement is dead */
static inline int placed_dead(Run *r, uint64_t f, uint64_t c, int64_t q) {
    if (!r->prune_on) return 0;
    r->checked++;
    const Cover *cv = &r->cover;
    for (uint64_t b = cv->aff[q] & ~f; b; b &= b - 1) {
        if (!cell_alive(cv, cv->kof[__builtin_ctzll(b)], f, c)) {
            r->dropped++;
            return 1;
        }
    }
    return 0;
}

/* whether the successor f made by shifting on is dead (only its new cell can be) */
static inline int shifted_dead(const Run *r, uint64_t f, uint64_t c) {
    return r->prune_on && r->cover.last >= 0 && !cell_alive(&r->cover, r->cover.last, f, c);
}

/* A state must cover its first cell with a placement anchored there; most
 * placements meet a covered cell among the next few, so they are listed by
 * those cells: for each pattern x of the cells 1 .. low_bits after the
 * anchor, the placements (offsets from the anchor's first) missing all of x's
 * cells. A step then looks only at the placements its state's pattern lets
 * through. */
#define LOW_BITS 10
#define FITS_MIN_PLACEMENTS 8

/* the fit lists of the placements anchored at i (r->low_bits 0: none, look at them all); -1 no memory */
static int fits_prepare(Run *r, int i, size_t states) {
    int64_t p0 = r->pstart[i], np = r->pstart[i + 1] - p0;
    r->low_bits = 0;
    if (np < FITS_MIN_PLACEMENTS || np > 65535) return 0;
    int B = r->reach - 1 < LOW_BITS ? r->reach - 1 : LOW_BITS;
    while (B > 0 && ((size_t)16 << B) > states) B--;   /* the lists cost far less than the states */
    if (B < 1) return 0;
    size_t nx = (size_t)1 << B;
    uint32_t *fs = realloc(r->fstart, (nx + 1) * sizeof *fs);
    if (!fs) return -1;
    r->fstart = fs;
    size_t total = 0;
    for (size_t x = 0; x < nx; x++) {
        fs[x] = (uint32_t)total;
        for (int64_t q = 0; q < np; q++)
            if (!(((r->mask[p0 + q] >> 1) & (nx - 1)) & x)) total++;
    }
    fs[nx] = (uint32_t)total;
    if (total > r->fits_cap) {
        uint16_t *f = realloc(r->fits, total * sizeof *f);
        if (!f) return -1;
        r->fits = f;
        r->fits_cap = total;
    }
    size_t k = 0;
    for (size_t x = 0; x < nx; x++)
        for (int64_t q = 0; q < np; q++)
            if (!(((r->mask[p0 + q] >> 1) & (nx - 1)) & x)) r->fits[k++] = (uint16_t)q;
    r->low_bits = B;
    return 0;
}

/* one cell's step from old into t (cleared here): the successors in shard
 * `shard` of `nshards` (1 or 2: the top bit of their hash); 0 ok, -1 abort
 * (status/oom set) */
static int step(Run *r, int i, const Table *old, Table *t, int shard, int nshards) {
    int L = r->L;
    size_t w = (size_t)(2 + L), other = bytes_for(old->cap, 0, L);
    /* room for the states the last step's growth promises, at most 70% full */
    double grow = r->last_growth < 1.0 ? 1.0 : r->last_growth > 4.0 ? 4.0 : r->last_growth;
    size_t want = (size_t)((1.25 * grow * (double)old->n / nshards + 1024) * OPEN_LOAD_DEN / OPEN_LOAD_NUM);
    size_t nslot = 1024;
    while (nslot < want) nslot *= 2;
    while (nslot > 1024 && bytes_for(nslot, 0, L) + other > r->table_bytes) nslot /= 2;
    if (open_reset(r, t, nslot, other) < 0) return -1;
    int64_t p0 = r->pstart[i], p1 = r->pstart[i + 1];
    Ring q;
    q.head = q.n = 0;
    for (size_t k = 0; k < old->n; k++) {
        if (!(k & 8191) && k && poll_abort(r)) return -1;
        const uint64_t *e = old->e + k * w;
        uint64_t f = e[0], c = e[1];
        const uint64_t *v = e + 2;
        if (f & 1) {
            if (nshards > 1 && (int)(hash64(f >> 1, c) >> 63) != shard) continue;
            if (shifted_dead(r, f >> 1, c)) continue;
            if (ring_push(r, t, other, &q, f >> 1, c, v) < 0) return -1;
            continue;
        }
        const uint16_t *fit = NULL, *fit_end = NULL;
        if (r->low_bits) {
            size_t x = (size_t)(f >> 1) & (((size_t)1 << r->low_bits) - 1);
            fit = r->fits + r->fstart[x];
            fit_end = r->fits + r->fstart[x + 1];
        }
        for (int64_t p = p0; fit ? fit < fit_end : p < p1; p++) {
            if (fit) p = p0 + *fit++;
            uint64_t m = r->mask[p];
            if (f & m) continue;
            uint64_t fm = r->fm[p];
            if (fm && (c & fm) > r->lim[p]) continue;
            uint64_t nf = (f | m) >> 1;
            if (nshards > 1 && (int)(hash64(nf, c + r->add[p]) >> 63) != shard) continue;
            if (placed_dead(r, nf, c + r->add[p], p - p0)) continue;
            if (ring_push(r, t, other, &q, nf, c + r->add[p], v) < 0) return -1;
        }
    }
    if (ring_flush(r, t, other, &q) < 0 || open_compact(r, t) < 0) return -1;
    /* drop the states short of a type whose last anchor this was */
    for (int64_t q2 = r->estart[i]; q2 < r->estart[i + 1]; q2++) {
        uint64_t fm = r->efm[q2], full = r->efull[q2];
        size_t keep = 0;
        for (size_t k = 0; k < t->n; k++) {
            const uint64_t *e = t->e + k * w;
            if ((e[1] & fm) != full) continue;
            if (keep != k) memcpy(t->e + keep * w, e, w * 8);
            keep++;
        }
        t->n = keep;
    }
    if (t->n > r->peak) r->peak = t->n;
    return 0;
}

/* Helpers of the two-thread steps (hash, merge, dense): each thread runs on
 * its own copy of the Run (its counters, status and flags), folded back
 * after the join. */
static Run thread_run(const Run *r, size_t table_bytes) {
    Run c = *r;
    c.table_bytes = table_bytes;
    c.checked = c.dropped = 0;
    c.overflow = 0;
    c.peak = 0;
    return c;
}

/* job(a1) in a second thread, job(a0) in this one (both here if no thread starts) */
static void run_pair(void *(*job)(void *), void *a0, void *a1) {
    pthread_t th;
    int started = pthread_create(&th, NULL, job, a1) == 0;
    job(a0);
    if (started) pthread_join(th, NULL);
    else job(a1);
}

static void fold_run(Run *r, const Run *c) {
    if (!r->status) r->status = c->status;
    r->oom |= c->oom;
    r->overflow |= c->overflow;
    r->checked += c->checked;
    r->dropped += c->dropped;
}

/* the second thread's table laid after the first's (ob: the old table's bytes) */
static int append_shard(Run *r, Table *t, const Table *aux, size_t ob) {
    size_t w = (size_t)(2 + r->L), n = t->n + aux->n;
    if (bytes_for(n + aux->cap, 0, r->L) + ob > r->table_bytes) { r->status = 5; return -1; }
    if (entries_reserve(t, n, r->L) < 0) { r->oom = 1; return -1; }
    memcpy(t->e + t->n * w, aux->e, aux->n * w * 8);
    t->n = n;
    return 0;
}

/* Two threads: each scans the whole old table and keeps the successors of
 * its shard (half the hash space) in its own table, so no two threads ever
 * write the same state; the shards are then laid end to end. Each state is
 * summed in one shard, in the order of the old table, so the values are the
 * same whatever the thread count (the order of the states is not). The
 * successors are made twice (one pass per thread), the inserts (the cache
 * misses) once. Each shard may use half the room the old table leaves. */
#define PAR_MIN_STATES 8192

typedef struct {
    Run r;             /* the thread's own copy (its counters and status) */
    int i, shard;
    const Table *old;
    Table *t;
    int rc;
} Job;

static void *job_main(void *arg) {
    Job *j = arg;
    j->rc = step(&j->r, j->i, j->old, j->t, j->shard, 2);
    return NULL;
}

static int step_par(Run *r, int i, const Table *old, Table *t, Table *aux) {
    if (r->threads < 2 || old->n < PAR_MIN_STATES) {
        t->sbits = 0;
        return step(r, i, old, t, 0, 1);
    }
    size_t ob = bytes_for(old->cap, 0, r->L);
    size_t room = r->table_bytes > ob ? (r->table_bytes - ob) / 2 : 0;
    Job jobs[2];
    Table *ts[2] = {t, aux};
    for (int k = 0; k < 2; k++) {
        jobs[k].r = thread_run(r, ob + room);
        jobs[k].i = i;
        jobs[k].shard = k;
        jobs[k].old = old;
        jobs[k].t = ts[k];
        ts[k]->sbits = 1;
    }
    run_pair(job_main, &jobs[0], &jobs[1]);
    for (int k = 0; k < 2; k++) fold_run(r, &jobs[k].r);
    if (jobs[0].rc < 0 || jobs[1].rc < 0) return -1;
    if (append_shard(r, t, aux, ob) < 0) return -1;
    if (t->n > r->peak) r->peak = t->n;
    return 0;
}

/* The merge step: the old entries are sorted by (copies, frontier), and so
 * is each stream of their successors (the shifted states; for each
 * placement m, the states it fits: (c + add, (f | m) >> 1) grows with (c, f)).
 * The new table is the k-way merge of the streams, equal keys summed: no
 * hashing, every access sequential. */
typedef struct {
    uint64_t c, f;     /* the head's key */
    size_t pos;        /* the next old entry to look at */
    size_t end;        /* past the last old entry of this stream's range */
    int64_t p;         /* the placement (-1: the shift stream) */
} Head;

static inline int head_less(const Head *a, const Head *b) {
    return a->c < b->c || (a->c == b->c && a->f < b->f);
}

/* move h to its stream's next state at or after h->pos; 0 when the stream is done */
static inline int head_next(Run *r, const Table *old, Head *h, int L) {
    size_t w = (size_t)(2 + L);
    if (h->p < 0) {
        for (; h->pos < h->end; h->pos++) {
            const uint64_t *e = old->e + h->pos * w;
            if ((e[0] & 1) && !shifted_dead(r, e[0] >> 1, e[1])) { h->c = e[1]; h->f = e[0] >> 1; return 1; }
        }
        return 0;
    }
    uint64_t m = r->mask[h->p], fm = r->fm[h->p], lim = r->lim[h->p], add = r->add[h->p];
    for (; h->pos < h->end; h->pos++) {
        const uint64_t *e = old->e + h->pos * w;
        uint64_t f = e[0];
        if ((f & m) || (f & 1)) continue;   /* overlap, or the cell is covered */
        if (fm && (e[1] & fm) > lim) continue;
        if (placed_dead(r, (f | m) >> 1, e[1] + add, h->p - r->pstart[r->cur_i])) continue;
        h->c = e[1] + add;
        h->f = (f | m) >> 1;
        return 1;
    }
    return 0;
}

static inline void sift_down(Head *hp, int k, int i) {
    for (;;) {
        int l = 2 * i + 1, best = i;
        if (l < k && head_less(&hp[l], &hp[best])) best = l;
        if (l + 1 < k && head_less(&hp[l + 1], &hp[best])) best = l + 1;
        if (best == i) return;
        Head t = hp[i]; hp[i] = hp[best]; hp[best] = t;
        i = best;
    }
}

/* the merge step scans the old table once per stream: past this many
 * streams (placements an anchor + 1) the hash step is faster (measured:
 * 20x20 dominoes, 3 streams, 2-3x faster by merge; pentominoes, 64 streams,
 * 2x slower) */
#define MERGE_MAX_STREAMS 12

static int entry_cmp(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The k-way merge of the streams over the old entries from[s] .. to[s] - 1
 * (stream 0 the shift, stream s > 0 the placement pstart[i] + s - 1) into
 * t, equal keys summed; t may grow while its bytes and `other` stay within
 * r->table_bytes. */
static int merge_range(Run *r, int i, const Table *old, Table *t, Head *hp, const size_t *from, const size_t *to,
                       size_t other) {
    int L = r->L;
    size_t w = (size_t)(2 + L);
    t->n = 0;
    int64_t p0 = r->pstart[i], p1 = r->pstart[i + 1];
    int k = 0;
    for (int64_t p = p0 - 1; p < p1; p++) {
        Head h = {0, 0, from[p - p0 + 1], to[p - p0 + 1], p < p0 ? -1 : p};
        if (head_next(r, old, &h, L)) hp[k++] = h;
    }
    for (int j = k / 2 - 1; j >= 0; j--) sift_down(hp, k, j);
    size_t polled = 0;
    while (k) {
        Head *h = &hp[0];
        const uint64_t *src = old->e + h->pos * w + 2;
        uint64_t *last = t->n ? t->e + (t->n - 1) * w : NULL;
        if (last && last[0] == h->f && last[1] == h->c) {
            if (limbs_add(last + 2, src, L)) r->overflow = 1;
        } else {
            if (t->n + 1 > t->cap) {
                size_t want = t->n + 1, cap = t->cap + t->cap / 2 + 1024;
                if (bytes_for(cap, 0, L) + other > r->table_bytes) {
                    cap = want + want / 16;
                    if (bytes_for(cap, 0, L) + other > r->table_bytes) { r->status = 5; return -1; }
                }
                if (entries_reserve(t, cap, L) < 0) { r->oom = 1; return -1; }
            }
            uint64_t *e = t->e + t->n++ * w;
            e[0] = h->f;
            e[1] = h->c;
            memcpy(e + 2, src, (size_t)L * 8);
        }
        if (!(++polled & 8191) && poll_abort(r)) return -1;
        h->pos++;
        if (!head_next(r, old, h, L)) hp[0] = hp[--k];
        if (k) sift_down(hp, k, 0);
    }
    return 0;
}

/* The first old entry whose successor in stream p (-1: the shift) would have
 * a key at or past (kc, kf). A successor's key, (c, f >> 1) for the shift and
 * (c + add, (f | m) >> 1) = (c + add, (f + m) >> 1) for a placement that
 * fits, grows with the entry's (c, f); computed as the second form for every
 * entry (in 128 bits: no wrap), it grows with the position whether the entry
 * fits or not, so the position is found by bisection. */
static size_t merge_split(const Run *r, const Table *old, int64_t p, uint64_t kc, uint64_t kf) {
    size_t w = (size_t)(2 + r->L), lo = 0, hi = old->n;
    unsigned __int128 m = p < 0 ? 0 : r->mask[p], add = p < 0 ? 0 : r->add[p];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const uint64_t *e = old->e + mid * w;
        unsigned __int128 c = (unsigned __int128)e[1] + add, f = ((unsigned __int128)e[0] + m) >> 1;
        if (c > kc || (c == kc && f >= kf)) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Two threads on big merge steps: a pivot key splits every stream at the first entry whose successor reaches
 * it; thread 0 merges the keys below the pivot into t, thread 1 the rest into
 * aux, and aux is laid after t. The key ranges are disjoint, so each state
 * is summed by one thread from the same successors as by one thread alone:
 * the same values, in the same order. */
#define MERGE_PAR_MIN 65536

typedef struct {
    Run r;
    int i;
    const Table *old;
    Table *t;
    Head *hp;
    const size_t *from, *to;
    size_t other;
    int rc;
} MergeJob;

static void *merge_job_main(void *arg) {
    MergeJob *j = arg;
    j->rc = merge_range(&j->r, j->i, j->old, j->t, j->hp, j->from, j->to, j->other);
    return NULL;
}

static int merge_step(Run *r, int i, const Table *old, Table *t, Table *aux, Head *hp) {
    int64_t p0 = r->pstart[i], p1 = r->pstart[i + 1];
    int ns = (int)(p1 - p0 + 1);
    size_t from[MERGE_MAX_STREAMS], mid[MERGE_MAX_STREAMS], to[MERGE_MAX_STREAMS];
    size_t ob = bytes_for(old->cap, 0, r->L);
    for (int s = 0; s < ns; s++) { from[s] = 0; to[s] = old->n; }
    if (r->threads < 2 || old->n < MERGE_PAR_MIN) {
        if (merge_range(r, i, old, t, hp, from, to, ob) < 0) return -1;
    } else {
        /* the pivot: the smallest key that leaves half of the entries the
         * streams scan to thread 0 (bisection over the 128-bit keys) */
        unsigned __int128 lo = 0, hi = ~(unsigned __int128)0;
        size_t half = (size_t)ns * old->n / 2;
        while (lo < hi) {
            unsigned __int128 k = lo + (hi - lo) / 2;
            size_t below = 0;
            for (int s = 0; s < ns; s++)
                below += merge_split(r, old, s ? p0 + s - 1 : -1, (uint64_t)(k >> 64), (uint64_t)k);
            if (below >= half) hi = k;
            else lo = k + 1;
        }
        for (int s = 0; s < ns; s++) mid[s] = merge_split(r, old, s ? p0 + s - 1 : -1, (uint64_t)(lo >> 64), (uint64_t)lo);
        size_t room = r->table_bytes > ob ? (r->table_bytes - ob) / 2 : 0;
        MergeJob jobs[2];
        for (int k = 0; k < 2; k++) {
            jobs[k].r = thread_run(r, ob + room);
            jobs[k].i = i;
            jobs[k].old = old;
            jobs[k].t = k ? aux : t;
            jobs[k].hp = hp + k * MERGE_MAX_STREAMS;
            jobs[k].from = k ? mid : from;
            jobs[k].to = k ? to : mid;
            jobs[k].other = ob;
        }
        run_pair(merge_job_main, &jobs[0], &jobs[1]);
        for (int k = 0; k < 2; k++) fold_run(r, &jobs[k].r);
        if (jobs[0].rc < 0 || jobs[1].rc < 0) return -1;
        if (append_shard(r, t, aux, ob) < 0) return -1;
    }
    /* drop the states short of a type whose last anchor this was (order kept) */
    size_t w = (size_t)(2 + r->L);
    for (int64_t q = r->estart[i]; q < r->estart[i + 1]; q++) {
        uint64_t fm = r->efm[q], full = r->efull[q];
        size_t keep = 0;
        for (size_t e = 0; e < t->n; e++) {
            const uint64_t *x = t->e + e * w;
            if ((x[1] & fm) != full) continue;
            if (keep != e) memcpy(t->e + keep * w, x, w * 8);
            keep++;
        }
        t->n = keep;
    }
    if (t->n > r->peak) r->peak = t->n;
    return 0;
}

/* Dense mode (no tracked copies, reach - 1 <= DENSE_BITS): once the table
 * holds at least 1/DENSE_FILL of the 2^(reach-1) frontiers, the states live
 * in a plain array indexed by the frontier, and each step is a pull:
 *   new[j] = old[2j + 1] + sum over placements m with (m >> 1) inside j of old[2 (j ^ (m >> 1))]
 * (no hashing; every new value is written once). */
#define DENSE_BITS 24
#define DENSE_FILL 2
#define MAXL 256

/* The pull, with the limb count L a constant in the specialised copies
 * (the limb loops unrolled: the 20x20 mix runs with L = 1..6). */
#define DENSE_BODY                                                                        \
    int64_t p0 = r->pstart[i], p1 = r->pstart[i + 1];                                     \
    uint64_t mps[512];                                                                    \
    int np = 0;                                                                           \
    for (int64_t p = p0; p < p1 && np < 512; p++) mps[np++] = r->mask[p] >> 1;            \
    if (p1 - p0 > 512) return dense_step_any(r, i, old, nw, size, lo, hi, L);             \
    uint64_t acc[MAXL];                                                                   \
    unsigned char over = 0;                                                               \
    for (size_t j = lo; j < hi; j++) {                                                    \
        if (!(j & 65535) && j && poll_abort(r)) return -1;                                \
        if (2 * j + 1 < size) {                                                           \
            const uint64_t *v = old + (2 * j + 1) * (size_t)L;                           \
            for (int l = 0; l < L; l++) acc[l] = v[l];                                   \
        } else {                                                                          \
            for (int l = 0; l < L; l++) acc[l] = 0;                                      \
        }                                                                                 \
        for (int q = 0; q < np; q++) {                                                    \
            uint64_t mp = mps[q];                                                         \
            if ((j & mp) != mp) continue;                                                 \
            size_t src = j ^ mp;                                                          \
            if (2 * src >= size) continue;                                                \
            const uint64_t *v = old + 2 * src * (size_t)L;                                \
            over |= limbs_add(acc, v, L);                                                 \
        }                                                                                 \
        uint64_t *d = nw + j * (size_t)L;                                                 \
        for (int l = 0; l < L; l++) d[l] = acc[l];                                        \
    }                                                                                     \
    if (over) r->overflow = 1;                                                            \
    return 0;

static int dense_step_any(Run *r, int i, const uint64_t *old, uint64_t *nw, size_t size, size_t lo, size_t hi,
                          int L) {
    int64_t p0 = r->pstart[i], p1 = r->pstart[i + 1];
    uint64_t acc[MAXL];
    for (size_t j = lo; j < hi; j++) {
        if (!(j & 65535) && j && poll_abort(r)) return -1;
        if (2 * j + 1 < size) memcpy(acc, old + (2 * j + 1) * (size_t)L, (size_t)L * 8);
        else memset(acc, 0, (size_t)L * 8);
        for (int64_t p = p0; p < p1; p++) {
            uint64_t mp = r->mask[p] >> 1;
            if ((j & mp) != mp) continue;
            size_t src = j ^ mp;
            if (2 * src >= size) continue;
            const uint64_t *v = old + 2 * src * (size_t)L;
            if (limbs_add(acc, v, L)) r->overflow = 1;
        }
        memcpy(nw + j * (size_t)L, acc, (size_t)L * 8);
    }
    return 0;
}

#define DENSE_FIXED(N) \
    static int dense_step_##N(Run *r, int i, const uint64_t *old, uint64_t *nw, size_t size, size_t lo, \
                              size_t hi) {                                                        \
        const int L = N;                                                                        \
        DENSE_BODY                                                                              \
    }
DENSE_FIXED(1)
DENSE_FIXED(2)
DENSE_FIXED(3)
DENSE_FIXED(4)
DENSE_FIXED(5)
DENSE_FIXED(6)
DENSE_FIXED(7)
DENSE_FIXED(8)

/* the pull of new[lo .. hi) */
static int dense_range(Run *r, int i, const uint64_t *old, uint64_t *nw, size_t size, size_t lo, size_t hi) {
    switch (r->L) {
    case 1: return dense_step_1(r, i, old, nw, size, lo, hi);
    case 2: return dense_step_2(r, i, old, nw, size, lo, hi);
    case 3: return dense_step_3(r, i, old, nw, size, lo, hi);
    case 4: return dense_step_4(r, i, old, nw, size, lo, hi);
    case 5: return dense_step_5(r, i, old, nw, size, lo, hi);
    case 6: return dense_step_6(r, i, old, nw, size, lo, hi);
    case 7: return dense_step_7(r, i, old, nw, size, lo, hi);
    case 8: return dense_step_8(r, i, old, nw, size, lo, hi);
    default: return dense_step_any(r, i, old, nw, size, lo, hi, r->L);
    }
}

/* Two threads on big dense arrays: each new[j] is read from the old array
 * only, so the halves of j are independent (the values are the same
 * whatever the thread count). Each thread keeps its own copy of the run's
 * status and overflow flag. */
#define DENSE_PAR_MIN 65536

typedef struct {
    Run r;
    int i;
    const uint64_t *old;
    uint64_t *nw;
    size_t size, lo, hi;
    int rc;
} DenseJob;

static void *dense_job_main(void *arg) {
    DenseJob *j = arg;
    j->rc = dense_range(&j->r, j->i, j->old, j->nw, j->size, j->lo, j->hi);
    return NULL;
}

static int dense_step(Run *r, int i, const uint64_t *old, uint64_t *nw, size_t size) {
    if (r->threads < 2 || size < DENSE_PAR_MIN) return dense_range(r, i, old, nw, size, 0, size);
    DenseJob jobs[2];
    for (int k = 0; k < 2; k++) {
        jobs[k].r = thread_run(r, r->table_bytes);
        jobs[k].i = i;
        jobs[k].old = old;
        jobs[k].nw = nw;
        jobs[k].size = size;
        jobs[k].lo = k ? size / 2 : 0;
        jobs[k].hi = k ? size : size / 2;
    }
    run_pair(dense_job_main, &jobs[0], &jobs[1]);
    for (int k = 0; k < 2; k++) fold_run(r, &jobs[k].r);
    return jobs[0].rc < 0 || jobs[1].rc < 0 ? -1 : 0;
}

/* a dense array of size frontiers widened from L to L + 1 limbs (realloc'd); NULL no memory */
static uint64_t *dense_widen(uint64_t *a, size_t size, int L) {
    uint64_t *b = realloc(a, size * (size_t)(L + 1) * 8);
    if (!b) return NULL;
    for (size_t k = size; k-- > 0;) {
        memmove(b + k * (size_t)(L + 1), b + k * (size_t)L, (size_t)L * 8);
        b[k * (size_t)(L + 1) + L] = 0;
    }
    return b;
}

static int get_buf(PyObject *o, Py_buffer *view, const char *what) {
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (view->itemsize != 8) {
        PyBuffer_Release(view);
        view->obj = NULL;
        PyErr_Format(PyExc_TypeError, "%s must be an array of 8-byte ints ('q' or 'Q')", what);
        return -1;
    }
    return 0;
}

static PyObject *count(PyObject *self, PyObject *args) {
    (void)self;
    int n, reach;
    PyObject *po[10];
    PyObject *stop_o, *init_o = Py_None, *snaps_o = Py_None;
    int threads = 0;
    long long table_bytes;
    double time_limit;
    if (!PyArg_ParseTuple(args, "iiOOOOOOOOOOLdO|OOi", &n, &reach, &po[0], &po[1], &po[2], &po[3], &po[4], &po[5],
                          &po[6], &po[7], &po[8], &po[9], &table_bytes, &time_limit, &stop_o, &init_o, &snaps_o,
                          &threads))
        return NULL;
    /* init: (first cell, limbs, entries as bytes) to start from a snapshot;
     * snaps: cells before which the table is handed back as such a triple */
    int i0 = 0, init_L = 1;
    const char *init_buf = NULL;
    Py_ssize_t init_len = 0;
    if (init_o != Py_None && !PyArg_ParseTuple(init_o, "iiy#", &i0, &init_L, &init_buf, &init_len))
        return NULL;
    if (i0 < 0 || i0 > n || init_L < 1 || init_L > 1000 || init_len % (8 * (2 + init_L))) {
        PyErr_SetString(PyExc_ValueError, "init must be (first cell, limbs, whole entries)");
        return NULL;
    }
    int nsnap = 0;
    int *snap_at = NULL;
    uint64_t **snap_e = NULL;
    size_t *snap_n = NULL;
    int *snap_L = NULL;
    if (snaps_o != Py_None) {
        PyObject *sq = PySequence_Fast(snaps_o, "snaps must be a sequence of cells");
        if (!sq) return NULL;
        nsnap = (int)PySequence_Fast_GET_SIZE(sq);
        snap_at = calloc((size_t)nsnap + 1, sizeof *snap_at);
        snap_e = calloc((size_t)nsnap + 1, sizeof *snap_e);
        snap_n = calloc((size_t)nsnap + 1, sizeof *snap_n);
        snap_L = calloc((size_t)nsnap + 1, sizeof *snap_L);
        if (!snap_at || !snap_e || !snap_n || !snap_L) {
            Py_DECREF(sq);
            free(snap_at); free(snap_e); free(snap_n); free(snap_L);
            return PyErr_NoMemory();
        }
        for (int k = 0; k < nsnap; k++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(sq, k));
            if (v == -1 && PyErr_Occurred()) { v = -1; PyErr_Clear(); }
            snap_at[k] = (int)(v < 0 || v > n ? -1 : v);
        }
        Py_DECREF(sq);
    }
    static const char *names[10] = {"pstart", "masks", "adds", "fmasks", "lims", "estart", "efm", "efull",
                                    "need_fm", "need_full"};
    Py_buffer b[11];
    for (int k = 0; k < 11; k++) b[k].obj = NULL;
    PyObject *result = NULL;
    Table old, cur, aux;
    memset(&old, 0, sizeof old);
    memset(&cur, 0, sizeof cur);
    memset(&aux, 0, sizeof aux);
    Run r;
    memset(&r, 0, sizeof r);
    r.deadline = now_sec() + (time_limit > 0 ? time_limit : 0);
    if (n <= 0 || reach < 1 || reach > 64) {
        PyErr_SetString(PyExc_ValueError, "need n >= 1 and 1 <= reach <= 64");
        return NULL;
    }
    for (int k = 0; k < 10; k++)
        if (get_buf(po[k], &b[k], names[k]) < 0) goto done;
    if (stop_o != Py_None) {
        if (PyObject_GetBuffer(stop_o, &b[10], PyBUF_SIMPLE) < 0) goto done;
        if (b[10].len < 1) {
            PyErr_SetString(PyExc_ValueError, "stop flag buffer is empty");
            goto done;
        }
        r.stop_flag = (volatile const unsigned char *)b[10].buf;
    }
    Py_ssize_t np = b[1].len / 8;
    if (b[0].len / 8 != n + 1 || b[5].len / 8 != n + 1 || b[2].len / 8 != np || b[3].len / 8 != np ||
        b[4].len / 8 != np || b[6].len != b[7].len || b[8].len != b[9].len) {
        PyErr_SetString(PyExc_ValueError, "table arrays differ in length");
        goto done;
    }
    r.n = n;
    r.reach = reach;
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus >= 2 ? 2 : 1;
    }
    r.threads = threads >= 2 ? 2 : 1;
    r.pstart = (const int64_t *)b[0].buf;
    r.mask = (const uint64_t *)b[1].buf;
    r.add = (const uint64_t *)b[2].buf;
    r.fm = (const uint64_t *)b[3].buf;
    r.lim = (const uint64_t *)b[4].buf;
    r.estart = (const int64_t *)b[5].buf;
    r.efm = (const uint64_t *)b[6].buf;
    r.efull = (const uint64_t *)b[7].buf;
    const uint64_t *need_fm = (const uint64_t *)b[8].buf, *need_full = (const uint64_t *)b[9].buf;
    Py_ssize_t nneed = b[8].len / 8;
    for (int a = 0; a < n; a++)
        if (r.pstart[a] < 0 || r.pstart[a] > r.pstart[a + 1] || r.pstart[a + 1] > np ||
            r.estart[a] < 0 || r.estart[a] > r.estart[a + 1] || r.estart[a + 1] > b[6].len / 8) {
            PyErr_SetString(PyExc_ValueError, "pstart / estart must be increasing indices");
            goto done;
        }
    r.table_bytes = table_bytes > 0 ? (size_t)table_bytes : 0;
    r.L = init_buf ? init_L : 1;
    uint64_t *acc = NULL;
    int accl = 0;
    Py_BEGIN_ALLOW_THREADS
    size_t n0 = init_buf ? (size_t)init_len / (8 * (size_t)(2 + init_L)) : 1;
    if (entries_reserve(&old, n0 + 1024, r.L) < 0) {
        r.oom = 1;
    } else {
        if (init_buf) {
            memcpy(old.e, init_buf, (size_t)init_len);
        } else {
            old.e[0] = 0;
            old.e[1] = 0;
            old.e[2] = 1;
        }
        old.n = n0;
        /* dense mode: only without tracked copies (every copies word is 0) */
        int may_dense = reach - 1 <= DENSE_BITS && nneed == 0;
        for (int64_t q = 0; q < np; q++)
            if (r.fm[q]) may_dense = 0;
        size_t dsize = (size_t)1 << (reach - 1);
        uint64_t *da = NULL, *db = NULL;
        int64_t maxk = 1;
        for (int a = 0; a < n; a++)
            if (r.pstart[a + 1] - r.pstart[a] + 1 > maxk) maxk = r.pstart[a + 1] - r.pstart[a] + 1;
        Head *heads = malloc(2 * (size_t)(maxk > MERGE_MAX_STREAMS ? maxk : MERGE_MAX_STREAMS) * sizeof *heads);
        if (!heads) r.oom = 1;
        /* few placements an anchor: the merge step (each placement one more
         * stream to scan); many: the hash step */
        int use_merge = maxk <= MERGE_MAX_STREAMS;
        if (use_merge && init_buf)
            qsort(old.e, old.n, (size_t)(2 + r.L) * 8, entry_cmp);
        for (int i = i0; i <= n && !r.status && !r.oom; i++) {
            if (da) {
                /* a snapshot asked for here: the dense array's nonzero states as entries */
                int wanted = 0;
                for (int k = 0; k < nsnap; k++)
                    if (snap_at[k] == i) wanted = 1;
                if (wanted) {
                    size_t L = (size_t)r.L, cnt = 0;
                    old.n = 0;
                    for (size_t j = 0; j < dsize; j++) {
                        const uint64_t *v = da + j * L;
                        int nz = 0;
                        for (size_t l = 0; l < L; l++) nz |= v[l] != 0;
                        if (!nz) continue;
                        if (entries_reserve(&old, cnt + 1 > old.cap ? 2 * cnt + 1024 : old.cap, r.L) < 0) {
                            r.oom = 1;
                            break;
                        }
                        uint64_t *e = old.e + cnt * (L + 2);
                        e[0] = j;
                        e[1] = 0;
                        memcpy(e + 2, v, L * 8);
                        old.n = ++cnt;
                    }
                    if (r.oom) break;
                }
            }
            for (int k = 0; k < nsnap; k++)
                if (snap_at[k] == i && !snap_e[k]) {
                    size_t bytes = old.n * (size_t)(2 + r.L) * 8;
                    snap_e[k] = malloc(bytes ? bytes : 1);
                    if (!snap_e[k]) { r.oom = 1; break; }
                    memcpy(snap_e[k], old.e, bytes);
                    snap_n[k] = old.n;
                    snap_L[k] = r.L;
                }
            if (i == n || r.oom) break;
            if (!da && may_dense && old.n * DENSE_FILL >= dsize &&
                       2 * dsize * (size_t)r.L * 8 <= r.table_bytes && r.L < MAXL) {
                da = calloc(dsize * (size_t)r.L, 8);
                db = malloc(dsize * (size_t)r.L * 8);
                if (!da || !db) { r.oom = 1; break; }
                size_t w = (size_t)(2 + r.L);
                for (size_t k = 0; k < old.n; k++) {
                    const uint64_t *e = old.e + k * w;
                    memcpy(da + e[0] * (size_t)r.L, e + 2, (size_t)r.L * 8);
                }
                free(old.e); free(cur.e); free(aux.e);
                memset(&aux, 0, sizeof aux);
                memset(&old, 0, sizeof old);
                memset(&cur, 0, sizeof cur);
            }
            if (da) {
                for (;;) {
                    r.overflow = 0;
                    if (dense_step(&r, i, da, db, dsize) < 0) break;
                    if (!r.overflow) break;
                    if (r.L + 1 >= MAXL || 2 * dsize * (size_t)(r.L + 1) * 8 > r.table_bytes) {
                        r.status = 5;
                        break;
                    }
                    uint64_t *na = dense_widen(da, dsize, r.L), *nb;
                    if (!na) { r.oom = 1; break; }
                    da = na;
                    nb = realloc(db, dsize * (size_t)(r.L + 1) * 8);
                    if (!nb) { r.oom = 1; break; }
                    db = nb;
                    r.L++;
                }
                if (r.status || r.oom) break;
                uint64_t *tmp = da;
                da = db;
                db = tmp;
                if (dsize > r.peak) r.peak = dsize;
                continue;
            }
            if (prune_prepare(&r, i, old.n) < 0 || (!use_merge && fits_prepare(&r, i, old.n) < 0)) { r.oom = 1; break; }
            for (;;) {
                r.overflow = 0;
                r.checked = r.dropped = 0;
                if ((use_merge ? merge_step(&r, i, &old, &cur, &aux, heads) : step_par(&r, i, &old, &cur, &aux)) < 0) break;
                if (!r.overflow) break;
                /* a value passed L limbs: widen the old table and redo the step */
                if (widen(&old, r.L) < 0 || widen(&cur, r.L) < 0 || widen(&aux, r.L) < 0) { r.oom = 1; break; }
                r.L++;
            }
            if (r.status || r.oom) break;
            prune_finish(&r);
            r.last_growth = old.n ? (double)cur.n / (double)old.n : 1.0;
            Table tmp = old;
            old = cur;
            cur = tmp;
        }
        if (!r.status && !r.oom && da) {
            /* dense: the count is the empty frontier's (no copies to check) */
            accl = r.L;
            acc = calloc((size_t)accl, sizeof *acc);
            if (!acc) r.oom = 1;
            else memcpy(acc, da, (size_t)r.L * 8);
        } else if (!r.status && !r.oom) {
            /* the count: the sum of the states that meet use_all (L + 1 limbs: fewer than 2^64 terms) */
            accl = r.L + 1;
            acc = calloc((size_t)accl, sizeof *acc);
            if (!acc) r.oom = 1;
            size_t w = (size_t)(2 + r.L);
            for (size_t k = 0; acc && k < old.n; k++) {
                const uint64_t *e = old.e + k * w;
                int ok = e[0] == 0;
                for (Py_ssize_t q = 0; ok && q < nneed; q++)
                    if ((e[1] & need_fm[q]) != need_full[q]) ok = 0;
                if (!ok) continue;
                unsigned char carry = 0;
                for (int l = 0; l < accl; l++) {
                    u128 sum = (u128)acc[l] + (l < r.L ? e[2 + l] : 0) + carry;
                    acc[l] = (uint64_t)sum;
                    carry = (unsigned char)(sum >> 64);
                }
            }
        }
        free(da);
        free(db);
        free(heads);
    }
    Py_END_ALLOW_THREADS
    if (r.oom) {
        free(acc);
        PyErr_NoMemory();
        goto done;
    }
    {
        PyObject *bytes = acc ? PyBytes_FromStringAndSize((const char *)acc, (Py_ssize_t)accl * 8)
                              : PyBytes_FromStringAndSize("", 0);
        free(acc);
        if (!bytes) goto done;
        PyObject *snaps = PyList_New(0);
        for (int k = 0; snaps && k < nsnap; k++) {
            if (!snap_e[k]) continue;
            PyObject *item = Py_BuildValue("iiy#", snap_at[k], snap_L[k], (const char *)snap_e[k],
                                           (Py_ssize_t)(snap_n[k] * (size_t)(2 + snap_L[k]) * 8));
            if (!item || PyList_Append(snaps, item) < 0) { Py_XDECREF(item); Py_CLEAR(snaps); break; }
            Py_DECREF(item);
        }
        if (!snaps) { Py_DECREF(bytes); goto done; }
        result = Py_BuildValue("iNnN", r.status, bytes, (Py_ssize_t)r.peak, snaps);
    }
done:
    for (int k = 0; k < nsnap; k++) free(snap_e[k]);
    free(snap_at); free(snap_e); free(snap_n); free(snap_L);
    free(old.e);
    free(cur.e);
    free(aux.e);
    free(r.cover.m);
    free(r.cover.aff);
    free(r.fstart);
    free(r.fits);
    for (int k = 0; k < 11; k++)
        if (b[k].obj) PyBuffer_Release(&b[k]);
    return result;
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS,
     "count(n, reach, pstart, masks, adds, fmasks, lims, estart, efm, efull, need_fm, need_full,\n"
     "      table_bytes, time_limit, stop[, init, snaps])\n"
     " -> (status, count as little-endian bytes, peak states, snapshots)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_frontier",
                                    "Counting tilings by dynamic programming over a frontier (C twin of "
                                    "solver.puzzle.frontier.run_dp_py).",
                                    -1, methods};

PyMODINIT_FUNC PyInit__frontier(void) { return PyModule_Create(&module); }
