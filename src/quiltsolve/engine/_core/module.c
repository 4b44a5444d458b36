/* quiltsolve.engine._core: the compiled game core (see engine/core.py for the Python facade,
 * engine/_core_py.py for the pure-Python twin that gives identical answers).
 *
 * state.h: the state and the rules; policy.h: RNG, snug placement, leather cell, playouts;
 * search.h: the UCT search over macro moves.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "state.h"
#include "policy.h"
#include "search.h"

static qs_tables T;
static int tables_ready = 0;

static int need_tables(void) {
    if (!tables_ready) { PyErr_SetString(PyExc_RuntimeError, "engine._core: _init_tables() was not called"); return -1; }
    return 0;
}

static PyObject *py_init_tables(PyObject *self, PyObject *arg) {
    qs_tables t;
    if (qs_tables_from_py(&t, arg) < 0) return NULL;
    if (tables_ready)   /* keep the first ones' masks alive: searches may run on other threads */
        for (int i = 0; i < t.n_patches; i++) free(t.masks[i]);
    else { T = t; tables_ready = 1; }
    Py_RETURN_NONE;
}

static PyObject *py_roundtrip(PyObject *self, PyObject *arg) {
    qs_state s;
    if (need_tables() < 0 || qs_state_from_py(&T, arg, &s) < 0) return NULL;
    return qs_state_to_py(&s);
}

static PyObject *actions_list(const qs_state *s) {
    static __thread qs_action buf[QS_MAX_ACTIONS];
    int n = qs_legal_actions(&T, s, buf);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *a = qs_action_to_py(&buf[i]);
        if (!a) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, a);
    }
    return out;
}

static PyObject *py_legal_actions(PyObject *self, PyObject *arg) {
    qs_state s;
    if (need_tables() < 0 || qs_state_from_py(&T, arg, &s) < 0) return NULL;
    return actions_list(&s);
}

static PyObject *py_legal_actions_bulk(PyObject *self, PyObject *arg) {
    if (need_tables() < 0) return NULL;
    PyObject *seq = PySequence_Fast(arg, "legal_actions_bulk takes a sequence of core tuples");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (!out) { Py_DECREF(seq); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        qs_state s;
        PyObject *l = NULL;
        if (qs_state_from_py(&T, PySequence_Fast_GET_ITEM(seq, i), &s) == 0) l = actions_list(&s);
        if (!l) { Py_DECREF(out); Py_DECREF(seq); return NULL; }
        PyList_SET_ITEM(out, i, l);
    }
    Py_DECREF(seq);
    return out;
}

/* A u128 as a Python int in one call where the API allows it. */
static PyObject *u128_to_py(qs_mask m) {
    if (!(uint64_t)(m >> 64)) return PyLong_FromUnsignedLongLong((uint64_t)m);
#if PY_VERSION_HEX < 0x030D0000
    unsigned char b[16];
    for (int i = 0; i < 16; i++) b[i] = (unsigned char)(m >> (8 * i));
    return _PyLong_FromByteArray(b, 16, 1, 0);
#else
    return qs_mask_to_py(m);
#endif
}

/* legal_keys_bulk(states) -> per state the list of action keys: -1 advance, mask | pid << 81 buy, mask leather
 * (one int per action: a cheap exact comparison with GameState.legal_actions()). */
static PyObject *py_legal_keys_bulk(PyObject *self, PyObject *arg) {
    static __thread qs_action buf[QS_MAX_ACTIONS];
    if (need_tables() < 0) return NULL;
    PyObject *seq = PySequence_Fast(arg, "legal_keys_bulk takes a sequence of core tuples");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (!out) { Py_DECREF(seq); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        qs_state s;
        if (qs_state_from_py(&T, PySequence_Fast_GET_ITEM(seq, i), &s) < 0) { Py_DECREF(out); Py_DECREF(seq); return NULL; }
        int na = qs_legal_actions(&T, &s, buf);
        PyObject *l = PyList_New(na);
        if (!l) { Py_DECREF(out); Py_DECREF(seq); return NULL; }
        for (int j = 0; j < na; j++) {
            const qs_action *a = &buf[j];
            PyObject *k = a->kind == QS_ADVANCE ? PyLong_FromLong(-1)
                : u128_to_py(a->kind == QS_BUY ? (a->mask | ((qs_mask)a->arg << 81)) : a->mask);
            if (!k) { Py_DECREF(l); Py_DECREF(out); Py_DECREF(seq); return NULL; }
            PyList_SET_ITEM(l, j, k);
        }
        PyList_SET_ITEM(out, i, l);
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *py_num_legal_actions(PyObject *self, PyObject *arg) {
    qs_state s;
    if (need_tables() < 0 || qs_state_from_py(&T, arg, &s) < 0) return NULL;
    return PyLong_FromLong(qs_num_legal_actions(&T, &s));
}

/* apply(state_tuple, action_tuple) -> (error_code, new_state_tuple); on an error the state is unchanged. */
static PyObject *py_apply(PyObject *self, PyObject *args) {
    PyObject *st, *at;
    if (!PyArg_ParseTuple(args, "OO", &st, &at)) return NULL;
    qs_state s;
    qs_action a;
    if (need_tables() < 0 || qs_state_from_py(&T, st, &s) < 0 || qs_action_from_py(at, &a) < 0) return NULL;
    int err = qs_apply(&T, &s, &a);
    return Py_BuildValue("(iN)", err, qs_state_to_py(&s));
}

/* apply_all(state_tuple) -> [state tuple after each legal action] (bulk check of apply). */
static PyObject *py_apply_all(PyObject *self, PyObject *arg) {
    static __thread qs_action buf[QS_MAX_ACTIONS];
    qs_state s;
    if (need_tables() < 0 || qs_state_from_py(&T, arg, &s) < 0) return NULL;
    int n = qs_legal_actions(&T, &s, buf);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        qs_state c = s;
        qs_apply_unchecked(&T, &c, &buf[i]);
        PyObject *t = qs_state_to_py(&c);
        if (!t) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

static PyObject *py_scores(PyObject *self, PyObject *arg) {
    qs_state s;
    if (need_tables() < 0 || qs_state_from_py(&T, arg, &s) < 0) return NULL;
    return Py_BuildValue("(iii)", qs_score(&T, &s, 0), qs_score(&T, &s, 1), qs_winner(&T, &s));
}

#include "module_search.inc"

static PyMethodDef methods[] = {
    {"_init_tables", py_init_tables, METH_O, "Fill the rule tables (engine.core.core_tables())."},
    {"roundtrip", py_roundtrip, METH_O, "core tuple -> C state -> core tuple."},
    {"legal_actions", py_legal_actions, METH_O, "[(kind, arg, mask)] in GameState.iter_legal_actions order."},
    {"legal_actions_bulk", py_legal_actions_bulk, METH_O, "legal_actions of each core tuple of a sequence."},
    {"legal_keys_bulk", py_legal_keys_bulk, METH_O, "Per state [-1 advance | mask | pid << 81 buy | mask leather]."},
    {"num_legal_actions", py_num_legal_actions, METH_O, "len(legal_actions(t))."},
    {"apply", py_apply, METH_VARARGS, "(state, action) -> (error code, state after)."},
    {"apply_all", py_apply_all, METH_O, "[state after a] for each legal action a."},
    {"scores", py_scores, METH_O, "(score0, score1, winner or -1)."},
    SEARCH_METHODS
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_core", "The compiled game core (engine/core.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&moddef); }
