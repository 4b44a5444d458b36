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
 * -> (status, count as little-endian bytes, peak states)
 *   status 0 done, 2 time limit, 3 stopped, 5 table bound passed.
 *
 * A state is (frontier, copies): bit d of the frontier is the cell i + d
 * already covered; copies packs the used copies of the tracked types. The
 * table is a hash index (open addressing, linear probing, int32 slots) over
 * compact entry arrays: keys, and values as L 64-bit limbs (exact). L grows
 * by one when a step carries out of the top limb: the step is redone from
 * the old table (which a step never changes), widened.
 *
 * The GIL is released while counting.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned __int128 u128;

typedef struct {
    uint64_t *f, *c;   /* keys */
    uint64_t *v;       /* values, L limbs each */
    size_t n, cap;     /* entries used / allocated */
    int32_t *slot;     /* hash index: entry + 1, 0 empty */
    size_t nslot;      /* power of 2 */
} Table;

static double now_sec(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void table_free(Table *t) {
    free(t->f); free(t->c); free(t->v); free(t->slot);
    memset(t, 0, sizeof *t);
}

static inline size_t hash2(uint64_t f, uint64_t c) {
    uint64_t h = f * 0x9E3779B97F4A7C15ULL ^ (c + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h ^ (h >> 29));
}

/* entries room for at least want; 0 ok, -1 no memory */
static int entries_reserve(Table *t, size_t cap, int L) {
    if (cap <= t->cap) return 0;
    uint64_t *f = realloc(t->f, cap * sizeof *f);
    if (!f) return -1;
    t->f = f;
    uint64_t *c = realloc(t->c, cap * sizeof *c);
    if (!c) return -1;
    t->c = c;
    uint64_t *v = realloc(t->v, cap * (size_t)L * sizeof *v);
    if (!v) return -1;
    t->v = v;
    t->cap = cap;
    return 0;
}

static int index_rebuild(Table *t, size_t nslot) {
    int32_t *s = calloc(nslot, sizeof *s);
    if (!s) return -1;
    free(t->slot);
    t->slot = s;
    t->nslot = nslot;
    size_t m = nslot - 1;
    for (size_t e = 0; e < t->n; e++) {
        size_t h = hash2(t->f[e], t->c[e]) & m;
        while (s[h]) h = (h + 1) & m;
        s[h] = (int32_t)(e + 1);
    }
    return 0;
}

typedef struct {
    int n, L;
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

/* add the value src (L limbs) to the state (f, c) of t; -1 no memory or bound */
static inline int add_state(Run *r, Table *t, const Table *old, uint64_t f, uint64_t c, const uint64_t *src) {
    int L = r->L;
    size_t m = t->nslot - 1;
    size_t h = hash2(f, c) & m;
    int32_t e;
    while ((e = t->slot[h]) != 0) {
        size_t k = (size_t)e - 1;
        if (t->f[k] == f && t->c[k] == c) {
            uint64_t *dst = t->v + k * (size_t)L;
            unsigned char carry = 0;
            for (int l = 0; l < L; l++) {
                u128 s = (u128)dst[l] + src[l] + carry;
                dst[l] = (uint64_t)s;
                carry = (unsigned char)(s >> 64);
            }
            if (carry) r->overflow = 1;
            return 0;
        }
        h = (h + 1) & m;
    }
    /* a new state */
    if (t->n + 1 > t->cap) {
        /* grow by half; near the bound, by what fits (the bound counts allocated bytes) */
        size_t want = t->n + 1, cap = t->cap ? t->cap + t->cap / 2 : 1024;
        size_t other = bytes_for(old->cap, old->nslot, L);
        if (bytes_for(cap, t->nslot, L) + other > r->table_bytes) {
            cap = want + want / 16;
            if (bytes_for(cap, t->nslot, L) + other > r->table_bytes) { r->status = 5; return -1; }
        }
        if (entries_reserve(t, cap, L) < 0) { r->oom = 1; return -1; }
    }
    size_t k = t->n++;
    t->f[k] = f;
    t->c[k] = c;
    memcpy(t->v + k * (size_t)L, src, (size_t)L * sizeof(uint64_t));
    t->slot[h] = (int32_t)(k + 1);
    if (2 * t->n > t->nslot) {
        if (bytes_for(t->cap, t->nslot * 2, L) + bytes_for(old->cap, old->nslot, L) > r->table_bytes) {
            r->status = 5;
            return -1;
        }
        if (t->nslot * 2 > ((size_t)1 << 31)) { r->status = 5; return -1; }
        if (index_rebuild(t, t->nslot * 2) < 0) { r->oom = 1; return -1; }
    }
    return 0;
}

/* widen every value of t from L to L + 1 limbs (in place, from the end) */
static int widen(Table *t, int L) {
    uint64_t *v = realloc(t->v, (t->cap ? t->cap : 1) * (size_t)(L + 1) * sizeof *v);
    if (!v) return -1;
    t->v = v;
    for (size_t k = t->n; k-- > 0;) {
        memmove(v + k * (size_t)(L + 1), v + k * (size_t)L, (size_t)L * sizeof *v);
        v[k * (size_t)(L + 1) + L] = 0;
    }
    return 0;
}

static int poll_abort(Run *r) {
    if (r->stop_flag && *r->stop_flag) { r->status = 3; return 1; }
    if (now_sec() >= r->deadline) { r->status = 2; return 1; }
    return 0;
}

/* one cell's step from old into t (cleared here); 0 ok, -1 abort (status/oom set) */
static int step(Run *r, int i, const Table *old, Table *t) {
    t->n = 0;
    size_t want = 2 * (old->n + 1);
    size_t nslot = 1024;
    while (nslot < want) nslot *= 2;
    if (nslot > ((size_t)1 << 31)) { r->status = 5; return -1; }
    if (!t->slot || t->nslot != nslot) {
        free(t->slot);
        t->slot = calloc(nslot, sizeof *t->slot);
        if (!t->slot) { r->oom = 1; return -1; }
        t->nslot = nslot;
    } else {
        memset(t->slot, 0, nslot * sizeof *t->slot);
    }
    if (bytes_for(t->cap, t->nslot, r->L) + bytes_for(old->cap, old->nslot, r->L) > r->table_bytes) {
        r->status = 5;
        return -1;
    }
    int L = r->L;
    int64_t p0 = r->pstart[i], p1 = r->pstart[i + 1];
    for (size_t e = 0; e < old->n; e++) {
        if (!(e & 4095) && e && poll_abort(r)) return -1;
        uint64_t f = old->f[e], c = old->c[e];
        const uint64_t *v = old->v + e * (size_t)L;
        if (f & 1) {
            if (add_state(r, t, old, f >> 1, c, v) < 0) return -1;
            continue;
        }
        for (int64_t p = p0; p < p1; p++) {
            uint64_t m = r->mask[p];
            if (f & m) continue;
            uint64_t fm = r->fm[p];
            if (fm && (c & fm) > r->lim[p]) continue;
            if (add_state(r, t, old, (f | m) >> 1, c + r->add[p], v) < 0) return -1;
        }
    }
    /* drop the states short of a type whose last anchor this was */
    for (int64_t k = r->estart[i]; k < r->estart[i + 1]; k++) {
        uint64_t fm = r->efm[k], full = r->efull[k];
        size_t w = 0;
        for (size_t e = 0; e < t->n; e++) {
            if ((t->c[e] & fm) != full) continue;
            if (w != e) {
                t->f[w] = t->f[e];
                t->c[w] = t->c[e];
                memcpy(t->v + w * (size_t)L, t->v + e * (size_t)L, (size_t)L * sizeof(uint64_t));
            }
            w++;
        }
        t->n = w;
    }
    if (t->n > r->peak) r->peak = t->n;
    return 0;
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
    PyObject *stop_o;
    long long table_bytes;
    double time_limit;
    if (!PyArg_ParseTuple(args, "iiOOOOOOOOOOLdO", &n, &reach, &po[0], &po[1], &po[2], &po[3], &po[4], &po[5],
                          &po[6], &po[7], &po[8], &po[9], &table_bytes, &time_limit, &stop_o))
        return NULL;
    static const char *names[10] = {"pstart", "masks", "adds", "fmasks", "lims", "estart", "efm", "efull",
                                    "need_fm", "need_full"};
    Py_buffer b[11];
    for (int k = 0; k < 11; k++) b[k].obj = NULL;
    PyObject *result = NULL;
    Table old, cur;
    memset(&old, 0, sizeof old);
    memset(&cur, 0, sizeof cur);
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
    r.L = 1;
    uint64_t *acc = NULL;
    int accl = 0;
    Py_BEGIN_ALLOW_THREADS
    if (entries_reserve(&old, 1024, 1) < 0 || index_rebuild(&old, 1024) < 0) {
        r.oom = 1;
    } else {
        old.f[0] = 0;
        old.c[0] = 0;
        old.v[0] = 1;
        old.n = 1;
        for (int i = 0; i < n && !r.status && !r.oom; i++) {
            for (;;) {
                r.overflow = 0;
                if (step(&r, i, &old, &cur) < 0) break;
                if (!r.overflow) break;
                /* a value passed L limbs: widen the old table and redo the step */
                if (widen(&old, r.L) < 0 || widen(&cur, r.L) < 0) { r.oom = 1; break; }
                r.L++;
            }
            if (r.status || r.oom) break;
            Table tmp = old;
            old = cur;
            cur = tmp;
            if (!old.n) break;
        }
        if (!r.status && !r.oom) {
            /* the count: the sum of the states that meet use_all (L + 1 limbs: fewer than 2^64 terms) */
            accl = r.L + 1;
            acc = calloc((size_t)accl, sizeof *acc);
            if (!acc) r.oom = 1;
            for (size_t e = 0; acc && e < old.n; e++) {
                int ok = old.f[e] == 0;
                for (Py_ssize_t k = 0; ok && k < nneed; k++)
                    if ((old.c[e] & need_fm[k]) != need_full[k]) ok = 0;
                if (!ok) continue;
                unsigned char carry = 0;
                const uint64_t *v = old.v + e * (size_t)r.L;
                for (int l = 0; l < accl; l++) {
                    u128 s = (u128)acc[l] + (l < r.L ? v[l] : 0) + carry;
                    acc[l] = (uint64_t)s;
                    carry = (unsigned char)(s >> 64);
                }
            }
        }
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
        result = Py_BuildValue("iNn", r.status, bytes, (Py_ssize_t)r.peak);
    }
done:
    table_free(&old);
    table_free(&cur);
    for (int k = 0; k < 11; k++)
        if (b[k].obj) PyBuffer_Release(&b[k]);
    return result;
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS,
     "count(n, reach, pstart, masks, adds, fmasks, lims, estart, efm, efull, need_fm, need_full,\n"
     "      table_bytes, time_limit, stop) -> (status, count as little-endian bytes, peak states)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_frontier",
                                    "Counting tilings by dynamic programming over a frontier (C twin of "
                                    "solver.puzzle.frontier.run_dp_py).",
                                    -1, methods};

PyMODINIT_FUNC PyInit__frontier(void) { return PyModule_Create(&module); }
