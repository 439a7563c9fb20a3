/*
 * games/game.h -- the one interface every game implements.
 *
 * Contract
 * --------
 * A game is a table of functions (gk_game_t) over a plain-data position (gk_pos_t).
 * A TURN is a sequence of ACTIONS by the same player.  For Gounki every turn is one
 * action (a whole movement or deployment).  For Gobs an action is a slide, an
 * elimination, or one jump leg; after a jump leg the same player chooses the next
 * leg or "stop".  Search, logs, tuner and books work on actions (a node where the same
 * player moves again is an ordinary node); notation, game records and perft speak of
 * complete moves (the actions of one turn).  Why: standard Gobs has positions with
 * over 10^12 complete moves, which no move list can hold (docs/HACKING.md).
 *
 * - gk_pos_t is plain data: memcpy copies it, it holds no pointers, and two positions
 *   that compare equal field by field behave identically.  `hash` is a 64-bit Zobrist
 *   hash kept up to date incrementally by play(); hash_full() recomputes it and the two
 *   must always agree.  The hash covers everything that decides future play (board,
 *   side to move, mid-turn state) but not `turn`, `turn_limit` or the result, so equal
 *   hashes at turn boundaries mean "the same position" for the repetition rule.
 * - gen() writes every legal action of `p` into `out` (room for GK_MAX_ACTIONS) and
 *   returns their number; no action appears twice.  It returns 0 when the game is
 *   over.  When it returns 0 on a position whose result is still GK_ONGOING, the side
 *   to move has no legal action and loses: call gk_apply_no_move().
 * - play() applies one legal action in place (copy-make: callers copy first when they
 *   need the old position).  It updates hash, and at the end of a turn flips `stm`,
 *   increments `turn`, resets `in_turn` to 0 and sets `result`/`reason` when the game
 *   ends (exit, capture-all, GOBS outcomes, turn limit).  Repetition needs history and
 *   is applied by the caller with gk_hist_* below.  play() on an illegal action is
 *   undefined; parse_move() is the way to turn untrusted text into legal actions.
 * - All functions are reentrant and thread-safe after gk_init() has run once.
 *
 * Actions are 32-bit values whose meaning is private to each game; 0 is never legal.
 * Text functions return the number of characters written (excluding the NUL) or -1
 * when the buffer is too small; parsers return GK_E_INVALID (-1, common/status.h) and
 * write a one-line reason into `err` on bad input, and never read past the NUL of their
 * input.
 */
#ifndef GK_GAME_H
#define GK_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { GK_WHITE = 0, GK_BLACK = 1 };

enum { GK_GAME_GOUNKI = 0, GK_GAME_GOBS = 1, GK_NGAMES = 2 };

typedef enum {
    GK_ONGOING = 0,
    GK_WIN_WHITE = 1,
    GK_WIN_BLACK = 2,
    GK_DRAW = 3,
} gk_result_t;

typedef enum {
    GK_REASON_NONE = 0,
    GK_REASON_EXIT,        /* Gounki: a piece left the board across the far edge */
    GK_REASON_CAPTURE_ALL, /* Gounki: the last enemy piece was captured */
    GK_REASON_NO_MOVE,     /* the side to move had no legal action and lost */
    GK_REASON_REPETITION,  /* third occurrence of a position, same side to move */
    GK_REASON_TURN_LIMIT,  /* the turn limit was reached */
    GK_REASON_GOBS,        /* Gobs: opponent below 5 pieces, or failed to answer a GOBS */
    GK_REASON_GOBS_DRAW,   /* Gobs: a GOBSed side eliminated back to 5 pieces */
    GK_REASON_RESIGN,      /* a player resigned (self-play, play) */
    GK_REASON_ADJUDICATED, /* self-play: Gobs lead held long enough (docs/RULES.md) */
    GK_NREASONS
} gk_reason_t;

typedef uint32_t gk_action_t;

#define GK_NO_ACTION          ((gk_action_t)0)
#define GK_MAX_ACTIONS        1024 /* upper bound on gen()'s count, any game */
#define GK_MAX_TURN           64   /* upper bound on actions in one turn */
#define GK_MOVE_TEXT_MAX      256  /* enough for any complete move's notation */
#define GK_POS_TEXT_MAX       256  /* enough for any position string */
#define GK_BOARD_TEXT_MAX     4096 /* enough for any ASCII board */
#define GK_DEFAULT_TURN_LIMIT 500

/* The rule set a position is played under. */
typedef struct gk_rules {
    uint8_t game;        /* GK_GAME_* */
    uint8_t variant;     /* 0 = standard; game-specific otherwise (Gobs: 1 = short) */
    uint16_t turn_limit; /* draw when this many turns have been played; 0 = no limit */
} gk_rules_t;

typedef struct gk_pos {
    uint64_t hash;       /* Zobrist hash, see the contract above */
    uint16_t turn;       /* turns completed since the start position */
    uint16_t turn_limit; /* from gk_rules_t */
    uint8_t game;        /* GK_GAME_* */
    uint8_t variant;     /* from gk_rules_t */
    uint8_t stm;         /* GK_WHITE or GK_BLACK */
    uint8_t result;      /* gk_result_t */
    uint8_t reason;      /* gk_reason_t */
    uint8_t in_turn;     /* actions already played in the current turn; 0 at a boundary */
    uint8_t aux[14];     /* game-specific small state (counts, mid-turn square, ...) */
    union {
        uint8_t cell[128]; /* game-specific board encoding */
        uint64_t word[16];
    } b;
} gk_pos_t;

typedef struct gk_game {
    const char *name;        /* "gounki", "gobs" */
    const char *variants[4]; /* variant names by number, NULL-terminated; [0] = "standard" */

    /* Start position of the rule set. */
    void (*setup)(gk_pos_t *p, const gk_rules_t *r);
    int (*gen)(const gk_pos_t *p, gk_action_t *out);
    void (*play)(gk_pos_t *p, gk_action_t a);
    uint64_t (*hash_full)(const gk_pos_t *p);

    /* Number of complete-move sequences `depth` turns long from p (p may be mid-turn:
     * the unfinished turn counts as the first).  Terminal positions end a sequence
     * early and count 0 below depth.  Repetition is ignored.  depth 0 returns 1. */
    uint64_t (*perft)(const gk_pos_t *p, int depth);

    /* Text of one action as played from p (for logs, analysis and search output). */
    int (*action_text)(const gk_pos_t *p, gk_action_t a, char *buf, size_t cap);
    /* Notation of the complete move made of the n actions seq[] from turn start p. */
    int (*move_text)(const gk_pos_t *p, const gk_action_t *seq, int n, char *buf, size_t cap);
    /* Parses a complete move at turn start p into at most cap legal actions; returns their
     * number, or -1 with a reason in err. */
    int (*parse_move)(const gk_pos_t *p, const char *text, gk_action_t *seq, int cap, char *err,
                      size_t errcap);

    /* One-line position string (docs/FORMATS.md); from_text(to_text(p)) == p exactly. */
    int (*pos_to_text)(const gk_pos_t *p, char *buf, size_t cap);
    int (*pos_from_text)(gk_pos_t *p, const char *text, uint16_t turn_limit, char *err,
                         size_t errcap);
    /* Human-readable board, several lines ending in '\n'. */
    int (*board_text)(const gk_pos_t *p, char *buf, size_t cap);
} gk_game_t;

/* Fills the init-once tables (Zobrist keys, ...).  Call once before any other call;
 * calling again is harmless. */
void gk_init(void);

/* The game with this id / name, or NULL. */
const gk_game_t *gk_game_by_id(int id);
const gk_game_t *gk_game_by_name(const char *name);
/* Variant number of `name` in game g, or -1. */
int gk_variant_by_name(const gk_game_t *g, const char *name);

static inline const gk_game_t *gk_game_of(const gk_pos_t *p) {
    return gk_game_by_id(p->game);
}
static inline bool gk_over(const gk_pos_t *p) {
    return p->result != GK_ONGOING;
}

/* Convenience dispatchers for code that serves every game. */
int gk_gen(const gk_pos_t *p, gk_action_t *out);
void gk_play(gk_pos_t *p, gk_action_t a);

/* Marks p as lost for the side to move by the no-move rule (gen() returned 0 while
 * the game was ongoing). */
void gk_apply_no_move(gk_pos_t *p);
/* Ends the game at p with result r and reason why, keeping everything else. */
void gk_set_result(gk_pos_t *p, gk_result_t r, gk_reason_t why);

/* Result from the point of view of `side`: +1 win, 0 draw, -1 loss (p must be over). */
int gk_result_for(const gk_pos_t *p, int side);

const char *gk_result_text(gk_result_t r); /* "1-0", "0-1", "1/2-1/2", "*" */
const char *gk_reason_text(gk_reason_t r); /* "exit", "capture-all", ... */
/* The reason whose gk_reason_text name is exactly s[0..n), or -1.  Also reads the old
 * name "ply-limit" of GK_REASON_TURN_LIMIT ("turn-limit"), which older records,
 * position strings and logs' text exports hold. */
int gk_reason_named(const char *s, size_t n);

/* Generic perft over gen/play, used by games without a faster one and by tests as an
 * independent check. */
uint64_t gk_perft_generic(const gk_pos_t *p, int depth);

/* Calls fn(ctx, seq, n) for each complete move from turn start p, in gen() order, and
 * stops after `limit` moves or when fn returns non-zero.  Returns the number of moves
 * visited. */
typedef int (*gk_move_fn)(void *ctx, const gk_pos_t *start, const gk_action_t *seq, int n);
uint64_t gk_enum_moves(const gk_pos_t *p, uint64_t limit, gk_move_fn fn, void *ctx);

/* Whether a is one of gen(p)'s actions (for actions from outside the rules: a player, a
 * record, a stored principal variation).  Generates the list: not for inner loops. */
bool gk_is_legal(const gk_pos_t *p, gk_action_t a);
/* Index of a in list[0..n), or -1. */
int gk_action_index(const gk_action_t *list, int n, gk_action_t a);

/* Parses and plays a complete move; returns 0, or -1 with a reason in err (p unchanged). */
int gk_play_move_text(gk_pos_t *p, const char *text, char *err, size_t errcap);

/*
 * Repetition history: hashes of the turn-boundary positions of one game, oldest first.
 * Fixed capacity so it stays plain data for self-play threads; gk_hist_push() returns
 * -1 when full.  It holds the start and GK_MAX_TURN_LIMIT turns: turn limits above that are
 * refused (--turn-limit, the TurnLimit tag), and a game without a limit that gets there
 * ends as a draw by the turn limit (gk_end_turn), so repetition is never skipped.
 */
#define GK_HIST_MAX       4096
#define GK_MAX_TURN_LIMIT (GK_HIST_MAX - 1)
typedef struct gk_hist {
    int n;
    uint64_t h[GK_HIST_MAX];
} gk_hist_t;

void gk_hist_init(gk_hist_t *h, const gk_pos_t *start);
int gk_hist_push(gk_hist_t *h, const gk_pos_t *p);
/* Times the hash of p occurs in h. */
int gk_hist_count(const gk_hist_t *h, uint64_t hash);
/* After a turn has ended at p (already pushed), sets the repetition draw when p's
 * position has now occurred three times.  Returns true when it did. */
bool gk_hist_check_repetition(const gk_hist_t *h, gk_pos_t *p);

/* The turn step of every game loop (self-play, matches, play, records, logs, --moves):
 * when p is at the end of a turn of a game that goes on, pushes p on h and applies the
 * repetition draw; when h is full, ends the game as a draw by the turn limit.  Does
 * nothing inside a turn or after the end. */
void gk_end_turn(gk_pos_t *p, gk_hist_t *h);
/* Plays legal action a at p, then gk_end_turn(). */
void gk_play_turn(gk_pos_t *p, gk_hist_t *h, gk_action_t a);

/* SplitMix64: the project's one PRNG step, for Zobrist keys and seeded play. */
static inline uint64_t gk_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The seed of item or stream b of a job seeded with a: two SplitMix64 steps from
 * a ^ (b + 1) * C, so that nearby (a, b) give unrelated seeds.  Self-play logs, matches and
 * training runs are made of these values: the arithmetic must never change.  Callers:
 * self-play game i of a run, sp_game_seed(run, i); a match's game i, (seed, i), and from
 * that game seed its players (0xA, 0xB) and its decisions (action number); a match's pair
 * openings (seed, 0x0BE17000 + pair) and book line (seed, 0xB00C); a training run's
 * generation g, (seed, 3g + phase). */
static inline uint64_t gk_seed_mix(uint64_t a, uint64_t b) {
    uint64_t s = a ^ (b + 1) * 0xD1B54A32D192ED03ull;
    gk_splitmix64(&s);
    return gk_splitmix64(&s);
}

#endif
