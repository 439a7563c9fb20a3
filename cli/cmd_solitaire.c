/* cli/cmd_solitaire.c -- `gounki solitaire`: solve the one-player Gobs puzzle. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/progress.h"
#include "../solitaire/solitaire.h"
#include "cli.h"

const char cmd_solitaire_summary[] = "solve the one-player Gobs puzzle (shortest, proven)";

enum { BEAM_DEFAULT = 20000, MIRROR_DEFAULT = 100000 };

static const char help[] =
    "usage: gounki solitaire N [--preflip SQUARE] [--white SQUARES] [--fixed SQUARES]\n"
    "                          [--beam W] [--mirror W] [--max-nodes N] [--time S]\n"
    "                          [--hash MB] [--threads T] [--quiet]\n"
    "Finds a solution of the one-player Gobs puzzle on an N x N square (N = 2..7) with a\n"
    "beam search and a search for palindromes (a half, then its mirror image backwards),\n"
    "then a shorter one or the proof that none is shorter (IDA* with a transposition\n"
    "table, up to the found length).  A move 'd4xd5-d6': the piece\n"
    "on d4 jumps the adjacent piece on d5 (which turns over) and lands on d6.  Rules and\n"
    "every decision: docs/RULES.md, \"Gobs solitaire\".  The square covers files and ranks\n"
    "(9-N)/2+1 .. (9-N)/2+N (2x2 = d4 e4 d5 e5, 3x3 = d4..f6, 7x7 = b2..h8).\n"
    "  --preflip SQUARE   the piece on SQUARE starts white side up and moves first\n"
    "  --white SQUARES    comma-separated squares whose pieces start white side up, with no\n"
    "                     duty to move first (the seed's 7x7 variant: --white e5)\n"
    "  --fixed SQUARES    comma-separated squares (\"e5,d4\") of fixed pieces: they never\n"
    "                     move, turn over nor get jumped, and need not end white\n"
    "  --beam W           the finder keeps W positions per move (default 20000; 0 = no\n"
    "                     finder)\n"
    "  --mirror W         the palindrome finder keeps W positions per move (default 100000;\n"
    "                     0 = none); it runs when the finder's solution is not already as\n"
    "                     short as the start's lower bound, for a shorter one\n"
    "  --max-nodes N      give up after N positions in all; each finder gets half of it\n"
    "                     from its start (default: no limit; the finder stops at 20 M, the\n"
    "                     palindrome finder at 1 G)\n"
    "  --time S           give up after S seconds, each finder getting half (default: none)\n"
    "  --hash MB          the most the transposition table grows to (default 256, per\n"
    "                     MPI rank; it starts at 1 MB and doubles when half full, except\n"
    "                     that the proof's threads share one table allocated whole)\n"
    "  --threads T        the proof's threads (per MPI rank; default 1).  Under mpirun\n"
    "                     (or srun) the ranks split each IDA* iteration too; the solution\n"
    "                     is the same at any split, only the node counts change\n"
    "  --quiet            no progress lines (from 5x5 on, standard error shows the bound,\n"
    "                     nodes and nodes/s once a second on a terminal, every 10 s otherwise)\n"
    "Output ends with 'solved in L moves, shortest: proven', or 'best solution found: L\n"
    "moves; best lower bound: B (not proven shortest)', or 'not solved within budget'.\n"
    "Exit status: 0 solved and proven shortest, 1 otherwise (a solution found but not\n"
    "proven shortest, budget spent with none, or no solution), 2 usage.\n";

static void print_board(const gs_state_t *s) {
    for (int r = GS_SIZE - 1; r >= 0; r--) {
        printf("%d ", r + 1);
        for (int f = 0; f < GS_SIZE; f++) printf(" %c", ".bwF"[s->cell[9 * r + f]]);
        putchar('\n');
    }
    printf("   a b c d e f g h i\n");
}

static void show_progress(void *arg, int phase, int bound, uint64_t nodes, double seconds,
                          double done) {
    gk_progress_t *p = arg;
    if (!gk_progress_due(p)) return;
    char share[32] = "";
    if (done >= 0) snprintf(share, sizeof share, " (%.1f%% of its positions)", 100 * done);
    gk_progress_line(p, "solitaire: %s %d%s, %llu nodes, %.2f M nodes/s, %.0f s",
                     phase == GS_PHASE_FINDER      ? "finder, bound"
                     : phase == GS_PHASE_MIRROR    ? "mirror, length"
                     : phase == GS_PHASE_PERIMETER ? "perimeter, distance"
                                                   : "bound",
                     bound, share, (unsigned long long)nodes,
                     seconds > 0 ? (double)nodes / seconds / 1e6 : 0.0, seconds);
}

/* The problem from the flags; 0, or 1 after one error line. */
static int build_problem(gs_problem_t *prob, int n, const char *preflip, const char *fixed,
                         const char *white) {
    int err = gs_problem_init(prob, n);
    if (!err && fixed) {
        err = gs_problem_fix(prob, fixed);
        if (err) {
            cli_error("solitaire", "--fixed: '%s': %s", fixed, gs_strerror(err));
            return 1;
        }
    }
    if (!err && white) {
        err = gs_problem_white(prob, white);
        if (err) {
            cli_error("solitaire", "--white: '%s': %s", white, gs_strerror(err));
            return 1;
        }
    }
    if (!err && preflip) {
        prob->preflip = gs_square_parse(preflip);
        if (prob->preflip < 0) {
            cli_error("solitaire", "--preflip: '%s': %s", preflip, gs_strerror(prob->preflip));
            return 1;
        }
    }
    if (!err) err = gs_problem_check(prob);
    if (err) {
        cli_error("solitaire", "%s", gs_strerror(err));
        return 1;
    }
    return 0;
}

/* 1 when a launcher (mpirun, srun) started this process as one of several ranks. */
static int launched_by_mpi(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

/* 0, or 1 after an error line. */
static int mpi_begin(int *rank, int *ranks) {
    if (cli_mpi_begin("solitaire")) return 1;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, ranks) != MPI_SUCCESS) {
        cli_error("solitaire", "MPI setup failed");
        return 1;
    }
    return 0;
}

/* gs_limits_t.share over MPI_COMM_WORLD: the moves travel as bytes (length, then from,
 * over, to of each move), never as a struct. */
static int mpi_share(void *arg, gs_share_t *s) {
    (void)arg;
    int mins[2] = {s->next_bound, -s->aborted}, rank;
    unsigned long long nodes = s->nodes, key = s->key;
    if (MPI_Allreduce(MPI_IN_PLACE, mins, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &nodes, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &key, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
        return -1;
    int owner = key != ULLONG_MAX && s->key == key ? rank : INT_MAX;
    if (MPI_Allreduce(MPI_IN_PLACE, &owner, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    s->next_bound = mins[0], s->aborted = -mins[1], s->nodes = nodes, s->key = key;
    if (key == ULLONG_MAX) {
        s->len = 0;
        return 0;
    }
    unsigned char buf[1 + 3 * GS_MAX_LEN];
    buf[0] = (unsigned char)s->len;
    for (int i = 0; i < s->len; i++)
        buf[1 + 3 * i] = s->moves[i].from, buf[2 + 3 * i] = s->moves[i].over,
                    buf[3 + 3 * i] = s->moves[i].to;
    if (MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, owner, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    s->len = buf[0];
    for (int i = 0; i < s->len; i++)
        s->moves[i] = (gs_move_t){buf[1 + 3 * i], buf[2 + 3 * i], buf[3 + 3 * i]};
    return 0;
}

/* Replays and prints the solution and the figures; the exit status. */
static int print_result(const gs_problem_t *prob, gs_state_t *s, const gs_result_t *res, long beam,
                        int threads, int ranks) {
    if (res->status == GS_SOLVED || res->status == GS_FOUND) {
        for (int i = 0; i < res->len; i++) {
            char buf[9];
            gs_move_text(res->moves[i], buf);
            if (!gs_play(s, res->moves[i])) {
                cli_error("solitaire", "internal error: move %d %s is illegal", i + 1, buf);
                return CLI_FAIL;
            }
            printf("%d. %s\n", i + 1, buf);
        }
        if (!gs_is_goal(prob, s)) {
            cli_error("solitaire", "internal error: the solution does not reach the goal");
            return CLI_FAIL;
        }
        print_board(s);
    }
    if (res->found_len)
        printf("finder: %d moves, %llu nodes, %.3f s\n", res->found_len,
               (unsigned long long)res->found_nodes, res->found_seconds);
    else if (beam)
        printf("finder: no solution, %llu nodes, %.3f s\n", (unsigned long long)res->found_nodes,
               res->found_seconds);
    if (res->mirror_len)
        printf("mirror: %d moves, %llu nodes, %.3f s\n", res->mirror_len,
               (unsigned long long)res->mirror_nodes, res->mirror_seconds);
    else if (res->mirror_max)
        printf("mirror: no solution of at most %d moves%s, %llu nodes, %.3f s\n", res->mirror_max,
               res->mirror_aborted ? " before the budget ran out" : "",
               (unsigned long long)res->mirror_nodes, res->mirror_seconds);
    if (res->perim_radius >= 0)
        printf("perimeter: %zu positions within %d moves of the goal\n", res->perim_entries,
               res->perim_radius);
    if (threads > 1 || ranks > 1) {
        printf("proof split: %d rank%s x %d thread%s", ranks, ranks > 1 ? "s" : "", threads,
               threads > 1 ? "s" : "");
        if (res->frontier_depth)
            printf(", last frontier %llu positions at depth %d",
                   (unsigned long long)res->frontier_items, res->frontier_depth);
        putchar('\n');
    }
    printf("nodes %llu, time %.3f s, table %.1f MB\n", (unsigned long long)res->nodes, res->seconds,
           (double)res->tt_bytes / (1 << 20));
    if (res->status == GS_SOLVED) {
        printf("solved in %d moves, shortest: proven\n", res->len);
        return CLI_OK;
    }
    if (res->status == GS_FOUND)
        printf("best solution found: %d moves; best lower bound: %d (not proven shortest)\n",
               res->len, res->lower_bound);
    else if (res->status == GS_NONE)
        printf("no solution: every reachable position searched\n");
    else
        printf("not solved within budget: %llu nodes, best lower bound %d\n",
               (unsigned long long)res->nodes, res->lower_bound);
    return CLI_FAIL;
}

int cmd_solitaire(int argc, char **argv) {
    static const struct option opts[] = {
        {"preflip", required_argument, 0, 'p'}, {"fixed", required_argument, 0, 'f'},
        {"white", required_argument, 0, 'w'},   {"beam", required_argument, 0, 'b'},
        {"mirror", required_argument, 0, 'm'},  {"max-nodes", required_argument, 0, 'n'},
        {"time", required_argument, 0, 't'},    {"hash", required_argument, 0, 'H'},
        {"threads", required_argument, 0, 'T'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *preflip = NULL, *fixed = NULL, *white = NULL;
    long beam = BEAM_DEFAULT, mirror = MIRROR_DEFAULT;
    uint64_t max_nodes = 0;
    double seconds = 0;
    long hash_mb = 256, threads = 1, n;
    int quiet = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'q': quiet = 1; break;
        case 'p':
            if (preflip) {
                cli_error("solitaire", "--preflip given twice");
                return CLI_USAGE;
            }
            preflip = optarg;
            break;
        case 'f':
            if (fixed) {
                cli_error("solitaire", "--fixed given twice (list the squares with commas)");
                return CLI_USAGE;
            }
            fixed = optarg;
            break;
        case 'w':
            if (white) {
                cli_error("solitaire", "--white given twice (list the squares with commas)");
                return CLI_USAGE;
            }
            white = optarg;
            break;
        case 'b':
            if (cli_parse_long("solitaire", "--beam", optarg, 0, 1 << 22, &beam)) return CLI_USAGE;
            break;
        case 'm':
            if (cli_parse_long("solitaire", "--mirror", optarg, 0, 1 << 22, &mirror))
                return CLI_USAGE;
            break;
        case 'n':
            if (cli_parse_u64("solitaire", "--max-nodes", optarg, &max_nodes)) return CLI_USAGE;
            break;
        case 't':
            if (cli_parse_double("solitaire", "--time", optarg, 0.001, 1e7, &seconds))
                return CLI_USAGE;
            break;
        case 'H':
            if (cli_parse_long("solitaire", "--hash", optarg, 1, 1 << 20, &hash_mb))
                return CLI_USAGE;
            break;
        case 'T':
            if (cli_parse_long("solitaire", "--threads", optarg, 1, 1024, &threads))
                return CLI_USAGE;
            break;
        default: return cli_bad_option("solitaire", argc, argv);
        }
    }
    if (optind != argc - 1) {
        cli_error("solitaire",
                  optind >= argc ? "missing N (see 'gounki solitaire --help')"
                                 : "unexpected argument '%s'",
                  argv[argc - 1]);
        return CLI_USAGE;
    }
    if (cli_parse_long("solitaire", "N", argv[optind], GS_MIN_N, GS_MAX_N, &n)) return CLI_USAGE;

    gs_problem_t prob;
    if (build_problem(&prob, (int)n, preflip, fixed, white)) return CLI_USAGE;

    int rank = 0, ranks = 1, mpi = launched_by_mpi();
    if (mpi && mpi_begin(&rank, &ranks)) return CLI_FAIL;
    /* Every rank runs the same search; rank 0 alone speaks. */
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) {
        cli_error("solitaire", "rank %d: cannot silence standard output", rank);
        MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
    }
    gs_state_t s;
    gs_start(&prob, &s);
    printf("Gobs solitaire %ldx%ld\n", n, n);
    print_board(&s);
    fflush(stdout);

    /* Progress from 5x5 on (4x4 takes under a second; 5x5 is not solved in minutes). */
    gk_progress_t prog;
    gk_progress_init(&prog, quiet || n < 5 || rank != 0 ? NULL : stderr, GK_PROGRESS_TTY,
                     GK_PROGRESS_PLAIN);
    gs_limits_t lim = {.max_nodes = max_nodes,
                       .max_seconds = seconds,
                       .tt_bytes = (size_t)hash_mb << 20,
                       .beam_width = (int)beam,
                       .mirror_width = (int)mirror,
                       .progress = show_progress,
                       .progress_arg = &prog,
                       .threads = (int)threads,
                       .part = rank,
                       .parts = ranks,
                       .share = mpi_share};
    static gs_result_t res; /* large; one call per process */
    int err = gs_solve(&prob, &lim, &res), rc;
    gk_progress_end(&prog);
    if (err) {
        cli_error("solitaire", "%s", gs_strerror(err));
        rc = CLI_FAIL;
    } else {
        rc = print_result(&prob, &s, &res, beam, (int)threads, ranks);
    }
    fflush(stdout);
    /* A rank lost mid-search would hold MPI_Finalize forever: leave MPI as it is then. */
    if (mpi) cli_mpi_end(err == GS_ERR_SHARE);
    return rc;
}
