/* quiltsolve compiled game core: the game state and the rules, in C.
 *
 * Self-contained header (only <stdint.h>, <stdlib.h>, <string.h>; the Python helpers at
 * the bottom are compiled only when <Python.h> was included first).
 * Every function is `static inline`; include it from any C file.
 *
 * It implements exactly the semantics of engine/state.py (GameState.apply_action,
 * iter_legal_actions, scores, winner). The rule tables are NOT hard-coded: Python
 * builds them (engine/core.py: core_tables()) and passes them in once at import,
 * so C and Python always share the data.
 *
 * API (stable since the 00:00 milestone)
 * ---------------------------------------
 *   typedef unsigned __int128 qs_mask;          bit row*9+col
 *   qs_tables                                    the rule data (see the struct)
 *   qs_state, qs_player                          a position (see the structs)
 *   qs_action {kind, arg, mask}                  QS_ADVANCE / QS_BUY (arg=pid) / QS_LEATHER (arg=cell 0..80)
 *   int qs_popcount(qs_mask)
 *   void qs_tables_geometry(T)                   derive full/rows/cols from board_cells (done by qs_tables_from_py)
 *   int qs_legal_actions(T, s, out)              -> count; out needs QS_MAX_ACTIONS entries;
 *                                                   order = GameState.iter_legal_actions
 *   int qs_num_legal_actions(T, s)
 *   int qs_apply(T, s, const qs_action *a)       -> QS_OK, or a QS_ERR_* code (state unchanged)
 *   void qs_apply_unchecked(T, s, a)             the same without the legality checks (a must be legal)
 *   void qs_advance(T, s) / qs_buy(T, s, pid, mask) / qs_leather(T, s, cell)   unchecked moves
 *   int qs_score(T, s, player), int qs_winner(T, s)   (winner: -1 while not over)
 *   int qs_circle_index(s, pid)                  index in the circle, -1 if absent
 *   int qs_mask_index(T, pid, mask)              index in PATCH_MASKS[pid], -1 if not a placement
 *
 * With Python.h:
 *   int qs_tables_from_py(qs_tables *T, PyObject *tup)   fills T from engine.core.core_tables(); 0 / -1 (exception set)
 *   int qs_state_from_py(const qs_tables *T, PyObject *tup, qs_state *s)   from GameState.core_tuple(); 0 / -1
 *   PyObject *qs_state_to_py(const qs_state *s)          the tuple back (GameState.from_core_tuple)
 *   PyObject *qs_mask_to_py(qs_mask m), int qs_mask_from_py(PyObject *o, qs_mask *m)
 *   PyObject *qs_action_to_py(const qs_action *a)        (kind, arg, mask): kind 0 advance, 1 buy, 2 leather
 *   int qs_action_from_py(PyObject *o, qs_action *a)     the same tuple -> action; 0 / -1
 *
 * The core tuple (GameState.core_tuple(), all ints):
 *   (edition_index, current_player, leather_to_place, first_to_end (-1 = none), bonus_open, over,
 *    circle (tuple of pids), leather_spaces (tuple), player0, player1)
 *   player = (board_lo64, board_hi64, buttons, position, income, leather, bonus, patches (tuple of pids))
 *
 * Using it from another extension (e.g. the endgame solver):
 *   #define PY_SSIZE_T_CLEAN
 *   #include <Python.h>
 *   #include "state.h"                  setup.py: include_dirs=["engine/_core"], depends=[".../state.h"]
 *   static qs_tables T;                 filled once: an _init_tables(t) entry point doing
 *                                       qs_tables_from_py(&T, t), called by Python with engine.core.core_tables()
 *   qs_state s; qs_state_from_py(&T, state.core_tuple(), &s);   then qs_legal_actions / qs_apply / qs_score ...
 *   T is read-only after that, so any thread may use it (release the GIL around pure-C work).
 *
 * The tables tuple (engine.core.core_tables()):
 *   (patch_masks: tuple per patch of tuple of int masks, cost, time, income, area: tuples,
 *    income_up_to: tuple [0..END], payouts_after: tuple [0..END], bonus_masks: tuple,
 *    greedy_rates: tuple per payouts-count of tuple per patch (floats), advance_rate (float),
 *    end, board_cells, bonus_points, empty_penalty, leather_spaces per edition: tuple of tuples) -- 15 items
 */
#ifndef QS_STATE_H
#define QS_STATE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 qs_mask;

#define QS_MAX_PATCHES 33
#define QS_MAX_MASKS 512          /* per patch (448 today) */
#define QS_MAX_END 64
#define QS_MAX_BONUS 16
#define QS_MAX_LEATHER 8
#define QS_MAX_EDITIONS 4
#define QS_MAX_PAYOUTS 16
#define QS_MAX_ACTIONS (1 + 3 * QS_MAX_MASKS)
#define QS_CELLS 81

enum { QS_ADVANCE = 0, QS_BUY = 1, QS_LEATHER = 2 };
enum {
    QS_OK = 0,
    QS_ERR_OVER = 1,          /* game is over */
    QS_ERR_MUST_LEATHER = 2,  /* a leather patch is pending */
    QS_ERR_NOT_FRONT = 3,     /* patch not among the three in front of the token */
    QS_ERR_COST = 4,          /* cannot afford */
    QS_ERR_NOT_PLACEMENT = 5, /* mask is not a placement of the patch */
    QS_ERR_OVERLAP = 6,       /* mask overlaps covered cells */
    QS_ERR_NO_LEATHER = 7,    /* leather action with none pending */
    QS_ERR_CELL = 8,          /* leather cell off the board */
    QS_ERR_COVERED = 9,       /* leather cell already covered */
    QS_ERR_KIND = 10          /* not an action */
};

typedef struct {
    int n_patches;
    int n_masks[QS_MAX_PATCHES];
    qs_mask *masks[QS_MAX_PATCHES];       /* PATCH_MASKS[pid][i] (owned by whoever filled the struct) */
    int cost[QS_MAX_PATCHES], time[QS_MAX_PATCHES], income[QS_MAX_PATCHES], area[QS_MAX_PATCHES];
    int end;                              /* 53 */
    int income_up_to[QS_MAX_END + 1];
    int payouts_after[QS_MAX_END + 1];
    int n_bonus;
    qs_mask bonus_masks[QS_MAX_BONUS];
    int n_payouts;                        /* rows of greedy_rates */
    double greedy_rates[QS_MAX_PAYOUTS][QS_MAX_PATCHES];
    double advance_rate;
    int board_cells, bonus_points, empty_penalty;
    qs_mask full;
    /* board geometry (side = 9), derived from board_cells by qs_tables_from_py / qs_tables_geometry */
    int side;
    qs_mask row0, row_last, col0, col_last, not_col0, not_col_last;
    int n_editions;
    int n_leather_spaces[QS_MAX_EDITIONS];
    int leather_spaces[QS_MAX_EDITIONS][QS_MAX_LEATHER];
} qs_tables;

typedef struct {
    qs_mask board;
    int buttons, position, income, leather, bonus;
    int npatches;
    uint8_t patches[QS_MAX_PATCHES];      /* bought ids in buying order */
} qs_player;

typedef struct {
    qs_player p[2];
    int edition;
    int cur;                              /* who acts next (the leather placer while one is pending) */
    int pending;                          /* leather patches still to place */
    int first_to_end;                     /* -1: nobody yet */
    int bonus_open, over;
    int ncircle;
    uint8_t circle[QS_MAX_PATCHES];       /* clockwise from the token */
    int nleather;
    uint8_t leather[QS_MAX_LEATHER];      /* track spaces whose leather patch is still there */
} qs_state;

typedef struct {
    int kind;                             /* QS_ADVANCE, QS_BUY, QS_LEATHER */
    int arg;                              /* buy: patch id; leather: cell 0..80 */
    qs_mask mask;                         /* buy: placement; leather: the cell's bit */
} qs_action;

/* Fill the geometry fields from board_cells (a square board). */
static inline void qs_tables_geometry(qs_tables *T) {
    int side = 1;
    while (side * side < T->board_cells) side++;
    T->side = side;
    T->full = ((qs_mask)1 << T->board_cells) - 1;
    T->row0 = ((qs_mask)1 << side) - 1;
    T->row_last = T->row0 << (side * (side - 1));
    T->col0 = 0;
    for (int r = 0; r < side; r++) T->col0 |= (qs_mask)1 << (side * r);
    T->col_last = T->col0 << (side - 1);
    T->not_col0 = T->full ^ T->col0;
    T->not_col_last = T->full ^ T->col_last;
}

static inline int qs_popcount(qs_mask m) {
    return __builtin_popcountll((uint64_t)m) + __builtin_popcountll((uint64_t)(m >> 64));
}

static inline int qs_circle_index(const qs_state *s, int pid) {
    for (int i = 0; i < s->ncircle; i++)
        if (s->circle[i] == pid) return i;
    return -1;
}

static inline int qs_mask_index(const qs_tables *T, int pid, qs_mask m) {
    if (pid < 0 || pid >= T->n_patches) return -1;
    const qs_mask *ms = T->masks[pid];
    for (int i = 0; i < T->n_masks[pid]; i++)
        if (ms[i] == m) return i;
    return -1;
}

static inline int qs_legal_actions(const qs_tables *T, const qs_state *s, qs_action *out) {
    if (s->over) return 0;
    const qs_player *p = &s->p[s->cur];
    qs_mask board = p->board;
    int n = 0;
    if (s->pending) {
        for (int i = 0; i < T->board_cells; i++) {
            qs_mask bit = (qs_mask)1 << i;
            if (!(board & bit)) { out[n].kind = QS_LEATHER; out[n].arg = i; out[n].mask = bit; n++; }
        }
        return n;
    }
    out[n].kind = QS_ADVANCE; out[n].arg = 0; out[n].mask = 0; n++;
    int k = s->ncircle < 3 ? s->ncircle : 3;
    for (int j = 0; j < k; j++) {
        int pid = s->circle[j];
        if (T->cost[pid] > p->buttons) continue;
        const qs_mask *ms = T->masks[pid];
        int nm = T->n_masks[pid];
        for (int i = 0; i < nm; i++)
            if (!(ms[i] & board)) { out[n].kind = QS_BUY; out[n].arg = pid; out[n].mask = ms[i]; n++; }
    }
    return n;
}

static inline int qs_num_legal_actions(const qs_tables *T, const qs_state *s) {
    if (s->over) return 0;
    const qs_player *p = &s->p[s->cur];
    qs_mask board = p->board;
    if (s->pending) return T->board_cells - qs_popcount(board);
    int n = 1;
    int k = s->ncircle < 3 ? s->ncircle : 3;
    for (int j = 0; j < k; j++) {
        int pid = s->circle[j];
        if (T->cost[pid] > p->buttons) continue;
        const qs_mask *ms = T->masks[pid];
        for (int i = 0; i < T->n_masks[pid]; i++)
            if (!(ms[i] & board)) n++;
    }
    return n;
}

static inline void qs__end_turn(const qs_tables *T, qs_state *s, int mover) {
    int mp = s->p[mover].position, op = s->p[1 - mover].position;
    if (mp > op) s->cur = 1 - mover;
    else if (mp == T->end) s->over = 1;
}

static inline void qs__check_bonus(const qs_tables *T, qs_state *s, qs_player *p) {
    qs_mask b = p->board;
    if (qs_popcount(b) >= 49) {
        for (int i = 0; i < T->n_bonus; i++) {
            qs_mask m = T->bonus_masks[i];
            if ((b & m) == m) { p->bonus = 1; s->bonus_open = 0; return; }
        }
    }
}

static inline void qs__move(const qs_tables *T, qs_state *s, int cur, int target) {
    qs_player *p = &s->p[cur];
    int a = p->position;
    if (target > T->end) target = T->end;
    p->position = target;
    int n = T->income_up_to[target] - T->income_up_to[a];
    if (n) p->buttons += n * p->income;
    if (s->nleather && s->leather[0] <= target) {
        int k = 1;
        while (k < s->nleather && s->leather[k] <= target) k++;
        memmove(s->leather, s->leather + k, (size_t)(s->nleather - k));
        s->nleather -= k;
        int empty = T->board_cells - qs_popcount(p->board);
        s->pending = k < empty ? k : empty;
    }
    if (target == T->end && s->first_to_end < 0) s->first_to_end = cur;
    if (!s->pending) qs__end_turn(T, s, cur);
}

static inline void qs_advance(const qs_tables *T, qs_state *s) {
    int cur = s->cur;
    qs_player *p = &s->p[cur];
    int target = s->p[1 - cur].position + 1;
    if (target > T->end) target = T->end;
    p->buttons += target - p->position;
    qs__move(T, s, cur, target);
}

/* Buy circle[i] = pid (index known) at mask. */
static inline void qs__buy_at(const qs_tables *T, qs_state *s, int i, int pid, qs_mask mask) {
    int cur = s->cur;
    qs_player *p = &s->p[cur];
    p->buttons -= T->cost[pid];
    p->board |= mask;
    p->income += T->income[pid];
    p->patches[p->npatches++] = (uint8_t)pid;
    /* circle = circle[i+1:] + circle[:i] */
    uint8_t tmp[QS_MAX_PATCHES];
    int n = s->ncircle, k = 0;
    for (int j = i + 1; j < n; j++) tmp[k++] = s->circle[j];
    for (int j = 0; j < i; j++) tmp[k++] = s->circle[j];
    memcpy(s->circle, tmp, (size_t)k);
    s->ncircle = k;
    if (s->bonus_open) qs__check_bonus(T, s, p);
    qs__move(T, s, cur, p->position + T->time[pid]);
}

static inline void qs_buy(const qs_tables *T, qs_state *s, int pid, qs_mask mask) {
    qs__buy_at(T, s, qs_circle_index(s, pid), pid, mask);
}

static inline void qs_leather(const qs_tables *T, qs_state *s, int cell) {
    int cur = s->cur;
    qs_player *p = &s->p[cur];
    p->board |= (qs_mask)1 << cell;
    p->leather += 1;
    s->pending -= 1;
    if (p->board == T->full) s->pending = 0;   /* a second patch taken with it is lost */
    if (s->bonus_open) qs__check_bonus(T, s, p);
    if (!s->pending) qs__end_turn(T, s, cur);
}

static inline int qs_apply(const qs_tables *T, qs_state *s, const qs_action *a) {
    if (s->over) return QS_ERR_OVER;
    qs_player *p = &s->p[s->cur];
    if (s->pending) {
        if (a->kind != QS_LEATHER) return QS_ERR_MUST_LEATHER;
        if (a->arg < 0 || a->arg >= T->board_cells) return QS_ERR_CELL;
        if (p->board & ((qs_mask)1 << a->arg)) return QS_ERR_COVERED;
        qs_leather(T, s, a->arg);
        return QS_OK;
    }
    if (a->kind == QS_BUY) {
        int pid = a->arg;
        int k = s->ncircle < 3 ? s->ncircle : 3, i = -1;
        for (int j = 0; j < k; j++) if (s->circle[j] == pid) { i = j; break; }
        if (i < 0) return QS_ERR_NOT_FRONT;
        if (T->cost[pid] > p->buttons) return QS_ERR_COST;
        if (qs_mask_index(T, pid, a->mask) < 0) return QS_ERR_NOT_PLACEMENT;
        if (a->mask & p->board) return QS_ERR_OVERLAP;
        qs__buy_at(T, s, i, pid, a->mask);
        return QS_OK;
    }
    if (a->kind == QS_ADVANCE) { qs_advance(T, s); return QS_OK; }
    if (a->kind == QS_LEATHER) return QS_ERR_NO_LEATHER;
    return QS_ERR_KIND;
}

static inline void qs_apply_unchecked(const qs_tables *T, qs_state *s, const qs_action *a) {
    if (a->kind == QS_LEATHER) qs_leather(T, s, a->arg);
    else if (a->kind == QS_BUY) qs_buy(T, s, a->arg, a->mask);
    else qs_advance(T, s);
}

static inline int qs_score(const qs_tables *T, const qs_state *s, int i) {
    const qs_player *p = &s->p[i];
    return p->buttons + (p->bonus ? T->bonus_points : 0)
        - T->empty_penalty * (T->board_cells - qs_popcount(p->board));
}

static inline int qs_winner(const qs_tables *T, const qs_state *s) {
    if (!s->over) return -1;
    int s0 = qs_score(T, s, 0), s1 = qs_score(T, s, 1);
    if (s0 != s1) return s0 > s1 ? 0 : 1;
    return s->first_to_end;
}

/* ------------------------------------------------------------------ Python helpers */
#ifdef Py_PYTHON_H

static inline int qs_mask_from_py(PyObject *o, qs_mask *m) {
    if (!PyLong_Check(o)) { PyErr_SetString(PyExc_TypeError, "a mask must be an int"); return -1; }
    PyObject *sh = PyLong_FromLong(64);
    if (!sh) return -1;
    int neg = PyObject_RichCompareBool(o, Py_False, Py_LT)  /* False == 0 */;
    if (neg != 0) { Py_DECREF(sh); if (neg > 0) PyErr_SetString(PyExc_ValueError, "a mask must be >= 0"); return -1; }
    PyObject *hi = PyNumber_Rshift(o, sh);
    Py_DECREF(sh);
    if (!hi) return -1;
    uint64_t lo = PyLong_AsUnsignedLongLongMask(o);
    unsigned long long h = PyLong_AsUnsignedLongLong(hi);
    Py_DECREF(hi);
    if (PyErr_Occurred()) { PyErr_Clear(); PyErr_SetString(PyExc_ValueError, "mask too large"); return -1; }
    *m = ((qs_mask)h << 64) | lo;
    return 0;
}

static inline PyObject *qs_mask_to_py(qs_mask m) {
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (!hi) return PyLong_FromUnsignedLongLong(lo);
    PyObject *h = PyLong_FromUnsignedLongLong(hi), *l = NULL, *sh = NULL, *t = NULL, *r = NULL;
    if (!h) return NULL;
    sh = PyLong_FromLong(64);
    if (sh) t = PyNumber_Lshift(h, sh);
    if (t) l = PyLong_FromUnsignedLongLong(lo);
    if (l) r = PyNumber_Or(t, l);
    Py_XDECREF(h); Py_XDECREF(sh); Py_XDECREF(t); Py_XDECREF(l);
    return r;
}

static inline int qs__int_at(PyObject *tup, Py_ssize_t i, long lo, long hi, const char *what, int *out) {
    PyObject *o = PyTuple_GetItem(tup, i);
    if (!o) return -1;
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) { PyErr_Format(PyExc_ValueError, "core tuple: %s = %ld out of range", what, v); return -1; }
    *out = (int)v;
    return 0;
}

static inline int qs__u8_tuple(PyObject *o, int max, int lim, const char *what, uint8_t *out, int *n) {
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) > max) {
        PyErr_Format(PyExc_ValueError, "core tuple: %s must be a tuple of at most %d ints", what, max);
        return -1;
    }
    *n = (int)PyTuple_GET_SIZE(o);
    for (int i = 0; i < *n; i++) {
        int v;
        if (qs__int_at(o, i, 0, lim, what, &v) < 0) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

static inline int qs__u64_at(PyObject *tup, Py_ssize_t i, uint64_t *out) {
    PyObject *o = PyTuple_GetItem(tup, i);
    if (!o) return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

static inline int qs_state_from_py(const qs_tables *T, PyObject *tup, qs_state *s) {
    if (!PyTuple_Check(tup) || PyTuple_GET_SIZE(tup) != 10) {
        PyErr_SetString(PyExc_ValueError, "core tuple: expected a 10-tuple (GameState.core_tuple())");
        return -1;
    }
    memset(s, 0, sizeof *s);
    if (qs__int_at(tup, 0, 0, T->n_editions - 1, "edition", &s->edition) < 0) return -1;
    if (qs__int_at(tup, 1, 0, 1, "current_player", &s->cur) < 0) return -1;
    if (qs__int_at(tup, 2, 0, QS_MAX_LEATHER, "leather_to_place", &s->pending) < 0) return -1;
    if (qs__int_at(tup, 3, -1, 1, "first_to_end", &s->first_to_end) < 0) return -1;
    if (qs__int_at(tup, 4, 0, 1, "bonus_open", &s->bonus_open) < 0) return -1;
    if (qs__int_at(tup, 5, 0, 1, "over", &s->over) < 0) return -1;
    if (qs__u8_tuple(PyTuple_GET_ITEM(tup, 6), T->n_patches, T->n_patches - 1, "circle", s->circle, &s->ncircle) < 0)
        return -1;
    if (qs__u8_tuple(PyTuple_GET_ITEM(tup, 7), QS_MAX_LEATHER, T->end, "leather_spaces", s->leather, &s->nleather) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        PyObject *pt = PyTuple_GET_ITEM(tup, 8 + i);
        if (!PyTuple_Check(pt) || PyTuple_GET_SIZE(pt) != 8) {
            PyErr_SetString(PyExc_ValueError, "core tuple: a player must be an 8-tuple");
            return -1;
        }
        qs_player *p = &s->p[i];
        uint64_t lo, hi;
        if (qs__u64_at(pt, 0, &lo) < 0 || qs__u64_at(pt, 1, &hi) < 0) return -1;
        p->board = (((qs_mask)hi << 64) | lo) & T->full;
        if (qs__int_at(pt, 2, 0, 1000000, "buttons", &p->buttons) < 0) return -1;
        if (qs__int_at(pt, 3, 0, T->end, "position", &p->position) < 0) return -1;
        if (qs__int_at(pt, 4, 0, 1000, "income", &p->income) < 0) return -1;
        if (qs__int_at(pt, 5, 0, QS_MAX_LEATHER, "leather", &p->leather) < 0) return -1;
        if (qs__int_at(pt, 6, 0, 1, "bonus", &p->bonus) < 0) return -1;
        if (qs__u8_tuple(PyTuple_GET_ITEM(pt, 7), T->n_patches, T->n_patches - 1, "patches", p->patches,
                         &p->npatches) < 0)
            return -1;
    }
    /* what the functions above rely on (a GameState always has it) */
    if (s->p[0].npatches + s->p[1].npatches + s->ncircle > T->n_patches) {
        PyErr_SetString(PyExc_ValueError, "core tuple: more patches on the boards and in the circle than exist");
        return -1;
    }
    if (s->pending > T->board_cells - qs_popcount(s->p[s->cur].board)) {
        PyErr_SetString(PyExc_ValueError, "core tuple: leather_to_place exceeds the empty cells of the player to move");
        return -1;
    }
    return 0;
}

static inline PyObject *qs__u8_to_py(const uint8_t *a, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(a[i]));
    return t;
}

static inline PyObject *qs_state_to_py(const qs_state *s) {
    PyObject *pl[2];
    for (int i = 0; i < 2; i++) {
        const qs_player *p = &s->p[i];
        pl[i] = Py_BuildValue("(KKiiiiiN)", (unsigned long long)(uint64_t)p->board,
                              (unsigned long long)(uint64_t)(p->board >> 64), p->buttons, p->position, p->income,
                              p->leather, p->bonus, qs__u8_to_py(p->patches, p->npatches));
        if (!pl[i]) { if (i) Py_DECREF(pl[0]); return NULL; }
    }
    return Py_BuildValue("(iiiiiiNNNN)", s->edition, s->cur, s->pending, s->first_to_end, s->bonus_open, s->over,
                         qs__u8_to_py(s->circle, s->ncircle), qs__u8_to_py(s->leather, s->nleather), pl[0], pl[1]);
}

static inline PyObject *qs_action_to_py(const qs_action *a) {
    PyObject *m = qs_mask_to_py(a->mask);
    if (!m) return NULL;
    return Py_BuildValue("(iiN)", a->kind, a->arg, m);
}

static inline int qs_action_from_py(PyObject *o, qs_action *a) {
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 3) {
        PyErr_SetString(PyExc_ValueError, "an action must be a (kind, arg, mask) tuple");
        return -1;
    }
    int kind, arg;
    if (qs__int_at(o, 0, 0, 2, "action kind", &kind) < 0) return -1;
    if (qs__int_at(o, 1, -1000000, 1000000, "action arg", &arg) < 0) return -1;
    a->kind = kind; a->arg = arg;
    return qs_mask_from_py(PyTuple_GET_ITEM(o, 2), &a->mask);
}

static inline int qs__double_at(PyObject *tup, Py_ssize_t i, double *out) {
    PyObject *o = PyTuple_GetItem(tup, i);
    if (!o) return -1;
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

static inline int qs__int_tuple(PyObject *o, int max, const char *what, int *out, int *n) {
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) > max) {
        PyErr_Format(PyExc_ValueError, "core tables: %s must be a tuple of at most %d ints", what, max);
        return -1;
    }
    *n = (int)PyTuple_GET_SIZE(o);
    for (int i = 0; i < *n; i++)
        if (qs__int_at(o, i, -1000000, 1000000, what, &out[i]) < 0) return -1;
    return 0;
}

/* Fill T from engine.core.core_tables(). The mask arrays are malloc'd (freed never: module lifetime). */
static inline int qs_tables_from_py(qs_tables *T, PyObject *tup) {
    if (!PyTuple_Check(tup) || PyTuple_GET_SIZE(tup) != 15) {
        PyErr_SetString(PyExc_ValueError, "core tables: expected a 15-tuple (engine.core.core_tables())");
        return -1;
    }
    memset(T, 0, sizeof *T);
    PyObject *masks = PyTuple_GET_ITEM(tup, 0);
    if (!PyTuple_Check(masks) || PyTuple_GET_SIZE(masks) > QS_MAX_PATCHES) {
        PyErr_SetString(PyExc_ValueError, "core tables: patch_masks");
        return -1;
    }
    T->n_patches = (int)PyTuple_GET_SIZE(masks);
    for (int pid = 0; pid < T->n_patches; pid++) {
        PyObject *ml = PyTuple_GET_ITEM(masks, pid);
        if (!PyTuple_Check(ml) || PyTuple_GET_SIZE(ml) > QS_MAX_MASKS) {
            PyErr_SetString(PyExc_ValueError, "core tables: patch_masks entry");
            return -1;
        }
        int nm = (int)PyTuple_GET_SIZE(ml);
        T->n_masks[pid] = nm;
        T->masks[pid] = (qs_mask *)malloc(sizeof(qs_mask) * (size_t)(nm ? nm : 1));
        if (!T->masks[pid]) { PyErr_NoMemory(); return -1; }
        for (int i = 0; i < nm; i++)
            if (qs_mask_from_py(PyTuple_GET_ITEM(ml, i), &T->masks[pid][i]) < 0) return -1;
    }
    int n;
    if (qs__int_tuple(PyTuple_GET_ITEM(tup, 1), QS_MAX_PATCHES, "cost", T->cost, &n) < 0) return -1;
    if (qs__int_tuple(PyTuple_GET_ITEM(tup, 2), QS_MAX_PATCHES, "time", T->time, &n) < 0) return -1;
    if (qs__int_tuple(PyTuple_GET_ITEM(tup, 3), QS_MAX_PATCHES, "income", T->income, &n) < 0) return -1;
    if (qs__int_tuple(PyTuple_GET_ITEM(tup, 4), QS_MAX_PATCHES, "area", T->area, &n) < 0) return -1;
    if (qs__int_tuple(PyTuple_GET_ITEM(tup, 5), QS_MAX_END + 1, "income_up_to", T->income_up_to, &n) < 0) return -1;
    if (qs__int_tuple(PyTuple_GET_ITEM(tup, 6), QS_MAX_END + 1, "payouts_after", T->payouts_after, &n) < 0) return -1;
    PyObject *bm = PyTuple_GET_ITEM(tup, 7);
    if (!PyTuple_Check(bm) || PyTuple_GET_SIZE(bm) > QS_MAX_BONUS) {
        PyErr_SetString(PyExc_ValueError, "core tables: bonus_masks");
        return -1;
    }
    T->n_bonus = (int)PyTuple_GET_SIZE(bm);
    for (int i = 0; i < T->n_bonus; i++)
        if (qs_mask_from_py(PyTuple_GET_ITEM(bm, i), &T->bonus_masks[i]) < 0) return -1;
    PyObject *gr = PyTuple_GET_ITEM(tup, 8);
    if (!PyTuple_Check(gr) || PyTuple_GET_SIZE(gr) > QS_MAX_PAYOUTS) {
        PyErr_SetString(PyExc_ValueError, "core tables: greedy_rates");
        return -1;
    }
    T->n_payouts = (int)PyTuple_GET_SIZE(gr);
    for (int k = 0; k < T->n_payouts; k++) {
        PyObject *row = PyTuple_GET_ITEM(gr, k);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != T->n_patches) {
            PyErr_SetString(PyExc_ValueError, "core tables: greedy_rates row");
            return -1;
        }
        for (int pid = 0; pid < T->n_patches; pid++)
            if (qs__double_at(row, pid, &T->greedy_rates[k][pid]) < 0) return -1;
    }
    if (qs__double_at(tup, 9, &T->advance_rate) < 0) return -1;
    if (qs__int_at(tup, 10, 1, QS_MAX_END, "end", &T->end) < 0) return -1;
    if (qs__int_at(tup, 11, 1, QS_CELLS, "board_cells", &T->board_cells) < 0) return -1;
    if (qs__int_at(tup, 12, 0, 1000, "bonus_points", &T->bonus_points) < 0) return -1;
    if (qs__int_at(tup, 13, 0, 1000, "empty_penalty", &T->empty_penalty) < 0) return -1;
    PyObject *ls = PyTuple_GET_ITEM(tup, 14);
    if (!PyTuple_Check(ls) || PyTuple_GET_SIZE(ls) > QS_MAX_EDITIONS) {
        PyErr_SetString(PyExc_ValueError, "core tables: leather spaces");
        return -1;
    }
    T->n_editions = (int)PyTuple_GET_SIZE(ls);
    for (int e = 0; e < T->n_editions; e++)
        if (qs__int_tuple(PyTuple_GET_ITEM(ls, e), QS_MAX_LEATHER, "leather spaces", T->leather_spaces[e],
                          &T->n_leather_spaces[e]) < 0)
            return -1;
    qs_tables_geometry(T);
    return 0;
}

#endif /* Py_PYTHON_H */
#endif /* QS_STATE_H */
