/*
 * A compiled copy of the limited-passes search of pyramide/solver.py (class _FullSearch), with its
 * unlimited-turns bound: the _CountSearch, or the _OrderSearch under strict win together with the
 * drawn-card-with-waste variant.
 *
 * It mirrors the Python search step for step: the same forced moves, proofs, move order and node
 * counting, so both give the same verdict, the same winning line and the same number of nodes
 * (tests/test_solver.py checks this). The Python code is the reference and the documentation;
 * this file only makes it fast. Pyramid geometry and values come precomputed from Python.
 *
 * solve(values, value_masks, compat, cover_masks, strict_win, draw_with_waste, pair_with_cover,
 *       outside, mask, cursor, passes, limit, node_limit) -> (status, nodes, line)
 *   status: 0 impossible, 1 won, 2 undecided (node limit reached)
 *   line: the winning line as (kind, a, b) tuples: kind 0 pair, 1 king, 2 draw, 3 turn;
 *         a spot is a pyramid index 0-27, 28 for the waste top or 29 for the card under it.
 * most(the same arguments) -> (status, nodes, removable)
 *   _FullSearch.most_removed from the start: the most pyramid cards removable; status 2 when the
 *   node limit was reached (removable is then -1).
 * Both take an optional last argument, budget: the seconds the search may take (0: no limit); when
 * they run out the answer is status 2, as at the node limit.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_PYR 28
#define KING 13
#define WASTE_SPOT 28
#define UNDER_SPOT 29
#define MAX_OUT 24 /* 52 cards - 28 in the pyramid: the packed keys below rely on it */
#define MAX_PASSES 99
#define MAX_LINE 4096
#define MAX_PAIRS 64 /* at most 7 cards are free at once: 21 pairs, plus 28 with their cover */

enum { MV_PAIR = 0, MV_KING = 1, MV_DRAW = 2, MV_TURN = 3 };

/* ---- a small open-addressing hash map from 64-bit keys to 32-bit values ---- */

typedef struct {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t cap; /* a power of two */
    size_t len;
} Map;

static int map_init(Map *m, size_t cap) {
    m->cap = cap;
    m->len = 0;
    m->keys = malloc(cap * sizeof(uint64_t));
    m->vals = malloc(cap * sizeof(uint32_t));
    m->used = calloc(cap, 1);
    return m->keys && m->vals && m->used ? 0 : -1;
}

static void map_free(Map *m) {
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = NULL;
    m->vals = NULL;
    m->used = NULL;
}

static inline size_t map_slot(const Map *m, uint64_t key) {
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    return (size_t)h & (m->cap - 1);
}

/* Pointer to the value of key, or NULL. */
static inline uint32_t *map_get(const Map *m, uint64_t key) {
    size_t i = map_slot(m, key);
    while (m->used[i]) {
        if (m->keys[i] == key) return &m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

static int map_put(Map *m, uint64_t key, uint32_t val);

static int map_grow(Map *m) {
    Map bigger;
    if (map_init(&bigger, m->cap * 2) < 0) {
        map_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) map_put(&bigger, m->keys[i], m->vals[i]);
    map_free(m);
    *m = bigger;
    return 0;
}

/* Insert or overwrite; -1 when out of memory. */
static int map_put(Map *m, uint64_t key, uint32_t val) {
    if ((m->len + 1) * 2 > m->cap && map_grow(m) < 0) return -1;
    size_t i = map_slot(m, key);
    while (m->used[i]) {
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->len++;
    return 0;
}

/* ---- the search ---- */

typedef struct {
    int8_t a, b, kind;
} Mv;

typedef struct {
    int values[N_PYR];
    uint32_t value_masks[14];
    uint32_t compat[N_PYR];
    uint32_t cover_masks[N_PYR];
    int strict_win, draw_with_waste, pair_with_cover;
    int order; /* strict win and drawn card with waste: the bound is the order search */
    int canonical; /* win lines searched in canonical order (full_win), outside cards at their first places */
    int nout;
    int outv[MAX_OUT];
    uint64_t out_value_masks[14]; /* outside positions holding each value */
    int limit;
    long long nodes, node_limit;
    double deadline;    /* CLOCK_MONOTONIC seconds after which the search stops as undecided; 0: none */
    unsigned long work; /* steps of every search, bounds included: the clock is read every 4096 */
    int timed_out;
    Map lost;    /* (mask, out) -> smallest lost passes * 256 + cursor */
    Map lost_closed; /* the same, lost with the pyramid pairs closed (canonical order only) */
    Map alive;   /* relaxed key -> 1 alive / 0 dead (answers of relaxed_alive) */
    Map relaxed; /* relaxed key -> dead (the _CountSearch's own table) */
    Map most;    /* full key -> most cards removable (most_removed's memo) */
    Map bound;   /* relaxed key -> most cards removable with unlimited turns (the bound's memo) */
    Mv line[MAX_LINE];
    int line_len;
    jmp_buf stop; /* longjmp(stop, 1): node limit; 2: out of memory or line too long */
} Search;

/* Bit operations: the compiler's builtins where GCC or Clang build it, portable C elsewhere (MSVC, other
 * compilers; -DPYRAMIDE_PORTABLE_BITS forces these, and tests/test_solver.py checks them). All take x != 0
 * where they look for a bit. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(PYRAMIDE_PORTABLE_BITS)
static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }
static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int highest64(uint64_t x) { return 63 - __builtin_clzll(x); }
static inline int highest32(uint32_t x) { return 31 - __builtin_clz(x); }
static inline int lowest32(uint32_t x) { return __builtin_ctz(x); }
static inline int lowest64(uint64_t x) { return __builtin_ctzll(x); }
#else
static inline int popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
static inline int popcount32(uint32_t x) { return popcount64(x); }
static inline int highest64(uint64_t x) {
    int n = 0;
    while (x >>= 1) n++;
    return n;
}
static inline int highest32(uint32_t x) { return highest64(x); }
static inline int lowest64(uint64_t x) { return popcount64((x & (0 - x)) - 1); }
static inline int lowest32(uint32_t x) { return lowest64(x); }
#endif

static inline int is_free(const Search *s, uint32_t mask, int i) {
    return (mask >> i & 1) && !(mask & s->cover_masks[i]);
}

static int free_cards(const Search *s, uint32_t mask, int *out) {
    int n = 0;
    for (int i = 0; i < N_PYR; i++)
        if (is_free(s, mask, i)) out[n++] = i;
    return n;
}

static void push(Search *s, int kind, int a, int b) {
    if (s->line_len >= MAX_LINE) longjmp(s->stop, 2);
    s->line[s->line_len].kind = (int8_t)kind;
    s->line[s->line_len].a = (int8_t)a;
    s->line[s->line_len].b = (int8_t)b;
    s->line_len++;
}

static void put(Search *s, Map *m, uint64_t key, uint32_t val) {
    if (map_put(m, key, val) < 0) longjmp(s->stop, 2);
}

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* The wall-clock limit, checked in every search (the bounds too, whose nodes are not counted). */
static inline void watch(Search *s) {
    if (s->deadline > 0 && (++s->work & 4095) == 0 && monotonic_seconds() > s->deadline) {
        s->timed_out = 1;
        longjmp(s->stop, 1);
    }
}

static inline void tick(Search *s) {
    if (++s->nodes > s->node_limit) longjmp(s->stop, 1);
    watch(s);
}

static void outside_counts(const Search *s, uint64_t out, int *counts) {
    for (int v = 0; v < 14; v++) counts[v] = popcount64(out & s->out_value_masks[v]);
}

static void values_left(const Search *s, uint32_t mask, int *left) {
    for (int v = 0; v < 14; v++) left[v] = popcount32(mask & s->value_masks[v]);
}

/* Pyramid pairs, in the order of _Search.pyramid_pairs; returns how many (two spots each). */
static int pyramid_pairs(const Search *s, uint32_t mask, const int *free, int nfree, int *pairs) {
    int n = 0;
    for (int a = 0; a < nfree; a++)
        for (int b = a + 1; b < nfree; b++)
            if (s->values[free[a]] + s->values[free[b]] == 13) {
                pairs[2 * n] = free[a];
                pairs[2 * n + 1] = free[b];
                n++;
            }
    if (s->pair_with_cover) {
        for (int i = 0; i < N_PYR; i++) {
            if (!(mask >> i & 1) || s->values[i] == KING) continue;
            uint32_t cover = mask & s->cover_masks[i];
            if (cover && !(cover & (cover - 1))) {
                int j = highest32(cover);
                if (is_free(s, mask, j) && s->values[i] + s->values[j] == 13) {
                    pairs[2 * n] = i;
                    pairs[2 * n + 1] = j;
                    n++;
                }
            }
        }
    }
    return n;
}

static int orphan(const Search *s, uint32_t mask, const int *counts) {
    uint32_t m = mask & ~s->value_masks[KING];
    while (m) {
        int i = lowest32(m);
        m &= m - 1;
        if (!counts[13 - s->values[i]] && !(mask & s->compat[i])) return 1;
    }
    return 0;
}

static int unmatched(const Search *s, uint32_t mask, const int *outside) {
    int left[14];
    values_left(s, mask, left);
    for (int v = 1; v <= 6; v++) {
        int a = left[v], b = left[13 - v];
        int need = a - outside[13 - v];
        if (b - outside[v] > need) need = b - outside[v];
        if (need < 0) need = 0;
        if (need > (a < b ? a : b)) return 1;
        if (s->strict_win && !s->draw_with_waste && (outside[v] > b || outside[13 - v] > a)) return 1;
    }
    return 0;
}

/* ---- the unlimited-turns bound (_CountSearch.win_line); counts[v] for v = 1..12 ---- */

static uint64_t count_key(uint32_t mask, const int *counts) {
    uint64_t key = mask;
    for (int v = 1; v <= 12; v++) key |= (uint64_t)counts[v] << (28 + 3 * (v - 1));
    return key;
}

static uint32_t remove_kings(const Search *s, uint32_t mask) {
    for (;;) {
        uint32_t kings = 0;
        for (int i = 0; i < N_PYR; i++)
            if (s->values[i] == KING && is_free(s, mask, i)) kings |= 1u << i;
        if (!kings) return mask;
        mask &= ~kings;
    }
}

static int count_win(Search *s, uint32_t mask, int *counts) {
    s->nodes++; /* counted, never stopped: the caller's next tick checks the limit */
    watch(s);
    mask = remove_kings(s, mask);
    uint64_t key = count_key(mask, counts);
    if (mask == 0 && (!s->strict_win || key == 0)) return 1;
    if (map_get(&s->relaxed, key) || mask == 0 || orphan(s, mask, counts) || unmatched(s, mask, counts)) {
        put(s, &s->relaxed, key, 1);
        return 0;
    }
    int free[N_PYR], pairs[2 * MAX_PAIRS];
    int nfree = free_cards(s, mask, free);
    int npairs = pyramid_pairs(s, mask, free, nfree, pairs);
    for (int p = 0; p < npairs; p++)
        if (count_win(s, mask & ~(1u << pairs[2 * p]) & ~(1u << pairs[2 * p + 1]), counts)) return 1;
    for (int f = 0; f < nfree; f++) {
        int partner = 13 - s->values[free[f]];
        if (counts[partner]) {
            counts[partner]--;
            int won = count_win(s, mask & ~(1u << free[f]), counts);
            counts[partner]++;
            if (won) return 1;
        }
    }
    put(s, &s->relaxed, key, 1);
    return 0;
}

/* ---- the unlimited-turns bound under strict win with the drawn card with waste (_OrderSearch) ---- */

static uint64_t order_key(uint32_t mask, uint64_t out) { return (uint64_t)mask << MAX_OUT | out; }

/* Neighbours (p, q) among the outside cards left that sum to 13, in the order of
 * _OrderSearch.neighbour_pairs; returns how many (two positions each). */
static int neighbour_pairs(const Search *s, uint64_t out, int *pairs) {
    int n = 0, last = -1;
    for (int p = 0; p < s->nout; p++) {
        if (!(out >> p & 1)) continue;
        if (last >= 0 && s->outv[last] + s->outv[p] == 13) {
            pairs[2 * n] = last;
            pairs[2 * n + 1] = p;
            n++;
        }
        last = p;
    }
    return n;
}

/* _OrderSearch.expand: free pyramid kings and every outside king go at once */
static void order_expand(const Search *s, uint32_t *mask, uint64_t *out) {
    *mask = remove_kings(s, *mask);
    *out &= ~s->out_value_masks[KING];
}

/* _OrderSearch.pivot: a card all of whose partners left are available now, with the fewest of them.
 * Returns 0 (none), 1 (pyramid card *card) or 2 (outside position *card). */
static int order_pivot(const Search *s, uint32_t mask, uint64_t out, const int *free, int nfree, const int *counts,
                       int *card) {
    int side = 0, best = 0;
    uint32_t free_mask = 0;
    for (int f = 0; f < nfree; f++) free_mask |= 1u << free[f];
    for (int f = 0; f < nfree; f++) {
        int i = free[f], value = s->values[i];
        if (value == KING) continue;
        uint32_t partners = mask & s->compat[i];
        int count = 0, available = 1;
        while (partners) {
            int j = lowest32(partners);
            partners &= partners - 1;
            if ((free_mask >> j & 1) || (s->pair_with_cover && (mask & s->cover_masks[j]) == (1u << i))) {
                count++;
            } else {
                available = 0;
                break;
            }
        }
        if (!available) continue;
        count += counts[13 - value];
        if (!side || count < best) {
            side = 1;
            best = count;
            *card = i;
        }
    }
    int positions[MAX_OUT], n = 0;
    for (int p = 0; p < s->nout; p++)
        if (out >> p & 1) positions[n++] = p;
    for (int k = 0; k < n; k++) {
        int p = positions[k], value = s->outv[p], partner = 13 - value;
        if (value == KING) continue;
        uint32_t pyramid = s->value_masks[partner] & mask;
        if (pyramid & ~free_mask) continue;
        int adjacent = (k > 0 && s->outv[positions[k - 1]] == partner) + (k + 1 < n && s->outv[positions[k + 1]] == partner);
        if (counts[partner] != adjacent) continue;
        int count = popcount32(pyramid) + adjacent;
        if (!side || count < best) {
            side = 2;
            best = count;
            *card = p;
        }
    }
    return side;
}

static int order_win(Search *s, uint32_t mask, uint64_t out) {
    s->nodes++; /* counted, never stopped: the caller's next tick checks the limit */
    watch(s);
    order_expand(s, &mask, &out);
    if (mask == 0 && out == 0) return 1;
    uint64_t key = order_key(mask, out);
    /* positions answered before: by relaxed_alive, or on a winning line found here (_OrderSearch.reaches_win) */
    uint32_t *known = map_get(&s->alive, key);
    if (known) return (int)*known;
    if (map_get(&s->relaxed, key)) return 0;
    int neighbours[2 * MAX_OUT], counts[14];
    int nneighbours = neighbour_pairs(s, out, neighbours);
    outside_counts(s, out, counts);
    if (mask == 0 ? !nneighbours : orphan(s, mask, counts) || unmatched(s, mask, counts)) {
        put(s, &s->relaxed, key, 1);
        return 0;
    }
    int free[N_PYR], pairs[2 * MAX_PAIRS];
    int nfree = free_cards(s, mask, free);
    int npairs = pyramid_pairs(s, mask, free, nfree, pairs);
    int card = -1, side = order_pivot(s, mask, out, free, nfree, counts, &card);
    for (int p = 0; p < npairs; p++) {
        if (side && !(side == 1 && (pairs[2 * p] == card || pairs[2 * p + 1] == card))) continue;
        if (order_win(s, mask & ~(1u << pairs[2 * p]) & ~(1u << pairs[2 * p + 1]), out)) goto won;
    }
    for (int f = 0; f < nfree; f++) {
        if (side == 1 && free[f] != card) continue;
        uint64_t partners = out & s->out_value_masks[13 - s->values[free[f]]];
        for (int p = 0; p < s->nout; p++) {
            if (side == 2 && p != card) continue;
            if ((partners >> p & 1) && order_win(s, mask & ~(1u << free[f]), out & ~(1ULL << p))) goto won;
        }
    }
    for (int k = 0; k < nneighbours; k++) {
        if (side && !(side == 2 && (neighbours[2 * k] == card || neighbours[2 * k + 1] == card))) continue;
        if (order_win(s, mask, out & ~(1ULL << neighbours[2 * k]) & ~(1ULL << neighbours[2 * k + 1]))) goto won;
    }
    put(s, &s->relaxed, key, 1);
    return 0;
won:
    put(s, &s->alive, key, 1);
    return 1;
}

/* counts: outside_counts(out), which the caller has already; the count search reads values 1-12 only */
static int relaxed_alive(Search *s, uint32_t mask, uint64_t out, int *counts) {
    uint64_t key = s->order ? order_key(mask, out) : count_key(mask, counts);
    uint32_t *known = map_get(&s->alive, key);
    if (known) return (int)*known;
    int alive = s->order ? order_win(s, mask, out) : count_win(s, mask, counts);
    put(s, &s->alive, key, (uint32_t)alive);
    return alive;
}

/* ---- the proofs of the last pass ---- */

static uint64_t below_cursor(int cursor) { return (1ULL << cursor) - 1; /* cursor <= MAX_OUT */ }

/* _FullSearch.stuck_in_waste: in the last pass with the drawn card, the highest waste card that can never go, or -1 */
static int stuck_in_waste(const Search *s, uint32_t mask, uint64_t out, int cursor) {
    int waste[MAX_OUT], n = 0, stock[14];
    for (int p = 0; p < cursor; p++)
        if (out >> p & 1) waste[n++] = p;
    outside_counts(s, out & ~below_cursor(cursor), stock);
    for (int k = n - 1; k >= 0; k--) {
        int partner = 13 - s->outv[waste[k]];
        if (!partner || (mask & s->value_masks[partner]) || stock[partner]) continue;
        if (k > 0 && s->outv[waste[k - 1]] == partner) continue;
        if (k + 1 < n && s->outv[waste[k + 1]] == partner) continue;
        return waste[k];
    }
    return -1;
}

static uint64_t reachable(const Search *s, uint32_t mask, uint64_t out, int cursor, int passes) {
    if (passes < s->limit) return out;
    if (s->draw_with_waste) {
        int stuck = stuck_in_waste(s, mask, out, cursor);
        return stuck < 0 ? out : out & ~below_cursor(stuck + 1);
    }
    uint64_t below = out & below_cursor(cursor);
    uint64_t keep = out & ~below;
    while (below) {
        int top = highest64(below);
        int value = s->outv[top];
        if (value != KING && !(mask & s->value_masks[13 - value])) break;
        keep |= 1ULL << top;
        below &= ~(1ULL << top);
    }
    return keep;
}

static int stack_unmatched(const Search *s, uint32_t mask, uint64_t out, int cursor, int passes) {
    if (s->draw_with_waste || s->strict_win || passes < s->limit) return 0;
    int left[14], stock[14], low[7], high[7], taken[14] = {0};
    values_left(s, mask, left);
    outside_counts(s, out & ~below_cursor(cursor), stock);
    for (int v = 1; v <= 6; v++) {
        int diff = left[v] - left[13 - v];
        low[v] = diff - stock[13 - v];
        high[v] = diff + stock[v];
    }
    uint64_t waste = out & below_cursor(cursor);
    for (;;) {
        int fits = 1;
        for (int v = 1; v <= 6; v++) {
            int w = 13 - v;
            if (taken[w] > left[v] || taken[v] > left[w]) return 1;
            int d = taken[w] - taken[v];
            if (!(low[v] <= d && d <= high[v])) {
                fits = 0;
                break;
            }
        }
        if (fits) return 0;
        if (!waste) return 1;
        int top = highest64(waste);
        waste ^= 1ULL << top;
        taken[s->outv[top]]++;
    }
}

typedef struct {
    int a[7], b[7], low[7], high[7], ok[7];
    int wrong, status;
} Balance;

/* _Balance(left, _NONE, spare) */
static void balance_init(Balance *bal, const int *left, const int *spare) {
    bal->wrong = 0;
    for (int v = 1; v <= 6; v++) {
        bal->a[v] = left[v];
        bal->b[v] = left[13 - v];
        bal->low[v] = -spare[v];
        bal->high[v] = spare[13 - v];
        int d = bal->a[v] - bal->b[v];
        bal->ok[v] = bal->low[v] <= d && d <= bal->high[v];
        if (!bal->ok[v]) bal->wrong++;
    }
    bal->status = bal->wrong ? 0 : 1;
}

static int balance_take(Balance *bal, int value) {
    if (bal->status < 0 || !(0 < value && value < 13)) return bal->status;
    int v;
    if (value <= 6) {
        v = value;
        bal->b[v]--;
    } else {
        v = 13 - value;
        bal->a[v]--;
    }
    int a = bal->a[v], b = bal->b[v];
    if (a < 0 || b < 0) {
        bal->status = -1;
        return -1;
    }
    int ok = bal->low[v] <= a - b && a - b <= bal->high[v];
    if (ok != bal->ok[v]) {
        bal->ok[v] = ok;
        bal->wrong += ok ? -1 : 1;
    }
    bal->status = bal->wrong ? 0 : 1;
    return bal->status;
}

/* _fits_with, on a copy of bal */
static int fits_with(Balance bal, const int *cards, int n) {
    if (bal.status > 0) return 1;
    for (int k = 0; k < n; k++) {
        int status = balance_take(&bal, cards[k]);
        if (status) return status > 0;
    }
    return 0;
}

static int apex_unmatched(const Search *s, uint32_t mask, uint64_t out, int cursor, int passes) {
    if (s->draw_with_waste || s->strict_win || s->pair_with_cover || passes < s->limit || !(mask & 1)) return 0;
    int partners[2], npartners;
    if (s->values[0] != KING) {
        partners[0] = 13 - s->values[0];
        npartners = 1;
    } else {
        int last[2], nlast = 0;
        for (int i = 1; i <= 2; i++)
            if (mask >> i & 1) last[nlast++] = i;
        if (!nlast) return 0;
        for (int k = 0; k < nlast; k++)
            if (s->values[last[k]] == KING) return 0;
        if (nlast == 2 && s->values[1] + s->values[2] == 13) return 0;
        npartners = nlast;
        for (int k = 0; k < nlast; k++) partners[k] = 13 - s->values[last[k]];
    }
    int left[14], none[14] = {0};
    values_left(s, mask, left);
    int waste[MAX_OUT + 1], nwaste = 0, stock[MAX_OUT], nstock = 0;
    waste[nwaste++] = 0; /* [0, *waste]: the cards top first, after a leading "nothing" */
    for (int p = cursor - 1; p >= 0; p--)
        if (out >> p & 1) waste[nwaste++] = s->outv[p];
    for (int p = cursor; p < s->nout; p++)
        if (out >> p & 1) stock[nstock++] = s->outv[p];
    Balance dug;
    balance_init(&dug, left, none);
    for (int k = 1; k < nwaste; k++) {
        int value = waste[k];
        if (balance_take(&dug, value) < 0) break;
        int partner = value == partners[0] || (npartners > 1 && value == partners[1]);
        if (partner && fits_with(dug, stock, nstock)) return 0;
    }
    int before[14] = {0};
    for (int j = 0; j < nstock; j++) {
        int value = stock[j];
        if (value == partners[0] || (npartners > 1 && value == partners[1])) {
            Balance base;
            balance_init(&base, left, before);
            balance_take(&base, value);
            for (int k = 0; k < nwaste; k++) {
                if (balance_take(&base, waste[k]) < 0) break;
                if (fits_with(base, stock + j + 1, nstock - j - 1)) return 0;
            }
        }
        before[value]++;
    }
    return 1;
}

/* ---- the limited-passes search (_FullSearch) ---- */

typedef struct {
    uint32_t mask;
    uint64_t out;
    int cursor, passes;
} State;

static int waste_top(uint64_t out, int cursor) {
    uint64_t below = out & below_cursor(cursor);
    return below ? highest64(below) : -1;
}

static int waste_under(uint64_t out, int cursor) {
    int top = waste_top(out, cursor);
    return top >= 0 ? waste_top(out & ~(1ULL << top), cursor) : -1;
}

/* _FullSearch.only_partner_pair: 1 and (i, partner) when found */
static int only_partner_pair(const Search *s, uint32_t mask, uint64_t out, int top, int *pi, int *pj) {
    int free[N_PYR], counts[14];
    int nfree = free_cards(s, mask, free);
    outside_counts(s, out, counts);
    for (int f = 0; f < nfree; f++) {
        int i = free[f], value = s->values[i];
        if (value == KING) continue;
        uint32_t partners = mask & s->compat[i];
        if (popcount32(partners) + counts[13 - value] != 1) continue;
        if (partners) {
            int j = highest32(partners);
            if (is_free(s, mask, j)) {
                *pi = i < j ? i : j;
                *pj = i < j ? j : i;
                return 1;
            }
        } else if (top >= 0 && s->outv[top] == 13 - value) {
            *pi = i;
            *pj = WASTE_SPOT;
            return 1;
        }
    }
    return 0;
}

/* _FullSearch.first_places: the same outside cards by value, in order, at the first positions holding them */
static void first_places(const Search *s, uint64_t *out, int *cursor) {
    uint64_t places = 0;
    int first = 0, new_cursor = -1;
    for (int q = 0; q < s->nout; q++) {
        if (q == *cursor) new_cursor = first;
        if (!(*out >> q & 1)) continue;
        while (s->outv[first] != s->outv[q]) first++;
        places |= 1ULL << first;
        first++;
    }
    *out = places;
    *cursor = new_cursor < 0 ? first : new_cursor;
}

/* _FullSearch.top_only_partner: the pyramid card, or UNDER_SPOT, that is the waste top's one possible
 * partner left and available now; -1 when there is none */
static int top_only_partner(const Search *s, uint32_t mask, uint64_t out, int cursor) {
    int top = waste_top(out, cursor), under = waste_under(out, cursor);
    if (top < 0) return -1;
    int partner = 13 - s->outv[top];
    uint32_t pyramid = mask & s->value_masks[partner];
    int below_ok = under >= 0 && s->outv[under] == partner;
    if ((out & ~below_cursor(cursor) & s->out_value_masks[partner]) || popcount32(pyramid) + below_ok != 1) return -1;
    if (below_ok) return UNDER_SPOT;
    int i = highest32(pyramid);
    return is_free(s, mask, i) ? i : -1;
}

/* _FullSearch.expand; for_win: searching for a win (the waste top with its only partner is forced too) */
static void expand(Search *s, State *st, int for_win) {
    uint32_t kings = s->value_masks[KING];
    for (;;) {
        uint32_t free_kings = 0;
        for (int i = 0; i < N_PYR; i++)
            if ((kings >> i & 1) && is_free(s, st->mask, i)) free_kings |= 1u << i;
        int top = waste_top(st->out, st->cursor);
        if (free_kings) {
            for (int i = 0; i < N_PYR; i++)
                if (free_kings >> i & 1) push(s, MV_KING, i, -1);
            st->mask &= ~free_kings;
        } else if (top >= 0 && s->outv[top] == KING) {
            st->out &= ~(1ULL << top);
            push(s, MV_KING, WASTE_SPOT, -1);
        } else {
            if (!s->strict_win) st->out = reachable(s, st->mask, st->out, st->cursor, st->passes);
            int i, partner;
            if (!only_partner_pair(s, st->mask, st->out, top, &i, &partner)) {
                int only = for_win && s->order && st->passes == s->limit ? top_only_partner(s, st->mask, st->out, st->cursor) : -1;
                if (only >= 0) {
                    st->out &= ~(1ULL << top);
                    if (only == UNDER_SPOT) {
                        st->out &= ~(1ULL << waste_top(st->out, st->cursor));
                        push(s, MV_PAIR, WASTE_SPOT, UNDER_SPOT);
                    } else {
                        st->mask &= ~(1u << only);
                        push(s, MV_PAIR, only, WASTE_SPOT);
                    }
                    continue;
                }
                if (s->canonical) first_places(s, &st->out, &st->cursor);
                return;
            }
            st->mask &= ~(1u << i);
            if (partner == WASTE_SPOT)
                st->out &= ~(1ULL << top);
            else
                st->mask &= ~(1u << partner);
            push(s, MV_PAIR, i, partner);
        }
    }
}

static uint64_t lost_key(const State *st) { return (uint64_t)st->mask << MAX_OUT | st->out; }
static uint64_t full_key(const State *st) {
    return lost_key(st) | (uint64_t)st->cursor << (28 + MAX_OUT) | (uint64_t)st->passes << (33 + MAX_OUT);
}
static uint32_t lost_rank(const State *st) { return (uint32_t)st->passes << 8 | (uint32_t)st->cursor; }

static int is_win(const Search *s, const State *st) { return st->mask == 0 && (!s->strict_win || st->out == 0); }

static int hopeless(Search *s, const State *st) {
    if (st->mask == 0) return !s->draw_with_waste;
    if (s->strict_win && reachable(s, st->mask, st->out, st->cursor, st->passes) != st->out) return 1;
    int counts[14];
    outside_counts(s, st->out, counts);
    if (orphan(s, st->mask, counts) || unmatched(s, st->mask, counts)) return 1;
    if (stack_unmatched(s, st->mask, st->out, st->cursor, st->passes)) return 1;
    if (apex_unmatched(s, st->mask, st->out, st->cursor, st->passes)) return 1;
    return !relaxed_alive(s, st->mask, st->out, counts);
}

static void mark_in(Search *s, Map *table, const State *st) {
    uint64_t key = lost_key(st);
    uint32_t *lost = map_get(table, key);
    if (!lost || lost_rank(st) < *lost) put(s, table, key, lost_rank(st));
}

static void mark_lost(Search *s, const State *st) { mark_in(s, &s->lost, st); }

static int known_in(const Map *table, const State *st) {
    uint32_t *lost = map_get(table, lost_key(st));
    return lost && *lost <= lost_rank(st);
}

/* _FullSearch.win_line. open: whether pyramid pairs may be played (always, outside the canonical order
 * of strict win with the drawn card; there, only until the next move of the stock or waste alone). */
static int full_win(Search *s, State st, int open) {
    tick(s);
    int saved = s->line_len;
    expand(s, &st, 1);
    if (is_win(s, &st)) return 1;
    /* a forced pyramid card with the waste top is such a move too: pyramid pairs open after it */
    for (int k = saved; k < s->line_len && !open; k++)
        if (s->line[k].kind == MV_PAIR && s->line[k].b == WASTE_SPOT && s->line[k].a < N_PYR) open = 1;
    if (known_in(&s->lost, &st) || (!open && known_in(&s->lost_closed, &st))) {
        s->line_len = saved;
        return 0;
    }
    if (hopeless(s, &st)) {
        mark_lost(s, &st);
        s->line_len = saved;
        return 0;
    }
    int free[N_PYR], pairs[2 * MAX_PAIRS];
    int nfree = free_cards(s, st.mask, free);
    int npairs = open ? pyramid_pairs(s, st.mask, free, nfree, pairs) : 0;
    int base = s->line_len;
    int stock_open = !s->canonical; /* pyramid pairs after a move of the stock or waste alone */
    for (int p = 0; p < npairs; p++) {
        int i = pairs[2 * p], j = pairs[2 * p + 1];
        push(s, MV_PAIR, i, j);
        State child = {st.mask & ~(1u << i) & ~(1u << j), st.out, st.cursor, st.passes};
        if (full_win(s, child, 1)) return 1;
        s->line_len = base;
    }
    int top = waste_top(st.out, st.cursor);
    if (top >= 0) {
        for (int f = 0; f < nfree; f++) {
            int i = free[f];
            if (s->values[i] + s->outv[top] == 13) {
                push(s, MV_PAIR, i, WASTE_SPOT);
                State child = {st.mask & ~(1u << i), st.out & ~(1ULL << top), st.cursor, st.passes};
                if (full_win(s, child, 1)) return 1;
                s->line_len = base;
            }
        }
        int under = waste_under(st.out, st.cursor);
        if (s->draw_with_waste && under >= 0 && s->outv[top] + s->outv[under] == 13) {
            push(s, MV_PAIR, WASTE_SPOT, UNDER_SPOT);
            State child = {st.mask, st.out & ~(1ULL << top) & ~(1ULL << under), st.cursor, st.passes};
            if (full_win(s, child, stock_open)) return 1;
            s->line_len = base;
        }
    }
    uint64_t ahead = st.out >> st.cursor;
    if (ahead) {
        push(s, MV_DRAW, -1, -1);
        State child = {st.mask, st.out, st.cursor + lowest64(ahead) + 1, st.passes};
        if (full_win(s, child, stock_open)) return 1;
        s->line_len = base;
    } else if (st.out && st.passes < s->limit) {
        push(s, MV_TURN, -1, -1);
        State child = {st.mask, st.out, 0, st.passes + 1};
        if (full_win(s, child, stock_open)) return 1;
        s->line_len = base;
    }
    mark_in(s, open ? &s->lost : &s->lost_closed, &st);
    s->line_len = saved;
    return 0;
}

/* ---- the most cards removable (_Search.most_removed, for both searches) ---- */

static int count_most(Search *s, uint32_t mask, int *counts) {
    /* the bound's nodes are not counted, as in Python (the relaxed search has no limit there) */
    watch(s);
    uint32_t mask0 = mask;
    mask = remove_kings(s, mask);
    int gained = popcount32(mask0 ^ mask);
    uint64_t key = count_key(mask, counts);
    uint32_t *known = map_get(&s->bound, key);
    if (known) return gained + (int)*known;
    int best = 0;
    if (mask) {
        int ceiling = popcount32(mask);
        int free[N_PYR], pairs[2 * MAX_PAIRS];
        int nfree = free_cards(s, mask, free);
        int npairs = pyramid_pairs(s, mask, free, nfree, pairs);
        for (int p = 0; p < npairs && best < ceiling; p++) {
            int got = 2 + count_most(s, mask & ~(1u << pairs[2 * p]) & ~(1u << pairs[2 * p + 1]), counts);
            if (got > best) best = got;
        }
        for (int f = 0; f < nfree && best < ceiling; f++) {
            int partner = 13 - s->values[free[f]];
            if (counts[partner]) {
                counts[partner]--;
                int got = 1 + count_most(s, mask & ~(1u << free[f]), counts);
                counts[partner]++;
                if (got > best) best = got;
            }
        }
    }
    put(s, &s->bound, key, (uint32_t)best);
    return gained + best;
}

static int order_most(Search *s, uint32_t mask, uint64_t out) {
    /* the bound's nodes are not counted, as in Python (the relaxed search has no limit there) */
    watch(s);
    uint32_t mask0 = mask;
    order_expand(s, &mask, &out);
    int gained = popcount32(mask0 ^ mask);
    uint64_t key = order_key(mask, out);
    uint32_t *known = map_get(&s->bound, key);
    if (known) return gained + (int)*known;
    int best = 0;
    if (mask) {
        int ceiling = popcount32(mask);
        int free[N_PYR], pairs[2 * MAX_PAIRS], neighbours[2 * MAX_OUT];
        int nfree = free_cards(s, mask, free);
        int npairs = pyramid_pairs(s, mask, free, nfree, pairs);
        for (int p = 0; p < npairs && best < ceiling; p++) {
            int got = 2 + order_most(s, mask & ~(1u << pairs[2 * p]) & ~(1u << pairs[2 * p + 1]), out);
            if (got > best) best = got;
        }
        for (int f = 0; f < nfree; f++) {
            uint64_t partners = out & s->out_value_masks[13 - s->values[free[f]]];
            for (int p = 0; p < s->nout && best < ceiling; p++) {
                if (partners >> p & 1) {
                    int got = 1 + order_most(s, mask & ~(1u << free[f]), out & ~(1ULL << p));
                    if (got > best) best = got;
                }
            }
        }
        int nneighbours = neighbour_pairs(s, out, neighbours);
        for (int k = 0; k < nneighbours && best < ceiling; k++) {
            uint64_t rest = out & ~(1ULL << neighbours[2 * k]) & ~(1ULL << neighbours[2 * k + 1]);
            int got = order_most(s, mask, rest);
            if (got > best) best = got;
        }
    }
    put(s, &s->bound, key, (uint32_t)best);
    return gained + best;
}

static int full_most(Search *s, State st) {
    tick(s);
    uint32_t mask0 = st.mask;
    expand(s, &st, 0);
    s->line_len = 0; /* the forced moves are not wanted here */
    int gained = popcount32(mask0 ^ st.mask);
    uint64_t key = full_key(&st);
    uint32_t *known = map_get(&s->most, key);
    if (known) return gained + (int)*known;
    int best = 0;
    if (st.mask) {
        int counts[14];
        if (!s->order) outside_counts(s, st.out, counts);
        int ceiling = s->order ? order_most(s, st.mask, st.out) : count_most(s, st.mask, counts);
        int free[N_PYR], pairs[2 * MAX_PAIRS];
        int nfree = free_cards(s, st.mask, free);
        int npairs = pyramid_pairs(s, st.mask, free, nfree, pairs);
        for (int p = 0; p < npairs && best < ceiling; p++) {
            int i = pairs[2 * p], j = pairs[2 * p + 1];
            State child = {st.mask & ~(1u << i) & ~(1u << j), st.out, st.cursor, st.passes};
            int got = 2 + full_most(s, child);
            if (got > best) best = got;
        }
        int top = waste_top(st.out, st.cursor);
        if (top >= 0) {
            for (int f = 0; f < nfree && best < ceiling; f++) {
                int i = free[f];
                if (s->values[i] + s->outv[top] == 13) {
                    State child = {st.mask & ~(1u << i), st.out & ~(1ULL << top), st.cursor, st.passes};
                    int got = 1 + full_most(s, child);
                    if (got > best) best = got;
                }
            }
            int under = waste_under(st.out, st.cursor);
            if (s->draw_with_waste && under >= 0 && s->outv[top] + s->outv[under] == 13 && best < ceiling) {
                State child = {st.mask, st.out & ~(1ULL << top) & ~(1ULL << under), st.cursor, st.passes};
                int got = full_most(s, child);
                if (got > best) best = got;
            }
        }
        uint64_t ahead = st.out >> st.cursor;
        if (best < ceiling) {
            if (ahead) {
                State child = {st.mask, st.out, st.cursor + lowest64(ahead) + 1, st.passes};
                int got = full_most(s, child);
                if (got > best) best = got;
            } else if (st.out && st.passes < s->limit) {
                State child = {st.mask, st.out, 0, st.passes + 1};
                int got = full_most(s, child);
                if (got > best) best = got;
            }
        }
    }
    put(s, &s->most, key, (uint32_t)best);
    return gained + best;
}

/* ---- the Python entry points ---- */

static int read_ints(PyObject *seq, int *dst, Py_ssize_t want, Py_ssize_t max, Py_ssize_t *got, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if ((want >= 0 && n != want) || n > max) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: wrong length %zd", what, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        dst[k] = (int)v;
    }
    Py_DECREF(fast);
    if (got) *got = n;
    return 0;
}

static void free_search(Search *s) {
    map_free(&s->lost);
    map_free(&s->lost_closed);
    map_free(&s->alive);
    map_free(&s->relaxed);
    map_free(&s->most);
    map_free(&s->bound);
    free(s);
}

/* The search described by the arguments, and its start; NULL with an exception set when they are bad. */
static Search *parse_search(PyObject *args, State *start) {
    PyObject *values, *value_masks, *compat, *cover_masks, *outside;
    int strict_win, draw_with_waste, pair_with_cover, cursor, passes, limit;
    unsigned long mask;
    long long node_limit;
    double budget = 0.0; /* seconds the search may take; 0: no wall-clock limit */
    if (!PyArg_ParseTuple(args, "OOOOpppOkiiiL|d", &values, &value_masks, &compat, &cover_masks, &strict_win,
                          &draw_with_waste, &pair_with_cover, &outside, &mask, &cursor, &passes, &limit, &node_limit,
                          &budget))
        return NULL;
    if (!(budget >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "budget: must be a number of seconds >= 0");
        return NULL;
    }
    Search *s = calloc(1, sizeof(Search));
    if (!s) return (Search *)PyErr_NoMemory();
    int tmp[N_PYR];
    Py_ssize_t nout = 0;
    if (read_ints(values, s->values, N_PYR, N_PYR, NULL, "values") < 0) goto fail;
    if (read_ints(value_masks, tmp, 14, 14, NULL, "value_masks") < 0) goto fail;
    for (int v = 0; v < 14; v++) s->value_masks[v] = (uint32_t)tmp[v];
    if (read_ints(compat, tmp, N_PYR, N_PYR, NULL, "compat") < 0) goto fail;
    for (int i = 0; i < N_PYR; i++) s->compat[i] = (uint32_t)tmp[i];
    if (read_ints(cover_masks, tmp, N_PYR, N_PYR, NULL, "cover_masks") < 0) goto fail;
    for (int i = 0; i < N_PYR; i++) s->cover_masks[i] = (uint32_t)tmp[i];
    if (read_ints(outside, s->outv, -1, MAX_OUT, &nout, "outside") < 0) goto fail;
    s->nout = (int)nout;
    for (int p = 0; p < s->nout; p++) {
        if (s->outv[p] < 1 || s->outv[p] > 13) {
            PyErr_Format(PyExc_ValueError, "outside: bad value %d", s->outv[p]);
            goto fail;
        }
        s->out_value_masks[s->outv[p]] |= 1ULL << p;
    }
    for (int i = 0; i < N_PYR; i++) {
        if (s->values[i] < 0 || s->values[i] > 13) {
            PyErr_Format(PyExc_ValueError, "values: bad value %d", s->values[i]);
            goto fail;
        }
    }
    if (cursor < 0 || cursor > s->nout || limit < 0 || limit > MAX_PASSES || passes < 0 || passes > limit ||
        mask >> N_PYR) {
        PyErr_Format(PyExc_ValueError, "bad cursor, passes, limit or mask");
        goto fail;
    }
    /* The pyramid's geometry and the value masks are fixed by the values: anything else could make
     * more cards free at once than the move arrays hold, so it is refused, never trusted. */
    for (int r = 0, i = 0; r < 7; r++) {
        for (int c = 0; c <= r; c++, i++) {
            uint32_t expect = r < 6 ? (1u << (i + r + 1)) | (1u << (i + r + 2)) : 0;
            if (s->cover_masks[i] != expect) {
                PyErr_Format(PyExc_ValueError, "cover_masks: not the pyramid's geometry at %d", i);
                goto fail;
            }
        }
    }
    for (int v = 0; v < 14; v++) {
        uint32_t expect = 0;
        for (int i = 0; i < N_PYR; i++)
            if (v && s->values[i] == v) expect |= 1u << i;
        if (s->value_masks[v] != expect) {
            PyErr_Format(PyExc_ValueError, "value_masks: do not match the values at %d", v);
            goto fail;
        }
    }
    for (int i = 0; i < N_PYR; i++) {
        if ((mask >> i & 1) && !s->values[i]) {
            PyErr_Format(PyExc_ValueError, "mask: card %d has no value", i);
            goto fail;
        }
        if (s->compat[i] >> N_PYR || s->compat[i] >> i & 1) {
            PyErr_Format(PyExc_ValueError, "compat: bad mask at %d", i);
            goto fail;
        }
    }
    s->order = strict_win && draw_with_waste;
    s->canonical = 1;
    s->strict_win = strict_win;
    s->draw_with_waste = draw_with_waste;
    s->pair_with_cover = pair_with_cover;
    s->limit = limit;
    s->node_limit = node_limit;
    s->deadline = budget > 0 ? monotonic_seconds() + budget : 0.0;
    start->mask = (uint32_t)mask;
    start->out = s->nout ? (~0ULL >> (64 - s->nout)) : 0;
    start->cursor = cursor;
    start->passes = passes;
    const size_t cap = 1 << 12;
    if (map_init(&s->lost, cap) < 0 || map_init(&s->lost_closed, cap) < 0 || map_init(&s->alive, cap) < 0 || map_init(&s->relaxed, cap) < 0 ||
        map_init(&s->most, cap) < 0 || map_init(&s->bound, cap) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    return s;
fail:
    free_search(s);
    return NULL;
}

enum { RUN_SOLVE, RUN_MOST };

/* Runs one search without the GIL: its status (0 impossible, 1 won, 2 node limit) or the most
 * cards removable, or -2 when memory ran out or the line grew too long. */
static int run(Search *s, State start, int what) {
    volatile int result = -2;
    Py_BEGIN_ALLOW_THREADS
    switch (setjmp(s->stop)) {
    case 0:
        result = what == RUN_SOLVE ? full_win(s, start, 1) : full_most(s, start);
        break;
    case 1:
        result = 2; /* node limit */
        break;
    default:
        result = -2;
    }
    Py_END_ALLOW_THREADS
    if (result == -2) PyErr_SetString(PyExc_MemoryError, "solver: out of memory or line too long");
    return result;
}

static PyObject *fastsolve_solve(PyObject *self, PyObject *args) {
    (void)self;
    State start;
    Search *s = parse_search(args, &start);
    if (!s) return NULL;
    int status = run(s, start, RUN_SOLVE);
    PyObject *result = NULL;
    if (status != -2) {
        int n = status == 1 ? s->line_len : 0;
        PyObject *line = PyList_New(n);
        for (int k = 0; line && k < n; k++) {
            PyObject *move = Py_BuildValue("(iii)", s->line[k].kind, s->line[k].a, s->line[k].b);
            if (!move) {
                Py_CLEAR(line);
                break;
            }
            PyList_SET_ITEM(line, k, move);
        }
        if (line) result = Py_BuildValue("(iLN)", status, s->nodes, line);
    }
    free_search(s);
    return result;
}

static PyObject *fastsolve_most(PyObject *self, PyObject *args) {
    (void)self;
    State start;
    Search *s = parse_search(args, &start);
    if (!s) return NULL;
    int most = run(s, start, RUN_MOST);
    long long nodes = s->nodes;
    int stopped = nodes > s->node_limit || s->timed_out;
    free_search(s);
    if (most == -2) return NULL;
    return Py_BuildValue("(iLi)", stopped ? 2 : 0, nodes, stopped ? -1 : most);
}

static PyMethodDef methods[] = {
    {"solve", fastsolve_solve, METH_VARARGS, "Solve a limited-passes position (see the module source)."},
    {"most", fastsolve_most, METH_VARARGS, "Most pyramid cards removable (see the module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastsolve", "Compiled limited-passes search of pyramide.solver.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastsolve(void) { return PyModule_Create(&module); }
