/* cli/cmd_play.c -- `gounki play`: a person against the engine in the terminal (or the
 * engine against itself with the moves shown). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/params.h"
#include "cli.h"
#include "record_out.h"

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
               "  --quiet-board      do not print the board after each move\n" CLI_POS_HELP "\n"
               "Commands at the prompt: a move (e.g. b2-b3, c5*d5,e5,f6, g4:d4:b4), undo (takes\n"
               "back your last move and the engine's answer), resign, save FILE (game record),\n"
               "moves (the legal moves), board, help, quit.  End of input quits.\n");
}

static void help_text(void) {
    printf(
        "  MOVE        a complete move in the notation, e.g. b2-b3, f7xe7, a1-a2+, c5*d5,e5,f6,\n"
        "              e6*d7,c8,Out; Gobs: a3-a5, a3xa7, g4:d4:b4:b6:f6\n"
        "  undo        take back your last move (and the engine's answer)\n"
        "  resign      give up the game\n"
        "  save FILE   write the game so far as a game record (gounki replay FILE)\n"
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
    gk_play(&g->pos, a);
    if (g->pos.in_turn == 0 && !gk_over(&g->pos)) {
        gk_hist_push(&g->hist, &g->pos);
        gk_hist_check_repetition(&g->hist, &g->pos);
    }
}

/* Takes back to the start of turn t. */
static void back_to(game_t *g, int t) {
    g->pos = g->turn_pos[t];
    g->nacts = g->turn_act[t];
    g->hist.n = g->turn_hist[t];
    g->nturns = t;
}

/* The board; at the end of the game without the result its last line states (Gounki
 * "game over after ply N: R (reason)", Gobs "...; game over R (reason)"), which the
 * "game over: R (reason)" line that follows says once. */
static void show_board(const game_t *g, int quiet) {
    if (quiet) return;
    char buf[GK_BOARD_TEXT_MAX];
    if (gk_game_of(&g->pos)->board_text(&g->pos, buf, sizeof buf) < 0) return;
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

/* The engine plays a whole turn for the side to move. */
static int engine_turn(game_t *g, player_t *eng, player_t **all, int nall, uint64_t *seed) {
    gk_pos_t turn = g->pos;
    gk_action_t seq[GK_MAX_TURN];
    int k = 0;
    double secs = 0, value = 0.5;
    char info[200] = "";
    if (begin_turn(g)) return -1;
    do {
        player_move_t mv;
        if (player_choose(eng, &g->pos, &g->hist, gk_splitmix64(seed), &mv) < 0) {
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
    char text[GK_MOVE_TEXT_MAX];
    if (gk_game_of(&turn)->move_text(&turn, seq, k, text, sizeof text) < 0)
        snprintf(text, sizeof text, "?");
    if (info[0]) /* a player that evaluates (random has no value and no info) */
        printf("%s plays %s   (win %.1f%%, %.2f s; %s)\n", side_name(turn.stm), text, 100.0 * value,
               secs, info);
    else
        printf("%s plays %s   (%.2f s)\n", side_name(turn.stm), text, secs);
    return 0;
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
    uint64_t rng;
} session_t;

enum { O_HUMAN = 0x2001, O_ENGINE, O_ENGINE2, O_QUIETB };

typedef struct own {
    const char *spec, *spec2;
    int human[2], quiet_board;
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
    }
    S->for_side[0] = S->eng[0];
    S->for_side[1] = S->eng[1] ? S->eng[1] : S->eng[0];
    S->name[0] = S->human[0] ? "human" : o->spec;
    S->name[1] = S->human[1] ? "human" : (o->spec2 ? o->spec2 : o->spec);
    return CLI_OK;
}

/* One line typed at the prompt.  Returns 0 to go on, 1 to leave, -1 on a failure. */
static int command(session_t *S, char *cmd) {
    game_t *g = &S->g;
    const gk_game_t *gm = gk_game_of(&g->pos);
    int stm = g->pos.stm;
    if (!strcmp(cmd, "help") || !strcmp(cmd, "?")) {
        help_text();
    } else if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) {
        printf("bye\n");
        return 1;
    } else if (!strcmp(cmd, "board")) {
        show_board(g, 0);
    } else if (!strcmp(cmd, "moves")) {
        if (gk_over(&g->pos))
            printf("the game is over\n");
        else
            list_moves(&g->pos);
    } else if (!strncmp(cmd, "save", 4) && (cmd[4] == 0 || isspace((unsigned char)cmd[4]))) {
        char *path = trim(cmd + 4);
        if (!*path)
            printf("save needs a file name: save FILE\n");
        else
            save_game(g, path, S->name[0], S->name[1]);
    } else if (!strcmp(cmd, "undo")) {
        /* Back to the start of the last turn a person played. */
        int t = g->nturns - 1;
        while (t >= 0 && !S->human[g->turn_pos[t].stm]) t--;
        if (t < 0) {
            printf("nothing to undo\n");
        } else {
            back_to(g, t);
            S->announced = 0;
            printf("took back to ply %d, %s to move\n", g->pos.ply, side_name(g->pos.stm));
            show_board(g, S->quiet_board);
        }
    } else if (!strcmp(cmd, "resign")) {
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
            if (engine_turn(g, S->for_side[stm], S->eng, 2, &S->rng)) return CLI_FAIL;
            show_board(g, S->quiet_board);
            continue;
        }
        /* A person's turn, or the game is over and commands are still taken. */
        if (gk_over(&g->pos))
            printf("(game over) > ");
        else
            printf("%s> ", stm == GK_WHITE ? "white" : "black");
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin)) {
            printf("\nend of input: bye\n");
            return CLI_OK;
        }
        if (!strchr(line, '\n') && !feof(stdin)) {
            int c;
            while ((c = getchar()) != '\n' && c != EOF) {
            }
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
                                             {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    cli_run_t run;
    cli_run_init(&run, run_opts);
    own_t o = {DEFAULT_ENGINE, NULL, {1, 0}, 0};
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
    S->rng = run.seed;
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
        rc = play_loop(&S);
    }
    player_free(S.eng[0]);
    player_free(S.eng[1]);
    free(S.g.acts);
    free(S.g.turn_pos);
    free(S.g.turn_act);
    free(S.g.turn_hist);
    return rc;
}
