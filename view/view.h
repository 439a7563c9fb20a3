/*
 * view/view.h -- pictures of boards, games and training runs: SVG boards, self-contained
 * HTML game pages and the training page.
 *
 * Contract
 * --------
 * Everything here renders text into a gk_sb_t (common/strbuf.h) from plain data: game.h
 * positions and action sequences, the root statistics of self-play logs (data/gamelog.h),
 * and per-generation numbers of a training run.  Nothing prints or exits; functions that
 * can fail return GK_OK or a negative gk_status_t (common/status.h) with a one-line
 * reason.  Rendering is deterministic: the same input gives the same bytes.
 *
 * BOARDS.  view_board_svg() draws one position as a standalone SVG document (any SVG
 * viewer, rsvg-convert, a browser): Gounki 8x8 with rounds as circles and squares as
 * squares, a stack of 2 or 3 drawn as that many small shapes side by side (rounds first),
 * so `RS` is a circle beside a square; Gobs 9x9 with reversible discs showing the face
 * that is up over a rim of the other face.  White's pieces are light, Black's dark;
 * files and ranks are labelled; the title names the game and its rule set.  The last
 * move (view_marks_t, from view_marks_of()) is an arrow along its path, with its origin
 * and destination tinted; a deployment's drops carry numbered badges (a circle for a
 * dropped round, a square for a square); a capture or elimination a red cross; a Gobs
 * jump chain's arrow passes through every landing square and rings the pieces it turned
 * over; an exit's arrow leaves the board across the far edge ("Out").
 *
 * GAME PAGES.  view_game_html() writes one HTML file with no external reference (no
 * network, no framework): the board is one inline SVG that a small script redraws from
 * data embedded as JSON (per turn: the position string, the move's notation and marks,
 * the search statistics), which keeps a 500-turn game near 100 KB where one SVG per turn
 * would take megabytes.  The page steps through the game by complete moves (turns) with
 * buttons, the arrow keys (Left/Right, Home/End) and clicks on the move list, which
 * highlights the current move; `#turn=N` in the address opens it after turn N (`#ply=N`,
 * the old form, too).  Games with root statistics get the root value per turn as a graph
 * (White's view, click to jump) and, at each position, the search's top moves with their
 * visit shares.  When its script has run, the page's <body> carries data-ok="1" and
 * data-turns="N"; an error of the script is written into the page (element #gv-error,
 * attribute data-error).
 *
 * TRAINING PAGE.  view_train_html() draws the Elo ladder, the tuner's loss curves and
 * the self-play games per hour of each generation, a table of the generations and links
 * to sample game pages; view_train_write() writes it with those pages into a folder.
 */
#ifndef GK_VIEW_H
#define GK_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/strbuf.h"
#include "../data/gamelog.h"
#include "../games/game.h"

/* ---- the marks of one move ---- */

enum {
    VIEW_MK_FROM = 1, /* where the moving piece started */
    VIEW_MK_TO,       /* where it ended (not for an exit) */
    VIEW_MK_CAPTURE,  /* an enemy piece or stack was removed here */
    VIEW_MK_DROP,     /* drop number n (1..3) of a deployment; square: `square` */
    VIEW_MK_FLIP,     /* a Gobs piece turned over by a jump */
    VIEW_MK_PLACE,    /* short Gobs: an eliminated piece was put back here */
};

#define VIEW_MAX_MARKS  (2 * GK_MAX_TURN + 8)
#define VIEW_MAX_POINTS (GK_MAX_TURN + 8)

typedef struct view_mark {
    uint8_t kind;   /* VIEW_MK_* */
    uint8_t sq;     /* the game's square index (games/gounki.h, games/gobs.h) */
    uint8_t n;      /* VIEW_MK_DROP: the drop's number, 1..3 */
    uint8_t square; /* VIEW_MK_DROP: the dropped piece is a square (else a round) */
} view_mark_t;

typedef struct view_marks {
    int nmarks;
    view_mark_t mark[VIEW_MAX_MARKS];
    int npts; /* the move's path: npts points (file, rank), 0-based board units */
    float pt[2 * VIEW_MAX_POINTS];
    bool exit; /* the path ends beyond the far edge (a Gounki exit) */
} view_marks_t;

/* The marks of the n actions seq[] played from `before` (a turn, or its first actions;
 * n = 0 gives no marks).  The actions must be legal in sequence (callers check). */
void view_marks_of(const gk_pos_t *before, const gk_action_t *seq, int n, view_marks_t *m);

/* ---- boards ---- */

typedef struct view_board_opts {
    int cell;        /* pixels per square; 0 = the default (56 Gounki, 52 Gobs) */
    bool no_title;   /* leave out the title line (game, rule set, turn, side to move) */
    bool no_caption; /* leave out the caption (piece counts, result) */
} view_board_opts_t;

/* Appends the SVG document of p with the marks m (NULL: none).  Returns GK_OK, or
 * GK_E_NOMEM when the buffer ran out of memory (nothing else can fail). */
int view_board_svg(gk_sb_t *out, const gk_pos_t *p, const view_marks_t *m,
                   const view_board_opts_t *o);

/* ---- game pages ---- */

typedef struct view_game {
    gk_pos_t start;            /* position before the first action */
    const gk_action_t *action; /* the actions played, turn after turn */
    uint32_t nactions;
    /* Optional root statistics, one per action (data/gamelog.h); NULL when none.  stats[i]
     * has stats[i].ntop children at child[stats[i].first ...]. */
    const gl_action_stats_t *stats;
    const gl_child_t *child;
    uint32_t nchild;
    /* Optional comment per complete move (turn), NULL entries allowed; NULL when none. */
    const char *const *comment;
    uint32_t ncomment;
    /* The end of the game when the actions alone do not show it (a resignation, a result
     * claimed by a record): GK_ONGOING means "whatever the replay gives". */
    gk_result_t result;
    gk_reason_t reason;
    const char *title; /* page title; NULL: "Gounki game" etc. */
    /* Header lines shown under the title ("White: ...", "Seed: ..."): ntags name/value
     * pairs, tag[2 * i] the name and tag[2 * i + 1] the value. */
    const char *const *tag;
    int ntags;
} view_game_t;

/* Appends the HTML page of g.  Fails with GK_E_REPLAY when an action is not legal where
 * it is played (reason names it), GK_E_ARG on inconsistent statistics, GK_E_NOMEM. */
int view_game_html(gk_sb_t *out, const view_game_t *g, char *err, size_t errcap);

/* The page of a self-play log record (data/gamelog.h): its actions, root statistics and
 * result (resignations included), with its index, seed, engine, settings and flags as
 * header lines.  title may be NULL ("Self-play game I"). */
int view_gamelog_html(gk_sb_t *out, const gl_game_t *g, const char *title, char *err,
                      size_t errcap);

/* Writes the text of b to path atomically (common/files.h); GK_E_NOMEM when b ran out of
 * memory while it was built. */
int view_write(const char *path, const gk_sb_t *b, char *err, size_t errcap);

/* view_gamelog_html() into the file path (written atomically): `log export --html`. */
int view_gamelog_write(const char *path, const gl_game_t *g, const char *title, char *err,
                       size_t errcap);

/* ---- the training page ---- */

typedef struct view_train_gen {
    int promoted;      /* generation 0 counts as promoted */
    int best_after;    /* the best generation once this one was decided */
    double games;      /* self-play games of the generation (0 for generation 0) */
    double selfplay_s; /* their wall time in seconds (0: unknown) */
    double positions;  /* tuner training positions (0: not tuned) */
    double train_before, train_after, val_before, val_after; /* tuner losses, NaN: none */
    double gate_elo, gate_lo, gate_hi;       /* gating match, candidate vs best; NaN: none */
    double mw, md, ml;                       /* gating match W-D-L of the candidate */
    double ladder_elo, ladder_lo, ladder_hi; /* vs generation 0 (gen 0: 0); NaN: none;
                                                +-INFINITY for a perfect score */
    double chain_elo; /* gating Elo summed along the promotions; NaN when not promoted */
    /* Sample games of this generation's self-play (their pages are linked). */
    const gl_game_t *sample;
    int nsamples;
} view_train_gen_t;

typedef struct view_train {
    const char *title;    /* NULL: "Training run" */
    const char *settings; /* one line of settings shown under the title; may be NULL */
    int ngen;             /* gen[0 .. ngen-1]; gen[0] is the start */
    const view_train_gen_t *gen;
    const char *report_href; /* link to the text report (e.g. "report.txt"); may be NULL */
} view_train_t;

/* Appends the training page; sample game g of generation k is linked as
 * "games/gen-KKK-game-I.html" (I = the record's index), where view_train_write() puts it. */
int view_train_html(gk_sb_t *out, const view_train_t *t, char *err, size_t errcap);

/* Appends the page's Elo ladder and tuner-loss plots as one standalone SVG (train's
 * DIR/ladder.svg): the same drawing, with the page's style for its text inside. */
int view_train_svg(gk_sb_t *out, const view_train_t *t, char *err, size_t errcap);

/* Writes DIR/report.html and DIR/games/gen-KKK-game-I.html for every sample game
 * (the folder is created), each file atomically. */
int view_train_write(const char *dir, const view_train_t *t, char *err, size_t errcap);

/* Reads up to k games of a self-play log (a run directory or one shard), those with the
 * lowest game indices, into out[0 .. *n-1] (initialised here; the caller frees each with
 * gl_game_free).  A log with fewer games gives fewer (*n may be 0). */
int view_load_samples(const char *logdir, int k, gl_game_t *out, int *n, char *err, size_t errcap);

/* Widens [lo, hi] over the finite values of v[0..n), at least min_span wide (0: any), to
 * whole ticks of a 1-2-5 step giving about `ticks` of them, with a fifth more room on a
 * side where v holds an infinity (drawn on the edge); no finite values give [0, 1].  The
 * axes of every plot (the pages here and train's ladder.svg) use it. */
void view_nice_range(const double *v, int n, int ticks, double min_span, double *lo, double *hi,
                     double *tick);

#endif
