/*
 * data/book.h -- opening books: a graph of positions with book moves, game counts, search
 * values and their negamax back-up; the book file, the expansion journal, probing, walks
 * and opening lines.
 *
 * Contract
 * --------
 * NODES.  A node is one position (games/game.h: any position of the game interface, so a
 * Gobs node may be in the middle of a turn).  It is identified by its KEY, the Zobrist hash
 * p->hash, and its CHECK, bk_check(p): XXH64 of the position's bytes written field by
 * field (board, side to move, mid-turn state, turns played; not the turn limit, the result
 * or the hash).  Every lookup compares both, so a Zobrist collision can never return
 * another position's moves.  Two move orders that reach one position reach one node.
 * The check covers the turn count, so every book move leads from (turn, in_turn) to a
 * strictly greater pair: the graph is acyclic by construction (a board met again after
 * more turns is another node), which keeps the back-up well defined.
 *
 * EDGES (book moves).  An edge is an action of the node's side to move (the MOVER) with
 * the games that played it, W/D/L from the mover's view, and either a child node or, for
 * an action that ends the game, its result.  Edges of a node are sorted by action.
 *
 * VALUES are in [-1, 1] for the side to move at the node (+1 a win).  Per node:
 *   leaf   the drop-out value: the search's value of the best action NOT in the book
 *          (Lincke's drop-out expansion, Edax's book), with that action, the playouts that
 *          produced it and its policy prior; or "full" when every legal action is a book
 *          move; or none (not searched yet: a book built from logs).
 *   value  the negamax value, derived (bk_update): the maximum of the leaf value and the
 *          edge values.  An edge's value is its child's value (negated when the child's
 *          side to move is the other player; a Gobs jump leg keeps the same player), the
 *          exact result of a game-ending action, or, when the child has no value yet, the
 *          mover's mean score of the games that played it ((W - L) / games).  A node with
 *          none of these has no value (NAN).
 *   below  the longest chain of book edges below the node, in actions (derived).
 * Edge values, node values, below and one parent per node are derived data: bk_update()
 * recomputes them after any change, and bk_decode() on load; they are not stored.
 *
 * FILE (docs/FORMATS.md, "Opening books").  A fixed header (magic, version, game and rule
 * set, the key-table checksum, counts, the payload's stored and raw sizes), a payload
 * (provenance text, then the nodes sorted by (key, check) with their edges; zstd when
 * that is smaller) and an XXH64 of every byte before it.  Written atomically.  The key-
 * table checksum (bk_table_sum) fingerprints this engine's Zobrist keys, check keys and
 * action coding; a book made by an engine whose keys differ is refused, never misread.
 * The reader takes untrusted bytes: any damage gives a one-line error, never a crash,
 * a hang or an unbounded allocation.  It checks the structure too (sorted unique nodes,
 * child indices in range, edges going forward, every node reachable from the start).
 *
 * JOURNAL.  `book expand` appends one record per batch of search results to BOOK.journal
 * (checksummed, one write + fsync) before it applies the batch, and rewrites the book
 * atomically at checkpoints.  The book stores how many batches it holds and a LINEAGE,
 * a hash chained over every batch record applied since the book was built, so a journal
 * is matched to the book it continues exactly (bk_journal_*).  Records are
 * self-contained: applying one needs no search and no position, only the book.
 *
 * Every function that can fail returns a negative gk_status_t (common/status.h) with a
 * one-line reason in err.  Nothing here prints or keeps global state; one book may be
 * read from any number of threads at once (probe, walk, describe) while nobody changes it.
 */
#ifndef GK_BOOK_H
#define GK_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/strbuf.h"
#include "../games/game.h"
#include "gamelog.h"

#define BK_VERSION      1
#define BK_MAX_NODES    (1u << 26)   /* most nodes a book may hold */
#define BK_MAX_FILE     (1ull << 32) /* largest book file read */
#define BK_PROV_MAX     65536        /* provenance text, bytes */
#define BK_JOURNAL_EXT  ".journal"
#define BK_MAX_BATCH    4096 /* most entries in one journaled batch */
#define BK_HEADER_BYTES 56

enum { BK_LEAF_NONE = 0, BK_LEAF_VALUE = 1, BK_LEAF_FULL = 2 };
/* What an edge leads to: a child node, or the result of a game-ending action for the mover. */
enum { BK_CHILD_NODE = 0, BK_TERM_WIN = 1, BK_TERM_DRAW = 2, BK_TERM_LOSS = 3 };

typedef struct bk_leaf {
    uint8_t kind;     /* BK_LEAF_* */
    uint8_t pad;      /* zero */
    uint16_t prior;   /* policy prior of `move` * 65535 (0: unknown) */
    gk_action_t move; /* BK_LEAF_VALUE: the best action outside the book */
    float value;      /* BK_LEAF_VALUE: its value for the side to move, in [-1, 1] */
    uint32_t budget;  /* BK_LEAF_VALUE: playouts of the search that found it */
} bk_leaf_t;

typedef struct bk_edge {
    gk_action_t action;
    uint32_t child;   /* node index when term == BK_CHILD_NODE */
    uint32_t w, d, l; /* games won, drawn, lost by the mover after this action */
    uint16_t prior;   /* policy prior * 65535 when known (edges added by expansion), else 0 */
    uint8_t term;     /* BK_CHILD_NODE or BK_TERM_* */
    uint8_t pad;
    float value; /* derived: for the mover, NAN when unknown */
} bk_edge_t;

/* Identity of a position as the book stores it. */
typedef struct bk_id {
    uint64_t key, check;
    uint16_t turn;   /* turns completed */
    uint8_t in_turn; /* actions played in the current turn */
    uint8_t stm;     /* side to move */
} bk_id_t;

typedef struct bk_node {
    uint64_t key, check;
    uint32_t first;        /* edges book->edge[first .. first + nedges) */
    uint16_t nedges, ecap; /* ecap: room at `first` */
    uint16_t turn;
    uint8_t in_turn, stm;
    bk_leaf_t leaf;
    float value;    /* derived */
    uint16_t below; /* derived */
    uint16_t pad;
} bk_node_t;

typedef struct bk_book {
    gk_rules_t rules; /* game and variant of the book; turn_limit used to replay */
    uint32_t nnodes, node_cap;
    bk_node_t *node;
    uint32_t edge_used, edge_cap; /* the edge pool (blocks of nodes, with holes until saved) */
    bk_edge_t *edge;
    uint64_t nedges; /* edges of all nodes */
    uint64_t *slot;  /* hash index: (key >> 32) << 32 | (index + 1), 0 = empty */
    uint64_t slot_mask;
    uint32_t root;     /* node of the start position */
    uint64_t batches;  /* expansion batches applied (journal records) */
    uint64_t lineage;  /* hash chain over the applied batches (JOURNAL above) */
    uint64_t file_sum; /* the XXH64 trailer of the file it was loaded from (0: built) */
    uint64_t file_bytes;
    char *prov; /* provenance: "name value\n" lines, NUL-terminated */
    size_t prov_len;
    uint32_t *parent; /* derived: one parent of each node (the root: itself) */
    uint32_t *order;  /* derived: nodes by (turn, in_turn), children after parents */
} bk_book_t;

/* ---- identity ---- */

uint64_t bk_check(const gk_pos_t *p);
void bk_id_of(const gk_pos_t *p, bk_id_t *id);
/* The key-table checksum of rule set r (a function of this engine only). */
uint64_t bk_table_sum(const gk_rules_t *r);

/* ---- building ---- */

/* An empty book of rule set r holding the start position (no edges, no leaf). */
int bk_init(bk_book_t *b, const gk_rules_t *r, char *err, size_t errcap);
void bk_free(bk_book_t *b); /* a zeroed or freed book is fine */

/* Node index of (key, check), or -1. */
int32_t bk_find(const bk_book_t *b, uint64_t key, uint64_t check);
/* Node index of position p, or -1 (also for a position of another rule set). */
int32_t bk_probe(const bk_book_t *b, const gk_pos_t *p);
/* The node of id, created (no edges, no leaf) when missing; its index in *idx. */
int bk_node_get(bk_book_t *b, const bk_id_t *id, uint32_t *idx, char *err, size_t errcap);
/* Edge of action a at node n, or NULL. */
bk_edge_t *bk_edge_find(const bk_book_t *b, uint32_t n, gk_action_t a);
/* Adds the edge (n, a) leading to child (term BK_CHILD_NODE) or to a result; the edge must
 * not exist.  Pointers into b->edge are invalidated. */
int bk_edge_add(bk_book_t *b, uint32_t n, gk_action_t a, uint8_t term, uint32_t child, char *err,
                size_t errcap);

/* Counts one game: replays the actions from the start position of b's rules and, for every
 * action played before turn max_turns (0: no limit), adds the game to the edge's W/D/L for
 * its mover (creating nodes and edges).  An illegal action is GK_E_REPLAY.  result is the
 * game's gk_result_t. */
int bk_add_game(bk_book_t *b, const gk_action_t *act, uint32_t n, int result, int max_turns,
                char *err, size_t errcap);
/* Drops the edges played by fewer than min_games games (edges with no games, made by
 * expansion, stay), then every node no longer reachable from the start. */
int bk_prune(bk_book_t *b, uint32_t min_games, char *err, size_t errcap);
/* Adds src into dst (same rule set): nodes are merged by identity, edge counts added, and a
 * node's leaf is the one found with the larger budget (dst's on a tie). */
int bk_merge(bk_book_t *dst, const bk_book_t *src, char *err, size_t errcap);
/* Recomputes the derived data (values, below, parents, order).  GK_E_NOMEM only. */
int bk_update(bk_book_t *b, char *err, size_t errcap);
/* The position of node n (replayed from the start along parents; needs bk_update). */
int bk_position(const bk_book_t *b, uint32_t n, gk_pos_t *p, char *err, size_t errcap);

/* ---- provenance ---- */

/* Sets line `name` (letters, digits, '_') to the formatted value (one line; replaced when
 * present, else appended). */
int bk_prov_set(bk_book_t *b, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The value of line `name` copied into buf, or NULL when there is none. */
const char *bk_prov_get(const bk_book_t *b, const char *name, char *buf, size_t cap);

/* ---- the file ---- */

/* The whole file image of b (out is replaced; level: zstd level, 0 = 9, negative: the
 * payload is stored uncompressed). */
int bk_encode(const bk_book_t *b, int level, gl_buf_t *out, char *err, size_t errcap);
/* Reads a file image.  want: the rule set the caller plays (game and variant must match),
 * or NULL to take the book's own.  name is used in reasons.  b is replaced. */
int bk_decode(const uint8_t *p, size_t n, const char *name, const gk_rules_t *want, bk_book_t *b,
              char *err, size_t errcap);
int bk_save(const bk_book_t *b, const char *path, char *err, size_t errcap);
/* Starts a new lineage for a book made by build or merge: a hash of its whole content, so
 * that no journal of another book can continue it. */
int bk_new_lineage(bk_book_t *b, char *err, size_t errcap);
int bk_load(const char *path, const gk_rules_t *want, bk_book_t *b, char *err, size_t errcap);
/* Whether path is a readable file that starts with the book magic (a cheap test that tells
 * an opening book from a text file of opening lines; bk_load() checks the rest). */
bool bk_is_book_file(const char *path);
/* Bytes of memory the book holds (nodes, edges, index, derived arrays). */
size_t bk_memory(const bk_book_t *b);

/* ---- probing ---- */

typedef struct bk_probe_opts {
    double random_window; /* > 0: a random book move within this of the best */
    uint32_t min_games;   /* a book move needs at least this many games (0: any) */
} bk_probe_opts_t;

enum { BK_OUT_NONE = 0, BK_OUT_MISSING, BK_OUT_NO_MOVES, BK_OUT_LEAF_BETTER, BK_OUT_FEW_GAMES };

typedef struct bk_choice {
    gk_action_t action; /* GK_NO_ACTION when out of book */
    float value;        /* the move's value for the mover */
    uint32_t games;     /* games of the move */
    int moves;          /* book moves at the position */
    int out;            /* BK_OUT_*: why there is no book move */
} bk_choice_t;

/* The book's move at p: the best book move (value, then games, then action), or with a
 * window a uniform choice among the moves within it, drawn from *rng (gk_splitmix64).
 * Returns 1 with a move, 0 out of book (missing position, no usable move, the leaf value
 * better than every book move, or too few games). */
int bk_choose(const bk_book_t *b, const gk_pos_t *p, const bk_probe_opts_t *o, uint64_t *rng,
              bk_choice_t *out);

/* A walk from the start: at each node a book move (not one that ends the game) drawn with
 * probability proportional to exp(value / temperature) (temperature <= 0: the best, as
 * bk_choose); it ends where the book ends: no book move, or the leaf better than every book
 * move; for games with multi-action turns, at the last turn boundary reached.  Returns the
 * number of actions (at most cap). */
int bk_walk(const bk_book_t *b, double temperature, uint64_t *rng, gk_action_t *out, int cap);

/* The book's view of position p, for people (text) or programs (one JSON object):
 * counts, W/D/L, leaf, value and depth below of every book move, and the principal book
 * line.  Missing positions are reported as such. */
int bk_describe(const bk_book_t *b, const gk_pos_t *p, bool json, gk_sb_t *sb);

/* ---- opening lines (Edax's deviation windows) ---- */

typedef struct bk_lines_opts {
    double max_error;   /* a move within this of the node's best book move */
    double total_error; /* and the errors along the line at most this */
    int turns;          /* stop after this many turns (0: where the book ends) */
    double balanced;    /* >= 0: keep lines whose exit value is within +-balanced */
    uint32_t count;     /* at most this many lines (0: all), smallest total error first */
} bk_lines_opts_t;

typedef struct bk_line {
    size_t start;   /* actions act[start .. start + n) */
    uint32_t n;     /* actions */
    uint32_t turns; /* complete turns */
    float exit;     /* value of the exit position for White */
    float error;    /* total error along the line */
} bk_line_t;

typedef struct bk_lines {
    bk_line_t *line;
    uint32_t nlines;
    gk_action_t *act;
    size_t nact, cap_act, cap_line;
} bk_lines_t;

/* Walks the book from the start and lists its exits as lines of complete turns: distinct
 * exit positions only, each reached by its least total error. */
int bk_lines(const bk_book_t *b, const bk_lines_opts_t *o, bk_lines_t *out, char *err,
             size_t errcap);
void bk_lines_free(bk_lines_t *L);
/* The lines as an opening-line file (docs/FORMATS.md, "Opening lines"), with its checksum. */
int bk_lines_text(const bk_book_t *b, const bk_lines_t *L, gk_sb_t *sb, char *err, size_t errcap);

/* ---- expansion ---- */

typedef struct bk_select_opts {
    double alpha;       /* weight of a move's value shortfall against the node's best */
    double policy_cost; /* weight of -log(prior) (KataGo's book); 0 = none */
    int width;          /* most book moves of a node (0: no limit), unless its leaf is
                           better than every book move */
} bk_select_opts_t;

typedef struct bk_target {
    uint32_t node;
    double priority; /* smaller = more urgent */
} bk_target_t;

/* Up to cap expansion targets: nodes whose leaf action should become a book move, by
 * increasing priority (then key, check).  The priority of a node's leaf, seen as a
 * pseudo-child, is the cheapest path from the start, each step costing
 * alpha * (best value - the move's value) + 1 + policy_cost * -log(prior) (Fuego,
 * Lincke).  Needs bk_update.  Returns the number of targets. */
int bk_select(const bk_book_t *b, const bk_select_opts_t *o, bk_target_t *out, int cap);
/* Up to cap nodes without a leaf (not searched), by (turn, in_turn, key, check). */
int bk_unsearched(const bk_book_t *b, uint32_t *out, int cap);

/* ---- the expansion journal ---- */

enum { BK_J_EVAL = 1, BK_J_EXPAND = 2 };

/* One result of a batch. EVAL: `node` was searched, its new leaf is `leaf`.  EXPAND: the
 * leaf action `move` of `node` became a book move (prior move_prior) leading to `term` or
 * to `child`, whose own leaf is child_leaf when the child was new (has_child_leaf); `leaf`
 * is the node's new leaf (searched again without the move). */
typedef struct bk_jentry {
    uint8_t kind;
    uint8_t term;
    uint8_t has_child_leaf;
    uint16_t move_prior;
    gk_action_t move;
    bk_id_t node, child;
    bk_leaf_t leaf, child_leaf;
} bk_jentry_t;

typedef struct bk_batch {
    uint64_t number; /* 1 + the batches applied before it */
    uint32_t n;
    bk_jentry_t *e;
} bk_batch_t;

/* The record of a batch appended to out (see docs/FORMATS.md). */
int bk_batch_encode(const bk_batch_t *bt, gl_buf_t *out, char *err, size_t errcap);
/* Applies a batch: it must be batch b->batches + 1 and fit the book (nodes present, moves
 * new); b->batches and b->lineage advance.  rec_sum is the record's checksum.  The derived
 * data must then be recomputed (bk_update). */
int bk_batch_apply(bk_book_t *b, const bk_batch_t *bt, uint64_t rec_sum, char *err, size_t errcap);
void bk_batch_free(bk_batch_t *bt);

/* A journal file: its header, then the records. */
typedef struct bk_journal {
    uint64_t base_batches, base_lineage; /* the book state it continues */
    uint64_t table_sum;
    uint32_t nrec;
    bk_batch_t *rec;
    uint64_t *rec_sum; /* checksum of each record */
    size_t valid_end;  /* bytes of the sound prefix */
    bool torn;         /* bytes after valid_end are a record cut short (to be cut off) */
} bk_journal_t;

/* The header bytes of a journal continuing book b. */
int bk_journal_header(const bk_book_t *b, gl_buf_t *out, char *err, size_t errcap);
/* Parses a journal image.  A record cut short at the end sets torn; anything else wrong is
 * an error. */
int bk_journal_parse(const uint8_t *p, size_t n, const char *name, bk_journal_t *j, char *err,
                     size_t errcap);
void bk_journal_free(bk_journal_t *j);
/* Applies the records of j that b does not hold yet.  The journal must continue b: its
 * base plus some of its records must give b's (batches, lineage); else GK_E_MISMATCH.
 * *applied gets the number applied. */
int bk_journal_replay(bk_book_t *b, const bk_journal_t *j, uint32_t *applied, char *err,
                      size_t errcap);
/* The lineage after one more record with checksum rec_sum. */
uint64_t bk_lineage_next(uint64_t lineage, uint64_t rec_sum);

#endif
