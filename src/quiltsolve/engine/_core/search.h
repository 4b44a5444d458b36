/* quiltsolve compiled core: the UCT search over macro moves (engine/_core_py.py: search is its twin).
 *
 * A node's moves: advance and "buy P at its snug placement" for each affordable front patch, in the greedy
 * order (advance inserted before the first patch whose rate is <= the advance rate); the root's moves are
 * given by the caller (the advisor's placements, leather cells). After a move the mover's won leather
 * patches are placed by qs_leather_cell. One ε-greedy playout per iteration, UCB1, reward
 * (1 - mw) * win + mw * 0.5 * (1 + tanh(margin / 10)) for the player who moved into a node.
 * The tree holds at most node_cap nodes: once full, no node is expanded any more (the same rule in Python).
 */
#ifndef QS_SEARCH_H
#define QS_SEARCH_H

#include <math.h>
#include "policy.h"

#define QS_MAX_MOVES 8
#define QS_MAX_DEPTH 512
#define QS_MARGIN_SCALE 10.0

typedef struct {
    qs_state s;
    qs_action act;
    double w;              /* sum of rewards for mover */
    long long wins, margin;
    int n, mover;          /* mover: who made the move into this node (-1 at the root) */
    int8_t listed, nmoves, next, nchild;
    int16_t moves[QS_MAX_MOVES];   /* root: index into root_actions; else -1 advance, pid buy */
    int child[QS_MAX_MOVES];
} qs_node;

typedef struct {
    const qs_tables *T;
    qs_node *nodes;
    int count, cap;
    qs_action root_actions[QS_MAX_MOVES];
    int n_root;
    qs_rng rng;
    double c, mw, eps;
    qs_pcache pc;          /* the snug placements seen in this search (policy.h) */
} qs_search;

/* 0 on success, -1 when out of memory. */
static inline int qs_search_init(qs_search *S, const qs_tables *T, const qs_state *root, const qs_action *root_actions,
                                 int n_root, uint64_t seed, double c, double mw, double eps, int cap) {
    memset(S, 0, sizeof *S);
    if (cap < 1) cap = 1;
    if (n_root > QS_MAX_MOVES) n_root = QS_MAX_MOVES;
    S->T = T;
    S->nodes = (qs_node *)malloc(sizeof(qs_node) * (size_t)cap);
    if (!S->nodes) return -1;
    if (qs_pcache_init(&S->pc, QS_PCACHE_BITS) < 0) { free(S->nodes); S->nodes = NULL; return -1; }
    S->cap = cap;
    S->count = 1;
    qs_node *r = &S->nodes[0];
    memset(r, 0, sizeof *r);
    r->s = *root;
    r->mover = -1;
    r->listed = 1;
    r->nmoves = (int8_t)n_root;
    for (int i = 0; i < n_root; i++) { S->root_actions[i] = root_actions[i]; r->moves[i] = (int16_t)i; }
    S->n_root = n_root;
    qs_rng_seed(&S->rng, seed);
    S->c = c; S->mw = mw; S->eps = eps;
    return 0;
}

static inline void qs_search_free(qs_search *S) {
    free(S->nodes);
    S->nodes = NULL;
    qs_pcache_free(&S->pc);
}

static inline void qs__list_moves(const qs_search *S, qs_node *nd) {
    double rates[3];
    int pids[3];
    int n = qs_buy_rates(S->T, &nd->s, rates, pids), k = 0, advanced = 0;
    for (int i = 0; i < n; i++) {
        if (rates[i] <= S->T->advance_rate && !advanced) { nd->moves[k++] = -1; advanced = 1; }
        nd->moves[k++] = (int16_t)pids[i];
    }
    if (!advanced) nd->moves[k++] = -1;
    nd->nmoves = (int8_t)k;
    nd->next = 0;
    nd->listed = 1;
}

/* Expand move of node i; returns the child's index or -1 (the patch fits nowhere). */
static inline int qs__expand(qs_search *S, int i, int move) {
    const qs_tables *T = S->T;
    qs_action a;
    qs_node *nd = &S->nodes[i];
    if (i == 0) a = S->root_actions[move];
    else if (move >= 0) {
        qs_mask m;
        if (!qs_tight_cached(T, &S->pc, nd->s.p[nd->s.cur].board, move, &m)) return -1;
        a.kind = QS_BUY; a.arg = move; a.mask = m;
    } else { a.kind = QS_ADVANCE; a.arg = 0; a.mask = 0; }
    int ci = S->count++;
    qs_node *ch = &S->nodes[ci];
    memset(ch, 0, sizeof *ch);
    ch->s = nd->s;
    ch->mover = nd->s.cur;
    ch->act = a;
    qs_apply_unchecked(T, &ch->s, &a);
    qs_place_pending_leather(T, &ch->s);
    nd->child[nd->nchild++] = ci;
    return ci;
}

/* One iteration: select / expand, playout, backup. */
static inline void qs_search_iterate(qs_search *S) {
    const qs_tables *T = S->T;
    int path[QS_MAX_DEPTH];
    int plen = 0, node = 0;
    path[plen++] = 0;
    for (;;) {
        qs_node *nd = &S->nodes[node];
        if (nd->s.over) break;
        if (!nd->listed) qs__list_moves(S, nd);
        if (nd->next < nd->nmoves && S->count < S->cap) {
            int child = -1;
            while (nd->next < nd->nmoves && child < 0) child = qs__expand(S, node, nd->moves[nd->next++]);
            if (child >= 0) {
                node = child;
                if (plen < QS_MAX_DEPTH) path[plen++] = node;
                break;
            }
        }
        if (!nd->nchild) break;
        double ln = nd->n > 1 ? log((double)nd->n) : 0.0;
        int best = nd->child[0];
        double best_u = -1e9;
        for (int j = 0; j < nd->nchild; j++) {
            const qs_node *ch = &S->nodes[nd->child[j]];
            double u = ch->w / (double)ch->n + S->c * sqrt(ln / (double)ch->n);
            if (u > best_u) { best_u = u; best = nd->child[j]; }
        }
        node = best;
        if (plen < QS_MAX_DEPTH) path[plen++] = node;
    }
    qs_state s = S->nodes[node].s;
    qs_greedy_playout(T, &s, &S->rng, S->eps, &S->pc);
    int winner = qs_winner(T, &s);
    int sc[2] = {qs_score(T, &s, 0), qs_score(T, &s, 1)};
    for (int j = 0; j < plen; j++) {
        qs_node *nd = &S->nodes[path[j]];
        nd->n += 1;
        int m = nd->mover;
        if (m >= 0) {
            int margin = sc[m] - sc[1 - m];
            int win = winner == m;
            nd->wins += win;
            nd->margin += margin;
            nd->w += (1.0 - S->mw) * (double)win + S->mw * 0.5 * (1.0 + tanh((double)margin / QS_MARGIN_SCALE));
        }
    }
}

#endif /* QS_SEARCH_H */
