/* Exact-cover search for polyomino tilings ("first empty cell" bitboard DFS).
 *
 * The Python side (solver/puzzle.py) numbers the region's cells 0..n-1 in
 * scan order and builds every placement as a sorted run of cell indices;
 * placements are grouped by their anchor (lowest cell) and, inside an
 * anchor, by piece type.  The search always fills the lowest empty cell: only
 * placements anchored there can cover it, so every tiling is found exactly
 * once.  Boards are multi-word bitsets (up to 8 x 64 bits, >= 400 cells).
 *
 * search(n, ptype, pstart, pflat, counts, syms, break_type, rawmul, symmask,
 *        count_all, max_solutions, time_limit, stop, use_all, neighbours, hole_cap
 *        [, node_limit, rank, required])
 * The big tables are flat buffers of 4-byte ints (array('i')), rawmul of
 * 8-byte ints (array('q')): placement p covers the sorted cells
 * pflat[pstart[p]:pstart[p+1]] and has type ptype[p]; syms holds the
 * non-identity symmetries as n-cell permutations, one after the other.
 * rank: optional per-type sort key for the order in which types are tried
 * at each anchor (find-mode restarts shuffle it).
 * required: optional per-type 0/1 (None: every type): with use_all, only
 * the required types must be used up (the others are in unlimited supply);
 * a full board then counts as a tiling only when they are.
 * neighbours: flat, 4 per cell (-1 = none); hole_cap 0 turns the hole
 * check off (it prunes only dead branches: answers and their order are the
 * same with or without it).
 *   -> (status, raw, distinct_num, solutions, nodes)
 *
 * time_limit counts from the call: converting the tables is part of it (the
 * conversion looks at the clock every 8,192 placements, the search every 256
 * nodes).
 * status: 0 search space exhausted, 1 stopped after max_solutions (find mode),
 *         2 time limit, 3 stop token set, 4 node_limit reached.
 * raw: number of tilings (each found tiling adds rawmul[p] of its
 *      symmetry-break placement p, or 1).
 * distinct_num: sum over found tilings of |Stab(T)| * rawmul; the number of
 *      tilings up to symmetry is distinct_num / |G| (Burnside).
 *
 * stop: None, a bytearray(1) that another thread sets to 1 (read without the
 * GIL at every poll), or a callable returning true to stop (the GIL is taken
 * back to call it, at most every ~2 ms).
 *
 * The GIL is released while searching.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXWORDS 8
#define MAXCELLS (MAXWORDS * 64)
#define MAXSYMS 8

typedef struct {
    int n, nw, np, ntypes;
    int *ptype, *pw0, *pnw, *pwoff, *pcoff, *pclen, *pcells;
    uint64_t *pwords;
    int *gstart, *gtype, *glo, *ghi; /* per anchor groups */
    int *cnt;
    /* use_all: types sorted by their last anchor; a type still unused once
     * the lowest empty cell passes its last anchor can never be placed. */
    int use_all, *dtype, *dlast;
    int leaf_check;           /* some type is not required: check the required ones at a leaf */
    /* hole check: after a placement, flood-fill the empty areas next to it
     * (up to hole_cap cells); a closed area smaller than the smallest piece
     * left, or whose size no sum of the piece areas left can make (gcd test),
     * can never be filled. */
    int *nbr;                 /* n * 4 neighbour cell indices, -1 if none */
    int *bcells, *boff, *blen; /* per placement: empty-able cells next to it */
    int *tarea;
    int hole_cap;
    int *mark, stamp, *queue;
    int nsym;
    int *perm; /* nsym * n */
    int break_type;
    long long *rawmul;
    unsigned *symmask;
    /* state */
    uint64_t board[MAXWORDS + 1];
    int *stack;
    int depth;
    int *label;
    /* results */
    unsigned long long raw, distinct_num;
    int count_all;
    long long max_sol, nsol;
    int *solbuf;
    long long solcap, solused; /* ints */
    int *sollen;      /* per solution: depth */
    long long sollen_cap;
    long long nodes, node_limit;
    int abort;
    double deadline, last_poll;
    PyObject *stop;                     /* callable polled with the GIL, or NULL */
    volatile const unsigned char *stop_flag; /* or a byte another thread sets, read without the GIL */
    PyThreadState *ts;
    int oom;
} S;

static double now_sec(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void poll(S *s) {
    double t = now_sec();
    if (t >= s->deadline) {
        s->abort = 2;
        return;
    }
    if (s->stop_flag != NULL) {
        if (*s->stop_flag) s->abort = 3;
        return;
    }
    if (s->stop != NULL && t - s->last_poll >= 0.002) {
        s->last_poll = t;
        PyEval_RestoreThread(s->ts);
        PyObject *r = PyObject_CallNoArgs(s->stop);
        int set = 0;
        if (r == NULL) {
            PyErr_Clear(); /* a broken stop callable must not kill the search */
        } else {
            set = PyObject_IsTrue(r) == 1;
            Py_DECREF(r);
        }
        s->ts = PyEval_SaveThread();
        if (set) s->abort = 3;
    }
}

static int fixed_by(S *s, int g) {
    const int *perm = s->perm + (size_t)g * s->n;
    for (int k = 0; k < s->depth; k++) {
        int p = s->stack[k];
        const int *cells = s->pcells + s->pcoff[p];
        int len = s->pclen[p];
        int q = s->label[perm[cells[0]]];
        if (s->ptype[s->stack[q]] != s->ptype[p]) return 0;
        for (int i = 1; i < len; i++)
            if (s->label[perm[cells[i]]] != q) return 0;
    }
    return 1;
}

static void leaf(S *s) {
    if (s->leaf_check)
        for (int i = 0; s->dlast[i] <= s->n; i++)
            if (s->cnt[s->dtype[i]]) return;
    long long mul = 1;
    unsigned mask = (1u << s->nsym) - 1u;
    if (s->break_type >= 0) {
        for (int k = 0; k < s->depth; k++) {
            int p = s->stack[k];
            if (s->ptype[p] == s->break_type) {
                mul = s->rawmul[p];
                mask = s->symmask[p];
                break;
            }
        }
    }
    s->raw += (unsigned long long)mul;
    if (s->count_all) {
        unsigned long long stab = 1;
        if (mask) {
            for (int k = 0; k < s->depth; k++) {
                int p = s->stack[k];
                const int *cells = s->pcells + s->pcoff[p];
                for (int i = 0; i < s->pclen[p]; i++) s->label[cells[i]] = k;
            }
            for (int g = 0; g < s->nsym; g++)
                if ((mask >> g & 1u) && fixed_by(s, g)) stab++;
        }
        s->distinct_num += stab * (unsigned long long)mul;
    }
    if (s->nsol < s->max_sol) {
        long long used = s->solused;
        if (used + s->depth > s->solcap) {
            long long cap = 2 * (used + s->depth) + 64;
            int *nb = realloc(s->solbuf, (size_t)cap * sizeof(int));
            if (!nb) { s->oom = 1; s->abort = 2; return; }
            s->solbuf = nb;
            s->solcap = cap;
        }
        if (s->nsol >= s->sollen_cap) {
            long long cap = 2 * s->sollen_cap + 16;
            int *nb = realloc(s->sollen, (size_t)cap * sizeof(int));
            if (!nb) { s->oom = 1; s->abort = 2; return; }
            s->sollen = nb;
            s->sollen_cap = cap;
        }
        memcpy(s->solbuf + used, s->stack, (size_t)s->depth * sizeof(int));
        s->sollen[s->nsol++] = s->depth;
        s->solused += s->depth;
        if (!s->count_all && s->nsol >= s->max_sol) s->abort = 1;
    }
}

static int gcd_int(int a, int b) {
    while (b) { int t = a % b; a = b; b = t; }
    return a;
}

static inline int filled(const S *s, int c) { return (int)(s->board[c >> 6] >> (c & 63) & 1ULL); }

/* 1 if some closed empty area next to placement p can never be tiled */
static int dead_hole(S *s, int p) {
    const int *b = s->bcells + s->boff[p];
    int nb = s->blen[p];
    if (s->stamp >= 0x7ffffff0) { memset(s->mark, 0, (size_t)s->n * sizeof(int)); s->stamp = 1; }
    /* cells of a finished (closed) fill get `stamp`; cells of a fill cut at
     * hole_cap get `opened`, so a later fill that touches them knows it is
     * part of a big area too (else it would look like a small closed hole). */
    int stamp = (s->stamp += 2), opened = stamp + 1;
    for (int i = 0; i < nb; i++) {
        int c0 = b[i];
        if (filled(s, c0) || s->mark[c0] == stamp || s->mark[c0] == opened) continue;
        int head = 0, tail = 0, open = 0;
        s->queue[tail++] = c0;
        s->mark[c0] = stamp;
        while (head < tail && !open) {
            int c = s->queue[head++];
            const int *nb4 = s->nbr + 4 * c;
            for (int k = 0; k < 4; k++) {
                int d = nb4[k];
                if (d < 0 || filled(s, d) || s->mark[d] == stamp) continue;
                if (s->mark[d] == opened || tail >= s->hole_cap) { open = 1; break; }
                s->mark[d] = stamp;
                s->queue[tail++] = d;
            }
        }
        if (open) { /* big area: assume fine */
            for (int j = 0; j < tail; j++) s->mark[s->queue[j]] = opened;
            continue;
        }
        int g = 0, mn = 1 << 30;
        for (int t = 0; t < s->ntypes; t++)
            if (s->cnt[t] && s->tarea[t]) { /* area 0: the type has no placement */
                g = gcd_int(g, s->tarea[t]);
                if (s->tarea[t] < mn) mn = s->tarea[t];
            }
        if (g == 0 || tail < mn || tail % g) return 1;
    }
    return 0;
}

static void dfs(S *s, int pos) {
    if ((++s->nodes & 255) == 0) {
        poll(s);
        if (s->abort) return;
    }
    if (s->node_limit && s->nodes > s->node_limit) { s->abort = 4; return; }
    if (pos >= s->n) { leaf(s); return; }
    int w = pos >> 6;
    uint64_t x = ~s->board[w] & (~0ULL << (pos & 63));
    while (!x) {
        if (++w >= s->nw) { leaf(s); return; }
        x = ~s->board[w];
    }
    int a = (w << 6) + __builtin_ctzll(x);
    if (s->use_all)
        for (int i = 0; s->dlast[i] < a; i++)
            if (s->cnt[s->dtype[i]]) return;
    uint64_t *board = s->board;
    for (int g = s->gstart[a]; g < s->gstart[a + 1]; g++) {
        int t = s->gtype[g];
        if (!s->cnt[t]) continue;
        s->cnt[t]--;
        for (int p = s->glo[g]; p < s->ghi[g]; p++) {
            const uint64_t *pw = s->pwords + s->pwoff[p];
            int w0 = s->pw0[p], k = s->pnw[p], j;
            if (k == 1) {
                if (board[w0] & pw[0]) continue;
                board[w0] |= pw[0];
                s->stack[s->depth++] = p;
                if (!s->hole_cap || !dead_hole(s, p)) dfs(s, a + 1);
                s->depth--;
                board[w0] ^= pw[0];
            } else {
                for (j = 0; j < k; j++)
                    if (board[w0 + j] & pw[j]) break;
                if (j < k) continue;
                for (j = 0; j < k; j++) board[w0 + j] |= pw[j];
                s->stack[s->depth++] = p;
                if (!s->hole_cap || !dead_hole(s, p)) dfs(s, a + 1);
                s->depth--;
                for (j = 0; j < k; j++) board[w0 + j] ^= pw[j];
            }
            if (s->abort) { s->cnt[t]++; return; }
        }
        s->cnt[t]++;
    }
}

static void free_s(S *s) {
    free(s->ptype); free(s->pw0); free(s->pnw); free(s->pwoff); free(s->pcoff);
    free(s->pclen); free(s->pcells); free(s->pwords); free(s->gstart);
    free(s->gtype); free(s->glo); free(s->ghi); free(s->cnt); free(s->perm);
    free(s->rawmul); free(s->symmask); free(s->stack); free(s->label);
    free(s->solbuf); free(s->sollen); free(s->dtype); free(s->dlast);
    free(s->nbr); free(s->bcells); free(s->boff); free(s->blen); free(s->tarea);
    free(s->mark); free(s->queue);
}

static int int_item(PyObject *seq, Py_ssize_t i, long *out) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

/* A 1-d C-contiguous buffer of signed integers of the given item size
 * (array('i') for 4 bytes, array('q') for 8). */
static int get_ints(PyObject *o, Py_buffer *view, Py_ssize_t itemsize, const char *what) {
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be an array('%s') (a buffer of %d-byte ints)", what,
                     itemsize == 4 ? "i" : "q", (int)itemsize);
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    while (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') f++;
    if (view->itemsize != itemsize || view->ndim > 1 || f[1] != '\0' ||
        (f[0] != 'i' && f[0] != 'l' && f[0] != 'q')) {
        PyBuffer_Release(view);
        view->obj = NULL;
        PyErr_Format(PyExc_TypeError, "%s must be an array('%s') (a buffer of %d-byte ints)", what,
                     itemsize == 4 ? "i" : "q", (int)itemsize);
        return -1;
    }
    return 0;
}

/* How often (in placements) the table conversion looks at the clock. */
#define CONVERT_POLL 8192

static PyObject *search(PyObject *self, PyObject *args) {
    (void)self;
    int n, break_type, count_all, use_all, hole_cap;
    PyObject *ptype_o, *pstart_o, *pflat_o, *counts_o, *syms_o, *rawmul_o, *symmask_o, *stop_o, *nbr_o;
    long long max_sol, node_limit = 0;
    PyObject *rank_o = Py_None, *required_o = Py_None;
    double time_limit;
    if (!PyArg_ParseTuple(args, "iOOOOOiOOpLdOpOi|LOO", &n, &ptype_o, &pstart_o, &pflat_o, &counts_o,
                          &syms_o, &break_type, &rawmul_o, &symmask_o, &count_all,
                          &max_sol, &time_limit, &stop_o, &use_all, &nbr_o, &hole_cap,
                          &node_limit, &rank_o, &required_o))
        return NULL;
    if (n <= 0 || n > MAXCELLS) {
        PyErr_SetString(PyExc_ValueError, "region must have 1..512 cells");
        return NULL;
    }
    S s;
    memset(&s, 0, sizeof s);
    /* The clock starts now: converting big tables is part of the budget. */
    s.deadline = now_sec() + (time_limit > 0 ? time_limit : 0);
    s.n = n;
    s.nw = (n + 63) / 64;
    s.break_type = break_type;
    s.count_all = count_all;
    s.max_sol = max_sol < 0 ? 0 : max_sol;
    Py_buffer bpt, bps, bpf, bsy, brm, bsm, bnb, bstop;
    Py_buffer *bufs[] = {&bpt, &bps, &bpf, &bsy, &brm, &bsm, &bnb, &bstop};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) bufs[i]->obj = NULL;
    PyObject *ct = NULL;
    PyObject *result = NULL;
    if (stop_o != Py_None) {
        /* a writable byte buffer (bytearray(1)) is a stop flag read without
         * the GIL; anything else must be a callable */
        if (PyObject_CheckBuffer(stop_o)) {
            if (PyObject_GetBuffer(stop_o, &bstop, PyBUF_SIMPLE) < 0) goto done;
            if (bstop.len < 1) {
                PyErr_SetString(PyExc_ValueError, "stop flag buffer is empty");
                goto done;
            }
            s.stop_flag = (volatile const unsigned char *)bstop.buf;
        } else if (PyCallable_Check(stop_o)) {
            s.stop = stop_o;
        } else {
            PyErr_SetString(PyExc_TypeError, "stop must be None, a callable or a bytearray flag");
            goto done;
        }
    }
    if (get_ints(ptype_o, &bpt, 4, "ptype") < 0 || get_ints(pstart_o, &bps, 4, "pstart") < 0 ||
        get_ints(pflat_o, &bpf, 4, "pflat") < 0 || get_ints(syms_o, &bsy, 4, "syms") < 0 ||
        get_ints(rawmul_o, &brm, 8, "rawmul") < 0 || get_ints(symmask_o, &bsm, 4, "symmask") < 0 ||
        get_ints(nbr_o, &bnb, 4, "neighbours") < 0)
        goto done;
    ct = PySequence_Fast(counts_o, "counts must be a sequence");
    if (!ct) goto done;
    const int *ptype_in = (const int *)bpt.buf, *pstart_in = (const int *)bps.buf;
    const int *pflat_in = (const int *)bpf.buf, *syms_in = (const int *)bsy.buf;
    const long long *rawmul_in = (const long long *)brm.buf;
    const int *symmask_in = (const int *)bsm.buf, *nbr_in = (const int *)bnb.buf;
    Py_ssize_t np = bpt.len / 4, nflat = bpf.len / 4;

    if (bps.len / 4 != np + 1 || brm.len / 8 != np || bsm.len / 4 != np) {
        PyErr_SetString(PyExc_ValueError, "placement arrays differ in length (pstart needs one more)");
        goto done;
    }
    if (np > 0x7ffffff0 || nflat > 0x7ffffff0) {
        PyErr_SetString(PyExc_ValueError, "too many placements");
        goto done;
    }
    if ((bsy.len / 4) % n) {
        PyErr_SetString(PyExc_ValueError, "syms must hold whole permutations of the n cells");
        goto done;
    }
    s.np = (int)np;
    s.ntypes = (int)PySequence_Fast_GET_SIZE(ct);
    s.nsym = (int)((bsy.len / 4) / n);
    if (s.nsym >= MAXSYMS) {
        PyErr_SetString(PyExc_ValueError, "at most 7 non-identity symmetries");
        goto done;
    }
    size_t npz = (size_t)np + 1;
    s.ptype = calloc(npz, sizeof(int));
    s.pw0 = calloc(npz, sizeof(int));
    s.pnw = calloc(npz, sizeof(int));
    s.pwoff = calloc(npz, sizeof(int));
    s.pcoff = calloc(npz, sizeof(int));
    s.pclen = calloc(npz, sizeof(int));
    s.rawmul = calloc(npz, sizeof(long long));
    s.symmask = calloc(npz, sizeof(unsigned));
    s.gstart = calloc((size_t)n + 2, sizeof(int));
    s.gtype = calloc(npz, sizeof(int));
    s.glo = calloc(npz, sizeof(int));
    s.ghi = calloc(npz, sizeof(int));
    s.cnt = calloc((size_t)s.ntypes + 1, sizeof(int));
    s.perm = calloc((size_t)s.nsym * n + 1, sizeof(int));
    s.stack = calloc((size_t)n + 1, sizeof(int));
    s.label = calloc((size_t)n + 1, sizeof(int));
    if (!s.ptype || !s.pw0 || !s.pnw || !s.pwoff || !s.pcoff || !s.pclen || !s.rawmul ||
        !s.symmask || !s.gstart || !s.gtype || !s.glo || !s.ghi || !s.cnt || !s.perm ||
        !s.stack || !s.label) {
        PyErr_NoMemory();
        goto done;
    }
    for (int t = 0; t < s.ntypes; t++) {
        long v;
        if (int_item(ct, t, &v) < 0) goto done;
        s.cnt[t] = v < 0 ? 0 : (int)(v > n ? n : v);
    }
    for (Py_ssize_t i = 0; i < (Py_ssize_t)s.nsym * n; i++) {
        int v = syms_in[i];
        if (v < 0 || v >= n) {
            PyErr_SetString(PyExc_ValueError, "symmetry permutation out of range");
            goto done;
        }
        s.perm[i] = v;
    }
    /* first pass: sizes */
    long long totwords = 0;
    if (pstart_in[0] != 0 || pstart_in[np] != nflat) {
        PyErr_SetString(PyExc_ValueError, "pstart must run from 0 to len(pflat)");
        goto done;
    }
    for (Py_ssize_t p = 0; p < np; p++) {
        int a = pstart_in[p], b = pstart_in[p + 1];
        if (b <= a || b > nflat) {
            PyErr_SetString(PyExc_ValueError, "empty placement or pstart not increasing");
            goto done;
        }
        int first = pflat_in[a], last = pflat_in[b - 1];
        if (first < 0 || last >= n || first > last) {
            PyErr_SetString(PyExc_ValueError, "placement cells out of range or unsorted");
            goto done;
        }
        s.pcoff[p] = a;
        s.pclen[p] = b - a;
        s.pwoff[p] = (int)totwords;
        s.pw0[p] = first >> 6;
        s.pnw[p] = (last >> 6) - (first >> 6) + 1;
        totwords += s.pnw[p];
        if (!(p % CONVERT_POLL) && now_sec() >= s.deadline) { s.abort = 2; goto finish; }
    }
    s.pcells = calloc((size_t)nflat + 1, sizeof(int));
    s.pwords = calloc((size_t)totwords + 1, sizeof(uint64_t));
    if (!s.pcells || !s.pwords) { PyErr_NoMemory(); goto done; }
    int prev_anchor = -1, prev_type = -1, ng = 0;
    for (Py_ssize_t p = 0; p < np; p++) {
        int t = ptype_in[p];
        if (t < 0 || t >= s.ntypes) {
            PyErr_SetString(PyExc_ValueError, "placement type out of range");
            goto done;
        }
        s.ptype[p] = t;
        s.rawmul[p] = rawmul_in[p];
        s.symmask[p] = (unsigned)symmask_in[p] & ((1u << s.nsym) - 1u);
        const int *cells = pflat_in + s.pcoff[p];
        int prev = -1;
        for (int i = 0; i < s.pclen[p]; i++) {
            int c = cells[i];
            if (c <= prev || c >= n) {
                PyErr_SetString(PyExc_ValueError, "placement cells out of range or unsorted");
                goto done;
            }
            prev = c;
            s.pcells[s.pcoff[p] + i] = c;
            s.pwords[s.pwoff[p] + (c >> 6) - s.pw0[p]] |= 1ULL << (c & 63);
        }
        int anchor = s.pcells[s.pcoff[p]];
        if (anchor < prev_anchor) {
            PyErr_SetString(PyExc_ValueError, "placements must be sorted by anchor cell");
            goto done;
        }
        if (anchor != prev_anchor || t != prev_type) {
            s.gtype[ng] = t;
            s.glo[ng] = (int)p;
            ng++;
            for (int a = prev_anchor + 1; a <= anchor; a++) s.gstart[a] = ng - 1;
            prev_anchor = anchor;
            prev_type = t;
        }
        s.ghi[ng - 1] = (int)p + 1;
        if (!(p % CONVERT_POLL) && now_sec() >= s.deadline) { s.abort = 2; goto finish; }
    }
    for (int a = prev_anchor + 1; a <= n; a++) s.gstart[a] = ng;
    s.use_all = use_all;
    s.node_limit = node_limit < 0 ? 0 : node_limit;
    if (rank_o != Py_None) {
        /* try the types at each anchor in the order of rank[type] */
        PyObject *rk = PySequence_Fast(rank_o, "rank must be a sequence");
        if (!rk) goto done;
        if (PySequence_Fast_GET_SIZE(rk) != s.ntypes) {
            Py_DECREF(rk);
            PyErr_SetString(PyExc_ValueError, "rank needs one entry per type");
            goto done;
        }
        long *rank = calloc((size_t)s.ntypes + 1, sizeof(long));
        if (!rank) { Py_DECREF(rk); PyErr_NoMemory(); goto done; }
        for (int t = 0; t < s.ntypes; t++)
            if (int_item(rk, t, &rank[t]) < 0) { free(rank); Py_DECREF(rk); goto done; }
        Py_DECREF(rk);
        for (int a = 0; a < n; a++) /* insertion sort of the anchor's groups */
            for (int i = s.gstart[a] + 1; i < s.gstart[a + 1]; i++) {
                int gt = s.gtype[i], glo = s.glo[i], ghi = s.ghi[i], j = i;
                while (j > s.gstart[a] && rank[s.gtype[j - 1]] > rank[gt]) {
                    s.gtype[j] = s.gtype[j - 1]; s.glo[j] = s.glo[j - 1]; s.ghi[j] = s.ghi[j - 1];
                    j--;
                }
                s.gtype[j] = gt; s.glo[j] = glo; s.ghi[j] = ghi;
            }
        free(rank);
    }
    s.dtype = calloc((size_t)s.ntypes + 1, sizeof(int));
    s.dlast = calloc((size_t)s.ntypes + 1, sizeof(int));
    if (!s.dtype || !s.dlast) { PyErr_NoMemory(); goto done; }
    {
        int *last = calloc((size_t)s.ntypes + 1, sizeof(int));
        if (!last) { PyErr_NoMemory(); goto done; }
        for (int t = 0; t < s.ntypes; t++) last[t] = -1;
        for (int p = 0; p < s.np; p++) last[s.ptype[p]] = s.pcells[s.pcoff[p]];
        if (required_o != Py_None) {
            /* a type not required never ends a branch: its deadline is past the end */
            PyObject *rq = PySequence_Fast(required_o, "required must be a sequence");
            if (!rq) { free(last); goto done; }
            if (PySequence_Fast_GET_SIZE(rq) != s.ntypes) {
                Py_DECREF(rq);
                free(last);
                PyErr_SetString(PyExc_ValueError, "required needs one entry per type");
                goto done;
            }
            for (int t = 0; t < s.ntypes; t++) {
                long v;
                if (int_item(rq, t, &v) < 0) { Py_DECREF(rq); free(last); goto done; }
                if (!v) { last[t] = n + 1; s.leaf_check = use_all; }
            }
            Py_DECREF(rq);
        }
        /* insertion sort by last anchor; sentinel n+1 ends every scan */
        for (int t = 0; t < s.ntypes; t++) {
            int i = t;
            while (i > 0 && s.dlast[i - 1] > last[t]) {
                s.dlast[i] = s.dlast[i - 1];
                s.dtype[i] = s.dtype[i - 1];
                i--;
            }
            s.dlast[i] = last[t];
            s.dtype[i] = t;
        }
        s.dlast[s.ntypes] = n + 1;
        free(last);
    }
    /* hole check tables */
    s.hole_cap = hole_cap < 0 ? 0 : (hole_cap > n ? n : hole_cap);
    s.nbr = malloc((size_t)n * 4 * sizeof(int));
    s.tarea = calloc((size_t)s.ntypes + 1, sizeof(int));
    s.mark = calloc((size_t)n + 1, sizeof(int));
    s.queue = calloc((size_t)n + 1, sizeof(int));
    s.boff = calloc(npz, sizeof(int));
    s.blen = calloc(npz, sizeof(int));
    if (!s.nbr || !s.tarea || !s.mark || !s.queue || !s.boff || !s.blen) { PyErr_NoMemory(); goto done; }
    for (int p = 0; p < s.np; p++) s.tarea[s.ptype[p]] = s.pclen[p];
    if (s.hole_cap) {
        if (bnb.len / 4 != (Py_ssize_t)n * 4) {
            PyErr_SetString(PyExc_ValueError, "neighbours must hold 4 entries per cell");
            goto done;
        }
        for (int i = 0; i < 4 * n; i++) {
            int v = nbr_in[i];
            s.nbr[i] = (v < 0 || v >= n) ? -1 : v;
        }
        long long tot = 0;
        for (int p = 0; p < s.np; p++) tot += 4LL * s.pclen[p];
        s.bcells = malloc((size_t)tot * sizeof(int) + sizeof(int));
        if (!s.bcells) { PyErr_NoMemory(); goto done; }
        int off = 0;
        s.stamp = 1;
        for (int p = 0; p < s.np; p++) {
            const int *cells = s.pcells + s.pcoff[p];
            s.stamp++;
            for (int i = 0; i < s.pclen[p]; i++) s.mark[cells[i]] = s.stamp;
            s.boff[p] = off;
            for (int i = 0; i < s.pclen[p]; i++)
                for (int k = 0; k < 4; k++) {
                    int d = s.nbr[4 * cells[i] + k];
                    if (d < 0 || s.mark[d] == s.stamp) continue;
                    s.mark[d] = s.stamp;
                    s.bcells[off++] = d;
                }
            s.blen[p] = off - s.boff[p];
            if (!(p % CONVERT_POLL) && now_sec() >= s.deadline) { s.abort = 2; goto finish; }
        }
        memset(s.mark, 0, (size_t)n * sizeof(int));
        s.stamp = 1;
    }
    /* cells past n count as filled */
    for (int i = n; i < s.nw * 64; i++) s.board[i >> 6] |= 1ULL << (i & 63);

    s.last_poll = 0.0;
    if (s.stop_flag && *s.stop_flag) s.abort = 3;
    if (s.stop && !s.abort) {
        PyObject *r = PyObject_CallNoArgs(s.stop);
        if (!r) goto done;
        int set = PyObject_IsTrue(r) == 1;
        Py_DECREF(r);
        if (set) s.abort = 3;
    }
    if (!s.abort) {
        s.ts = PyEval_SaveThread();
        if (time_limit <= 0 || now_sec() >= s.deadline) s.abort = 2;
        else dfs(&s, 0);
        PyEval_RestoreThread(s.ts);
    }
finish:
    if (s.oom) { PyErr_NoMemory(); goto done; }
    {
        PyObject *sols = PyList_New((Py_ssize_t)s.nsol);
        if (!sols) goto done;
        long long off = 0;
        for (long long i = 0; i < s.nsol; i++) {
            PyObject *tup = PyTuple_New(s.sollen[i]);
            if (!tup) { Py_DECREF(sols); goto done; }
            for (int k = 0; k < s.sollen[i]; k++)
                PyTuple_SET_ITEM(tup, k, PyLong_FromLong(s.solbuf[off + k]));
            off += s.sollen[i];
            PyList_SET_ITEM(sols, (Py_ssize_t)i, tup);
        }
        int status = s.abort == 0 ? 0 : s.abort;
        result = Py_BuildValue("iKKNL", status, s.raw, s.distinct_num, sols, s.nodes);
    }
done:
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->obj) PyBuffer_Release(bufs[i]);
    Py_XDECREF(ct);
    free_s(&s);
    return result;
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS,
     "search(n, ptype, pstart, pflat, counts, syms, break_type, rawmul, symmask, count_all,\n"
     "       max_solutions, time_limit, stop, use_all, neighbours, hole_cap[, node_limit, rank, required])"
     " -> (status, raw, distinct_num, solutions, nodes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_exactcover",
    "Exact-cover tiling search (first-empty-cell bitboard DFS); see solver/puzzle.py.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__exactcover(void) { return PyModule_Create(&moduledef); }
