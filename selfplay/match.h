/*
 * selfplay/match.h -- a match between two players (search/player.h): colour-swapped
 * pairs of games from the same opening, played in parallel, scored as W/D/L and as
 * pentanomial pair results, with an Elo estimate and an optional SPRT that stops early.
 *
 * Contract
 * --------
 * Pair i (0-based) starts from opening i: with a book, its line (i + an offset drawn from
 * the seed) modulo the number of lines, played from the start position; then
 * `opening_turns` random turns (uniform over the actions, turn by turn) drawn from a
 * generator seeded by (seed, i) and redrawn when they would end the game.  Game 2i has A as White,
 * game 2i+1 has A as Black, both from that opening.  Every player is told
 * player_new_game(seed_of(seed, game)) before a game and gets a per-action seed derived
 * from (seed, game, action number), so a game is a pure function of (seed, its index,
 * the specs) whenever the players are deterministic (budgets in playouts or depth, one
 * search thread): the same games come out whatever `threads` is.
 *
 * Games run `threads` at a time (OpenMP; each worker thread has its own pair of players,
 * each with its own search threads).  Results are COUNTED in pair order: a pair enters
 * the statistics only when every earlier pair has too, so the statistics, the SPRT
 * decision and the stopping point are the same whatever the scheduling.  When the SPRT
 * decides, no new pair starts; the pairs already running finish but are not counted
 * unless they precede the deciding pair.
 *
 * A player spec "cmd:COMMAND ARGS..." is an external engine speaking the engine protocol
 * (docs/PROTOCOL.md, selfplay/engine_proc.h), one process per worker thread, started and
 * checked (handshake, game) before the match.  Before each game it is told `newgame seed
 * S` with the seed a built-in player gets (player_new_game), then each of its turns
 * `position text START moves ...` and `go` (with the clocks under a time control): an
 * engine that answers a budget-limited search the way the same built-in spec would plays
 * the same games.  An engine that crashes (its process ends or closes its output), stays
 * silent past its clock (or, without one, past timeout_s), answers a move that is not
 * legal, or refuses a command loses that game: the game's `end` and `termination` say why,
 * the engine is killed and started again for its next game, and the match goes on.
 *
 * With a time control (tc_base_s > 0) each side of each game has a clock of tc_base_s
 * seconds, tc_inc_s added after each of its turns; the wall time of a turn (from the
 * command to the answer for an engine, the choices of every action of the turn for a
 * built-in player, told its clock with player_set_clock) is taken off, and a side whose
 * clock goes below zero loses on time.
 *
 * A built-in player that returns no action, or an illegal one, makes match_run() fail with
 * a reason (a bug, never a silent loss).  Callbacks run under a lock, one at a time, from
 * any worker thread.
 */
#ifndef GK_MATCH_H
#define GK_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../games/game.h"
#include "elo.h"
#include "selfplay.h"

#define MATCH_MAX_ACTIONS 8192 /* actions kept per game for its record */

/* How a game ended: by the rules, or by a side's fault. */
enum {
    MATCH_END_RULES = 0,
    MATCH_END_TIME,     /* lost on time */
    MATCH_END_ILLEGAL,  /* answered an illegal move, or none */
    MATCH_END_CRASH,    /* the engine's process ended or closed its output */
    MATCH_END_HANG,     /* no answer within the timeout (no time control) */
    MATCH_END_PROTOCOL, /* the engine refused a command or could not be restarted */
    MATCH_NENDS
};
/* "rules", "time forfeit", "illegal move", "engine crashed", "engine hung", "protocol error". */
const char *match_end_name(int end);
/* Whether spec names an external engine ("cmd:..."). */
int match_spec_is_cmd(const char *spec);

/* One finished game. */
typedef struct match_game {
    int index;      /* game number; pair = index / 2 */
    int a_white;    /* 1 when A had White */
    gk_pos_t start; /* the match's start position (before the opening) */
    int nopening;   /* the first nopening actions are the random opening */
    int nactions;   /* actions from start, opening included */
    gk_action_t *actions;
    gk_result_t result;
    gk_reason_t reason;
    int turns;                   /* turns played from start */
    int score_a;                 /* 2 win, 1 draw, 0 loss, for A */
    double seconds_a, seconds_b; /* thinking time */
    int moves_a, moves_b;        /* turns played by each, and the longest turn's */
    double max_a, max_b;         /* thinking time */
    uint64_t work_a, work_b;     /* playouts/nodes spent */
    int truncated;               /* more than MATCH_MAX_ACTIONS actions: record cut short */
    int end;                     /* MATCH_END_*; not RULES: the side that lost by it ... */
    int end_a;                   /* ... is A (1) or B (0) */
    char termination[192];       /* the record's Termination: a reason, or the fault */
} match_game_t;

/* The counted results so far. */
typedef struct match_stats {
    int games_total;                 /* as asked */
    int pairs_counted;               /* pairs 0..pairs_counted-1 are in the counts below */
    int games_finished;              /* games finished, counted or not */
    uint64_t w, d, l;                /* games, for A */
    uint64_t penta[5];               /* pairs by A's points: 0, 1/2, 1, 3/2, 2 */
    uint64_t white_wins, black_wins; /* colour balance, for the record */
    uint64_t turns;                  /* turns over counted games */
    double seconds_a, seconds_b;     /* thinking time over counted games */
    uint64_t moves_a, moves_b;       /* turns played by each in them */
    double max_a, max_b;             /* the longest turn's thinking time */
    uint64_t work_a, work_b;
    uint64_t ends[2][MATCH_NENDS]; /* games lost by a fault, [0] A, [1] B, by MATCH_END_* */
    int elo_ok;                    /* the estimate below is valid (at least one pair) */
    elo_estimate_t elo;            /* pentanomial, 95% */
    bool sprt;                     /* an SPRT is running */
    double llr, llr_lower, llr_upper;
    elo_sprt_state_t sprt_state;
    double wall_s;
} match_stats_t;

typedef struct match_opts {
    const char *spec_a, *spec_b; /* player specs (search/player.h) */
    gk_pos_t start;              /* unfinished turn-boundary start position */
    int games;                   /* even, >= 2 */
    int opening_turns;           /* random turns before the players take over */
    const ol_lines_t *book;      /* opening lines (from the game's start position), or NULL */
    uint64_t seed;
    int threads; /* games at once (>= 1) */
    bool sprt;
    elo_sprt_t sprt_params;
    double tc_base_s, tc_inc_s; /* time control per game (tc_base_s <= 0: none) */
    double timeout_s;           /* an engine's silence past its clock, or per move without one */
    /* Called after each counted pair with its two games in order (game 2i, 2i+1) and the
     * statistics including it; may be NULL. */
    void (*on_pair)(void *ctx, const match_game_t *g0, const match_game_t *g1,
                    const match_stats_t *st);
    /* Called after each finished game (in completion order, counted or not); may be NULL. */
    void (*on_game)(void *ctx, const match_game_t *g, const match_stats_t *st);
    void *ctx;
} match_opts_t;

/* Checks the options (specs are checked by building the players).  Returns 0, or -1
 * with a one-line reason in err. */
int match_check(const match_opts_t *o, char *err, size_t errcap);

/* Plays the match.  Returns 0 with the final statistics in *st, or -1 with a reason in
 * err (bad options, a player that could not be made, a player that failed to move). */
int match_run(const match_opts_t *o, match_stats_t *st, char *err, size_t errcap);

#endif
