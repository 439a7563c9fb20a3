/* cli/cmd_play.c -- `gounki play`: a person against the engine in the terminal (or the
 * engine against itself with the moves shown). */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef GK_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#include "../common/files.h"
#include "../common/progress.h"
#include "../games/record.h"
#include "../search/params.h"
#include "cli.h"
#include "record_out.h"

/* The one mutable global: set by Ctrl-C (SIGINT) while an engine thinks, read by its
 * search as the outside stop flag (search/mcts.h, mcts_monitor_t). */
static _Atomic int think_stop;

static void on_sigint(int sig) {
    (void)sig;
    atomic_store(&think_stop, 1);
}

int cmd_play(int argc, char **argv);
extern const char cmd_play_summary[];
const char cmd_play_summary[] = "play against the engine in the terminal";

static const char *const CMD = "play";

#define DEFAULT_ENGINE "mcts:playouts=2000"
#define LINE_MAX_LEN   1024

static void usage(FILE *f) {
    fprintf(f, "usage: gounki play [--human white|black|both|none] [--engine SPEC] [options]\n"
               "\n"
               "A person plays the engine: the board is shown after each move, moves are typed\n"
               "in the notation (docs/FORMATS.md) and the engine answers with its move, its win\n"
               "probability and its thinking time.  With --human none the engine plays both\n"
               "sides and the moves are shown.\n"
               "\n"
               "  --human SIDE       white (default), black, both or none\n"
               "  --engine SPEC      the engine (default " DEFAULT_ENGINE "); see 'gounki match\n"
               "                     --help' for specs (random, greedy, ab:..., mcts:...)\n"
               "  --engine2 SPEC     with --human none: Black's engine (default: --engine)\n"
               "  --seed S           seed of the engine's randomness (default 1)\n"
               "  --quiet-board      do not print the board after each move\n"
               "  --flip             show the board turned, Black's side at the bottom (the\n"
               "                     default with --human black)\n"
               "  --save FILE        write the game record to FILE when the session ends\n"
               "                     (with --human none too)\n" CLI_POS_HELP "\n"
               "Commands at the prompt (any case): a move (e.g. b2-b3, c5*d5,e5,f6, g4:d4:b4),\n"
               "undo (takes back your last move and the engine's answer), resign, save FILE\n"
               "(game record), load FILE (go on from a saved game), hint (the engine's move\n"
               "for you), moves (the legal moves), board, help, quit.  End of input quits.  On\n"
               "a terminal the prompt has line editing and history (libedit) and the engine\n"
               "shows what it thinks once a second; Ctrl-C while it thinks makes it play its\n"
               "best move so far (with --human none: ends the session, exit status 3).\n");
}

static void help_text(void) {
    printf(
        "  MOVE        a complete move in the notation, e.g. b2-b3, f7xe7, a1-a2+, c5*d5,e5,f6,\n"
        "              e6*d7,c8,Out; Gobs: a3-a5, a3xa7, g4:d4:b4:b6:f6\n"
        "  undo        take back your last move (and the engine's answer)\n"
        "  resign      give up the game\n"
        "  save FILE   write the game so far as a game record (gounki replay FILE)\n"
        "  load FILE   go on from the game record in FILE (its moves are replayed)\n"
        "  hint        ask the engine for a move for the side to move\n"
        "  moves       list the legal moves\n"
        "  board       show the board again\n"
        "  help        this text\n"
        "  quit        leave (end of input too)\n");
}

/* The game so far: actions from the start, and where each turn began. */
typedef struct game {
    gk_pos_t start;
    gk_pos_t pos;
    gk_hist_t hist;
    gk_action_t *acts;
    int nacts, cap;
    int nturns, tcap;
    gk_pos_t *turn_pos; /* position at the start of turn t */
    int *turn_act;      /* actions played before turn t */
    int *turn_hist;     /* history length at the start of turn t */
    int flip;           /* show the board turned (--flip) */
} game_t;

static int grow(game_t *g) {
    if (g->nacts + GK_MAX_TURN >= g->cap) {
        int cap = g->cap ? 2 * g->cap : 256;
        gk_action_t *a = realloc(g->acts, (size_t)cap * sizeof *a);
        if (!a) return -1;
        g->acts = a;
        g->cap = cap;
    }
    if (g->nturns + 1 >= g->tcap) {
        int cap = g->tcap ? 2 * g->tcap : 64;
        gk_pos_t *p = realloc(g->turn_pos, (size_t)cap * sizeof *p);
        if (!p) return -1;
        g->turn_pos = p;
        int *a = realloc(g->turn_act, (size_t)cap * sizeof *a);
        if (!a) return -1;
        g->turn_act = a;
        int *h = realloc(g->turn_hist, (size_t)cap * sizeof *h);
        if (!h) return -1;
        g->turn_hist = h;
        g->tcap = cap;
    }
    return 0;
}

/* Records the start of a new turn at the current position. */
static int begin_turn(game_t *g) {
    if (grow(g)) return -1;
    g->turn_pos[g->nturns] = g->pos;
    g->turn_act[g->nturns] = g->nacts;
    g->turn_hist[g->nturns] = g->hist.n;
    g->nturns++;
    return 0;
}

/* Plays one action; after the last action of a turn updates the repetition history. */
static void play_action(game_t *g, player_t **engines, int nengines, gk_action_t a) {
    for (int i = 0; i < nengines; i++)
        if (engines[i]) player_observe(engines[i], &g->pos, a);
    g->acts[g->nacts++] = a;
    gk_play_turn(&g->pos, &g->hist, a);
}

/* Takes back to the start of turn t. */
static void back_to(game_t *g, int t) {
    g->pos = g->turn_pos[t];
    g->nacts = g->turn_act[t];
    g->hist.n = g->turn_hist[t];
    g->nturns = t;
}

/* A line of file letters ("    a b c ..."): the column of each letter in col[], their
 * number, or 0 when the line is not one. */
static int file_letters(const char *line, size_t len, int *col, int maxn) {
    int n = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == ' ') continue;
        if (n >= maxn || line[i] != 'a' + n) return 0;
        col[n++] = (int)i;
    }
    return n >= 2 ? n : 0;
}

/* The layout of a board text: its lines, the header and footer lines of file letters and
 * the letters' columns.  0 when the text has no such shape. */
typedef struct layout {
    char *line[64];
    size_t len[64];
    int n, nf, head, foot, col[16];
} layout_t;

static int board_layout(char *buf, layout_t *L) {
    L->n = 0, L->nf = 0, L->head = L->foot = -1;
    for (char *p = buf; *p && L->n < 64; L->n++) {
        char *e = strchr(p, '\n');
        L->line[L->n] = p;
        L->len[L->n] = e ? (size_t)(e - p) : strlen(p);
        p += L->len[L->n] + (e ? 1 : 0);
    }
    for (int i = 0; i < L->n; i++) {
        int c[16], k = file_letters(L->line[i], L->len[i], c, 16);
        if (!k) continue;
        if (L->head < 0) {
            L->head = i, L->nf = k;
            memcpy(L->col, c, sizeof c);
        } else if (k == L->nf) {
            L->foot = i;
            break;
        }
    }
    int w = L->nf >= 2 ? L->col[1] - L->col[0] : 0;
    return L->foot > 0 && w >= 2 && L->col[0] >= w / 2;
}

/* Marks with '*' the squares whose text differs from the board before the last move
 * (prev, the same game's board text): what the move changed. */
static void mark_changes(char *buf, char *prev) {
    layout_t a, b;
    if (!board_layout(buf, &a) || !board_layout(prev, &b) || a.foot != b.foot || a.nf != b.nf)
        return;
    int w = a.col[1] - a.col[0], x0 = a.col[0] - w / 2;
    for (int i = a.head + 1; i < a.foot; i++) {
        if (a.len[i] != b.len[i] || (size_t)(x0 + a.nf * w) > a.len[i]) continue;
        for (int f = 0; f < a.nf; f++) {
            char *c = a.line[i] + x0 + f * w;
            if (!memcmp(c, b.line[i] + x0 + f * w, (size_t)w)) continue;
            int k = 0;
            while (k < w && c[k] == ' ') k++;
            if (k > 0 && k < w) c[k - 1] = '*';
        }
    }
}

/* The board text turned by 180 degrees (--flip: the first rank at the top, the files from
 * right to left), in place.  Each square's text is centred on its file letter, so the
 * squares of a rank line move as blocks of the letters' spacing.  A text of another shape
 * is left as it is. */
static void flip_board(char *buf) {
    char out[GK_BOARD_TEXT_MAX], *line[64];
    size_t len[64];
    int n = 0, col[16], nf = 0, head = -1, foot = -1;
    for (char *p = buf; *p && n < 64; n++) {
        char *e = strchr(p, '\n');
        line[n] = p;
        len[n] = e ? (size_t)(e - p) : strlen(p);
        p += len[n] + (e ? 1 : 0);
    }
    for (int i = 0; i < n; i++) {
        int c[16], k = file_letters(line[i], len[i], c, 16);
        if (!k) continue;
        if (head < 0) {
            head = i, nf = k;
            memcpy(col, c, sizeof c);
        } else if (k == nf) {
            foot = i;
            break;
        }
    }
    int w = nf >= 2 ? col[1] - col[0] : 0;
    if (foot < 0 || w < 1 || col[0] < w / 2) return;
    size_t o = 0;
    for (int i = 0; i < n && o + 200 < sizeof out; i++) {
        int src = i > head && i < foot ? head + foot - i : i; /* ranks in reverse */
        char l[256];
        size_t m = len[src] < sizeof l - 1 ? len[src] : sizeof l - 1;
        memcpy(l, line[src], m);
        l[m] = 0;
        if (i == head || i == foot) {
            for (int f = 0; f < nf; f++) l[col[f]] = (char)('a' + nf - 1 - f);
        } else if (i > head && i < foot) {
            int x0 = col[0] - w / 2; /* square f is l[x0 + f*w .. +w) */
            if ((size_t)(x0 + nf * w) <= m) {
                char t[256];
                memcpy(t, l, m + 1);
                for (int f = 0; f < nf; f++)
                    memcpy(l + x0 + f * w, t + x0 + (nf - 1 - f) * w, (size_t)w);
            }
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%s\n", l);
    }
    memcpy(buf, out, o + 1);
}

/* The board; at the end of the game without the result its last line states (Gounki
 * "game over after turn N: R (reason)", Gobs "...; game over R (reason)"), which the
 * "game over: R (reason)" line that follows says once. */
static void show_board(const game_t *g, int quiet) {
    if (quiet) return;
    char buf[GK_BOARD_TEXT_MAX];
    const gk_game_t *gm = gk_game_of(&g->pos);
    if (gm->board_text(&g->pos, buf, sizeof buf) < 0) return;
    char prev[GK_BOARD_TEXT_MAX];
    if (g->nturns > 0 && gm->board_text(&g->turn_pos[g->nturns - 1], prev, sizeof prev) >= 0)
        mark_changes(buf, prev);
    if (g->flip) flip_board(buf);
    size_t n = strlen(buf);
    if (gk_over(&g->pos) && n > 1) {
        size_t last = n - 1; /* the start of the last line */
        while (last > 0 && buf[last - 1] != '\n') last--;
        char *over = strstr(buf + last, "game over");
        if (over == buf + last)
            buf[last] = 0;
        else if (over && over >= buf + last + 2 && over[-2] == ';')
            strcpy(over - 2, "\n");
    }
    fputs(buf, stdout);
}

/* One line under the board saying what its letters mean. */
static void show_legend(const game_t *g) {
    if (g->pos.game == GK_GAME_GOBS)
        printf("legend: w a disc white side up, b black side up (the side up is its owner); "
               "* what the last move changed\n");
    else
        printf("legend: w White, b Black; R a round, S a square; a stack lists its pieces "
               "(wRRS); * the squares of the last move\n");
}

static const char *side_name(int side) {
    return side == GK_WHITE ? "White" : "Black";
}

static void show_result(const gk_pos_t *p) {
    printf("game over: %s (%s)\n", gk_result_text((gk_result_t)p->result),
           gk_reason_text((gk_reason_t)p->reason));
}

typedef struct list_ctx {
    const gk_game_t *g;
    int col;
} list_ctx_t;

static int list_one(void *vc, const gk_pos_t *start, const gk_action_t *seq, int n) {
    list_ctx_t *c = vc;
    char mv[GK_MOVE_TEXT_MAX];
    if (c->g->move_text(start, seq, n, mv, sizeof mv) < 0) return 0;
    int len = (int)strlen(mv) + 1;
    if (c->col + len > 78) {
        printf("\n");
        c->col = 0;
    }
    c->col += printf(" %s", mv);
    return 0;
}

static void list_moves(const gk_pos_t *p) {
    list_ctx_t c = {gk_game_of(p), 0};
    uint64_t n = gk_enum_moves(p, 200, list_one, &c);
    printf("\n%llu move%s shown%s\n", (unsigned long long)n, n == 1 ? "" : "s",
           n >= 200 ? " (the first 200)" : "");
}

static int save_game(const game_t *g, const char *path, const char *white, const char *black) {
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int rc = record_write_game(f, &g->start, g->acts, g->nacts, (gk_result_t)g->pos.result,
                               (gk_reason_t)g->pos.reason, "gounki play", NULL, white, black);
    if (fclose(f)) rc = -1;
    if (rc)
        printf("writing '%s' failed\n", path);
    else
        printf("saved to %s\n", path);
    return rc;
}

/* What an engine shows while it thinks: the search's state once a second on a terminal
 * (one line that replaces itself, on standard error), every 10 s otherwise. */
typedef struct think {
    const gk_pos_t *pos; /* the position searched; NULL between searches */
    gk_progress_t prog;
} think_t;

static void think_info(const mcts_result_t *r, void *ctx) {
    think_t *t = ctx;
    if (!t->pos || !gk_progress_due(&t->prog)) return;
    char mv[GK_MOVE_TEXT_MAX] = "-";
    if (r->best != GK_NO_ACTION &&
        gk_game_of(t->pos)->action_text(t->pos, r->best, mv, sizeof mv) < 0)
        snprintf(mv, sizeof mv, "?");
    gk_progress_line(&t->prog, "thinking: %llu playouts, best %s (win %.1f%%), %.0f s",
                     (unsigned long long)r->playouts, mv, 100.0 * r->value, r->seconds);
}

/* The engine plays a whole turn for the side to move.  Returns 0, 1 when Ctrl-C stopped
 * its search (it played its best action so far), -1 on a failure. */
static int engine_turn(game_t *g, player_t *eng, player_t **all, int nall, uint64_t *seed,
                       think_t *th) {
    gk_pos_t turn = g->pos;
    gk_action_t seq[GK_MAX_TURN];
    int k = 0;
    double secs = 0, value = 0.5;
    char info[200] = "";
    if (begin_turn(g)) return -1;
    atomic_store(&think_stop, 0);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    gk_progress_init(&th->prog, stderr, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    th->pos = &g->pos;
    do {
        player_move_t mv;
        if (player_choose(eng, &g->pos, &g->hist, gk_splitmix64(seed), &mv) < 0) {
            sigaction(SIGINT, &old, NULL);
            th->pos = NULL;
            gk_progress_end(&th->prog);
            cli_error(CMD, "the engine found no move");
            return -1;
        }
        if (k == 0) {
            value = mv.value;
            snprintf(info, sizeof info, "%s", mv.info);
        }
        secs += mv.seconds;
        seq[k++] = mv.action;
        play_action(g, all, nall, mv.action);
    } while (g->pos.in_turn != 0 && !gk_over(&g->pos) && k < GK_MAX_TURN);
    sigaction(SIGINT, &old, NULL);
    th->pos = NULL;
    gk_progress_end(&th->prog);
    int stopped = atomic_load(&think_stop);
    if (stopped) printf("(stopped by Ctrl-C: the engine plays its best move so far)\n");
    char text[GK_MOVE_TEXT_MAX];
    if (gk_game_of(&turn)->move_text(&turn, seq, k, text, sizeof text) < 0)
        snprintf(text, sizeof text, "?");
    if (info[0]) /* a player that evaluates (random has no value and no info) */
        printf("%s plays %s   (win %.1f%%, %.2f s; %s)\n", side_name(turn.stm), text, 100.0 * value,
               secs, info);
    else
        printf("%s plays %s   (%.2f s)\n", side_name(turn.stm), text, secs);
    return stopped ? 1 : 0;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

/* A game at the terminal: the game, the engines, who plays which side. */
typedef struct session {
    game_t g;
    player_t *eng[2];      /* the engine objects (eng[1] NULL when one plays both sides) */
    player_t *for_side[2]; /* the engine of each side, NULL for a person */
    int human[2], quiet_board, announced;
    const char *name[2]; /* White and Black in the game record */
    uint64_t rng, seed;
    gk_rules_t rules; /* of the session: a loaded record must be of this game */
    const char *save; /* --save FILE, written when the session ends */
    int tty;          /* standard input is a terminal: line editing, history */
    think_t think;
} session_t;

enum { O_HUMAN = 0x2001, O_ENGINE, O_ENGINE2, O_QUIETB, O_SAVE, O_FLIP };

typedef struct own {
    const char *spec, *spec2, *save;
    int human[2], quiet_board, flip;
} own_t;

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    own_t *o = state;
    int k;
    char err[200];
    switch (opt) {
    case O_HUMAN:
        if (params_choice(arg, "white|black|both|none", &k, err, sizeof err)) {
            cli_error(cmd, "--human: %s", err);
            return -1;
        }
        o->human[0] = k == 0 || k == 2;
        o->human[1] = k == 1 || k == 2;
        return 1;
    case O_ENGINE: o->spec = arg; return 1;
    case O_ENGINE2: o->spec2 = arg; return 1;
    case O_QUIETB: o->quiet_board = 1; return 1;
    case O_SAVE: o->save = arg; return 1;
    case O_FLIP: o->flip = 1; return 1;
    }
    return 0;
}

/* Replays --moves as turns of the game, so that undo and save see them. */
static int replay_moves(game_t *g, const char *moves) {
    for (const char *s = moves; *s;) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s) break;
        const char *e = s;
        while (*e && !isspace((unsigned char)*e)) e++;
        char tok[GK_MOVE_TEXT_MAX], err[256];
        size_t len = (size_t)(e - s) < sizeof tok - 1 ? (size_t)(e - s) : sizeof tok - 1;
        memcpy(tok, s, len);
        tok[len] = 0;
        gk_action_t seq[GK_MAX_TURN];
        int n = gk_game_of(&g->pos)->parse_move(&g->pos, tok, seq, GK_MAX_TURN, err, sizeof err);
        if (n >= 0 && gk_over(&g->pos)) {
            n = -1;
            snprintf(err, sizeof err, "the game is already over");
        }
        if (n < 0 || begin_turn(g)) {
            cli_error(CMD, "--moves: '%s': %s", tok, n < 0 ? err : "out of memory");
            return CLI_FAIL;
        }
        for (int i = 0; i < n; i++) play_action(g, NULL, 0, seq[i]);
        s = e;
    }
    return CLI_OK;
}

/* Makes the engines of the sides no person plays.  Returns an exit status. */
static int make_engines(session_t *S, const own_t *o, uint64_t seed) {
    for (int side = 0; side < 2; side++) {
        if (S->human[side]) continue;
        if (side == GK_BLACK && !o->spec2 && S->eng[0]) break; /* one object, one tree */
        const char *sp = side == GK_BLACK && o->spec2 ? o->spec2 : o->spec;
        const char *flag = side == GK_BLACK && o->spec2 ? "--engine2" : "--engine";
        int rc = cli_new_player(CMD, flag, sp, S->g.pos.game, &S->eng[side]);
        if (rc) return rc;
        if (player_new_game(S->eng[side], seed + (uint64_t)side)) {
            cli_error(CMD, "%s: out of memory", flag);
            return CLI_FAIL;
        }
        const mcts_monitor_t mon = {&think_stop, think_info, &S->think, 1.0};
        player_set_monitor(S->eng[side], &mon);
    }
    S->for_side[0] = S->eng[0];
    S->for_side[1] = S->eng[1] ? S->eng[1] : S->eng[0];
    S->name[0] = S->human[0] ? "human" : o->spec;
    S->name[1] = S->human[1] ? "human" : (o->spec2 ? o->spec2 : o->spec);
    return CLI_OK;
}

/* load FILE: the game of a record replaces the game at the prompt (the same game and rule
 * set as the session); the engines start a new game and follow its moves. */
static void load_game(session_t *S, const char *path) {
    game_t *g = &S->g;
    char *text = NULL, err[300];
    size_t len = 0;
    if (gk_read_file(path, (size_t)64 << 20, &text, &len, err, sizeof err)) {
        printf("cannot load: %s\n", err);
        return;
    }
    static gk_record_t rec; /* large; one at a time */
    int rc = gk_record_read(&rec, text, len, &S->rules, err, sizeof err);
    free(text);
    if (!rc && (rec.rules.game != S->rules.game || rec.rules.variant != S->rules.variant)) {
        snprintf(err, sizeof err, "the record is a %s (%s) game, this session plays %s (%s)",
                 gk_game_by_id(rec.rules.game)->name,
                 gk_game_by_id(rec.rules.game)->variants[rec.rules.variant],
                 gk_game_of(&g->start)->name, gk_game_of(&g->start)->variants[S->rules.variant]);
        rc = -1;
    }
    if (rc) {
        printf("cannot load %s: %s\n", path, err);
        gk_record_free(&rec);
        return;
    }
    g->start = g->pos = rec.start;
    g->nacts = g->nturns = 0;
    gk_hist_init(&g->hist, &g->start);
    for (int side = 0; side < 2; side++)
        if (S->eng[side]) player_new_game(S->eng[side], S->seed + (uint64_t)side);
    for (int m = 0; m < rec.nmoves && !gk_over(&g->pos); m++) {
        if (begin_turn(g)) break;
        for (int i = rec.move_start[m]; i < rec.move_start[m + 1]; i++)
            play_action(g, S->eng, 2, rec.actions[i]);
    }
    gk_record_free(&rec);
    S->announced = 0;
    printf("loaded %s: %d move%s, turn %d, %s to move\n", path, g->nturns,
           g->nturns != 1 ? "s" : "", g->pos.turn + 1, side_name(g->pos.stm));
    show_board(g, S->quiet_board);
}

/* hint: the engine's choice for the side to move (the next action, a whole move in
 * Gounki), from the engine of that side or else of the other. */
static void hint(session_t *S) {
    game_t *g = &S->g;
    player_t *eng = S->for_side[g->pos.stm] ? S->for_side[g->pos.stm] : S->for_side[!g->pos.stm];
    if (gk_over(&g->pos)) {
        printf("the game is over\n");
        return;
    }
    if (!eng) {
        printf("no engine to ask (--human both)\n");
        return;
    }
    player_move_t mv;
    uint64_t seed = S->rng;
    S->think.pos = &g->pos;
    gk_progress_init(&S->think.prog, stderr, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    int rc = player_choose(eng, &g->pos, &g->hist, gk_splitmix64(&seed), &mv);
    gk_progress_end(&S->think.prog);
    S->think.pos = NULL;
    char text[GK_MOVE_TEXT_MAX] = "?";
    if (rc < 0 || gk_game_of(&g->pos)->action_text(&g->pos, mv.action, text, sizeof text) < 0) {
        printf("the engine found no move\n");
        return;
    }
    gk_pos_t after = g->pos; /* a jump chain's first leg: more may follow */
    gk_play(&after, mv.action);
    printf("hint: %s%s   (win %.1f%%, %.2f s)\n", text,
           after.in_turn != 0 && !gk_over(&after) ? " (and on)" : "", 100.0 * mv.value, mv.seconds);
}

/* The command word of a line, lower-cased (commands are read in any case). */
static void command_word(const char *line, char *w, size_t cap) {
    size_t n = 0;
    while (line[n] && !isspace((unsigned char)line[n]) && n + 1 < cap) {
        w[n] = (char)tolower((unsigned char)line[n]);
        n++;
    }
    w[n] = 0;
}

/* One line typed at the prompt.  Returns 0 to go on, 1 to leave, -1 on a failure. */
static int command(session_t *S, char *cmd) {
    game_t *g = &S->g;
    const gk_game_t *gm = gk_game_of(&g->pos);
    int stm = g->pos.stm;
    char w[16];
    command_word(cmd, w, sizeof w);
    const bool alone = !cmd[strlen(w)]; /* the word is the whole line */
    if (alone && (!strcmp(w, "help") || !strcmp(w, "?"))) {
        help_text();
    } else if (alone && (!strcmp(w, "quit") || !strcmp(w, "exit"))) {
        printf("bye\n");
        return 1;
    } else if (alone && !strcmp(w, "board")) {
        show_board(g, 0);
        show_legend(g);
    } else if (alone && !strcmp(w, "moves")) {
        if (gk_over(&g->pos))
            printf("the game is over\n");
        else
            list_moves(&g->pos);
    } else if (alone && !strcmp(w, "hint")) {
        hint(S);
    } else if (!strcmp(w, "save") || !strcmp(w, "load")) {
        char *path = trim(cmd + 4);
        if (!*path)
            printf("%s needs a file name: %s FILE\n", w, w);
        else if (w[0] == 's')
            save_game(g, path, S->name[0], S->name[1]);
        else
            load_game(S, path);
    } else if (alone && !strcmp(w, "undo")) {
        /* Back to the start of the last turn a person played. */
        int t = g->nturns - 1;
        while (t >= 0 && !S->human[g->turn_pos[t].stm]) t--;
        if (t < 0) {
            printf("nothing to undo\n");
        } else {
            back_to(g, t);
            S->announced = 0;
            printf("took back to turn %d, %s to move\n", g->pos.turn + 1, side_name(g->pos.stm));
            show_board(g, S->quiet_board);
        }
    } else if (alone && !strcmp(w, "resign")) {
        if (gk_over(&g->pos)) {
            printf("the game is already over\n");
        } else {
            if (begin_turn(g)) return -1;
            gk_set_result(&g->pos, stm == GK_WHITE ? GK_WIN_BLACK : GK_WIN_WHITE, GK_REASON_RESIGN);
            printf("%s resigns\n", side_name(stm));
        }
    } else if (gk_over(&g->pos)) {
        printf("the game is over (%s): undo, save FILE or quit\n",
               gk_reason_text((gk_reason_t)g->pos.reason));
    } else {
        gk_action_t seq[GK_MAX_TURN];
        char perr[256];
        int n = gm->parse_move(&g->pos, cmd, seq, GK_MAX_TURN, perr, sizeof perr);
        if (n < 0) {
            printf("illegal move '%s': %s (type 'moves' for the legal moves)\n", cmd, perr);
            return 0;
        }
        if (begin_turn(g)) return -1;
        gk_pos_t turn = g->pos;
        for (int i = 0; i < n; i++) play_action(g, S->eng, 2, seq[i]);
        char text[GK_MOVE_TEXT_MAX];
        if (gm->move_text(&turn, seq, n, text, sizeof text) < 0) snprintf(text, sizeof text, "?");
        printf("%s plays %s\n", side_name(turn.stm), text);
        show_board(g, S->quiet_board);
    }
    return 0;
}

/* One line from standard input after the prompt: with line editing and history on a
 * terminal (libedit), plain otherwise.  Returns 0, 1 at the end of input, 2 for a line
 * too long. */
static int read_line(const session_t *S, const char *prompt, char *line, size_t cap) {
#ifdef GK_HAVE_LIBEDIT
    if (S->tty) {
        char *l = readline(prompt);
        if (!l) return 1;
        if (*l) add_history(l);
        size_t n = strlen(l);
        int rc = n + 1 < cap ? 0 : 2;
        if (!rc) memcpy(line, l, n + 1);
        free(l);
        return rc;
    }
#else
    (void)S;
#endif
    fputs(prompt, stdout);
    fflush(stdout);
    if (!fgets(line, (int)cap, stdin)) return 1;
    if (!strchr(line, '\n') && !feof(stdin)) {
        int c;
        while ((c = getchar()) != '\n' && c != EOF) {
        }
        return 2;
    }
    return 0;
}

/* Plays until the end of input, quit, or (engines alone) the end of the game. */
static int play_loop(session_t *S) {
    game_t *g = &S->g;
    char line[LINE_MAX_LEN];
    for (;;) {
        if (gk_over(&g->pos) && !S->announced) {
            show_result(&g->pos);
            S->announced = 1;
            if (!S->human[0] && !S->human[1]) return CLI_OK;
        }
        int stm = g->pos.stm;
        gk_action_t list[GK_MAX_ACTIONS];
        if (!gk_over(&g->pos) && gk_gen(&g->pos, list) == 0) {
            gk_apply_no_move(&g->pos);
            continue;
        }
        if (!gk_over(&g->pos) && !S->human[stm]) {
            int r = engine_turn(g, S->for_side[stm], S->eng, 2, &S->rng, &S->think);
            if (r < 0) return CLI_FAIL;
            show_board(g, S->quiet_board);
            if (r > 0 && !S->human[0] && !S->human[1]) {
                printf("interrupted\n");
                return 3; /* stopped by a signal */
            }
            continue;
        }
        /* A person's turn, or the game is over and commands are still taken. */
        const char *prompt = gk_over(&g->pos)  ? "(game over) > "
                             : stm == GK_WHITE ? "white> "
                                               : "black> ";
        int lr = read_line(S, prompt, line, sizeof line);
        if (lr == 1) {
            printf("\nend of input: bye\n");
            return CLI_OK;
        }
        if (lr == 2) {
            printf("line too long (at most %d characters)\n", LINE_MAX_LEN - 2);
            continue;
        }
        char *cmd = trim(line);
        int r = *cmd ? command(S, cmd) : 0;
        if (r) return r > 0 ? CLI_OK : CLI_FAIL;
    }
}

static int start(session_t *S, int argc, char **argv) {
    static const struct option run_opts[] = {CLI_LONGOPT_SEED, {0, 0, 0, 0}};
    static const struct option own_opts[] = {{"human", required_argument, 0, O_HUMAN},
                                             {"engine", required_argument, 0, O_ENGINE},
                                             {"engine2", required_argument, 0, O_ENGINE2},
                                             {"quiet-board", no_argument, 0, O_QUIETB},
                                             {"save", required_argument, 0, O_SAVE},
                                             {"flip", no_argument, 0, O_FLIP},
                                             {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    cli_run_t run;
    cli_run_init(&run, run_opts);
    own_t o = {DEFAULT_ENGINE, NULL, NULL, {1, 0}, 0, 0};
    const cli_group_t groups[] = {
        cli_pos_group(&po), cli_run_group(&run), {own_opts, own_take, &o}};
    int first, rc = cli_getopt(CMD, argc, argv, groups, 3, 0, &first);
    if (rc) return rc;
    if (o.spec2 && (o.human[0] || o.human[1])) {
        cli_error(CMD, "--engine2 is only for --human none");
        return CLI_USAGE;
    }
    S->human[0] = o.human[0];
    S->human[1] = o.human[1];
    S->quiet_board = o.quiet_board;
    S->rng = S->seed = run.seed;
    S->save = o.save;
    /* The board from the person's side: Black's first rank at the bottom for --human black. */
    S->g.flip = o.flip || (o.human[1] && !o.human[0]);
    S->tty = isatty(STDIN_FILENO);
    if ((rc = cli_rules(CMD, &po, &S->rules))) return rc;
    cli_pos_opts_t po0 = po;
    po0.moves = NULL;
    if ((rc = cli_load_position(CMD, &po0, &S->g.start, &S->g.hist))) return rc;
    if (S->g.start.in_turn != 0) {
        cli_error(CMD, "--position: the position is in the middle of a turn; give a turn start");
        return CLI_USAGE;
    }
    S->g.pos = S->g.start;
    if (po.moves && (rc = replay_moves(&S->g, po.moves))) return rc;
    return make_engines(S, &o, run.seed);
}

int cmd_play(int argc, char **argv) {
    static session_t S; /* large (the game's history); one per process */
    memset(&S, 0, sizeof S);
    int rc = start(&S, argc, argv);
    if (rc == CLI_HELP) {
        usage(stdout);
        rc = CLI_OK;
    } else if (rc == CLI_OK) {
        const gk_game_t *gm = gk_game_of(&S.g.pos);
        printf("gounki play: %s (%s); White: %s, Black: %s.  Type 'help' for commands.\n", gm->name,
               gm->variants[S.g.pos.variant], S.name[0], S.name[1]);
        show_board(&S.g, S.quiet_board);
        if (!S.quiet_board) show_legend(&S.g);
        rc = play_loop(&S);
        if (S.save && save_game(&S.g, S.save, S.name[0], S.name[1]) && rc == CLI_OK) rc = CLI_FAIL;
    }
    player_free(S.eng[0]);
    player_free(S.eng[1]);
    free(S.g.acts);
    free(S.g.turn_pos);
    free(S.g.turn_act);
    free(S.g.turn_hist);
    return rc;
}
