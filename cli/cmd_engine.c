/* cli/cmd_engine.c -- `gounki engine`: the engine protocol (docs/PROTOCOL.md) on stdin/stdout. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "../search/gep.h"
#include "cli.h"

const char cmd_engine_summary[] =
    "speak the engine protocol (GEP) on stdin/stdout, for GUIs and matches";

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) {
    got_signal = sig;
}

static void usage(const cli_search_t *s) {
    fputs("usage: gounki engine [--playouts N | --time S] [--set NAME=V,...] [--weights FILE]\n"
          "Reads protocol commands (docs/PROTOCOL.md) from standard input and answers on\n"
          "standard output, one line each, until 'quit' or the end of input (exit 0).  The\n"
          "search options below are the defaults of the engine's options (setoption), and\n"
          "the budget of a 'go' without limits.  SIGINT/SIGTERM: exit 3.\n",
          stdout);
    cli_search_help(stdout, s);
}

static void write_line(void *ctx, const char *line) {
    (void)ctx;
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void *search_main(void *g) {
    gep_search(g);
    return NULL;
}

/* The search's options as one NAME=VALUE list (the rows that differ from the defaults). */
static void defaults_list(const cli_search_t *s, gk_sb_t *sb) {
    for (int i = 0; i < mcts_param_count(); i++) {
        const mcts_param_info_t *in = mcts_param_at(i);
        if (!mcts_config_isset(&s->cfg, in->name)) continue;
        const char *base = in->limit ? (const char *)&s->cfg.l : (const char *)&s->cfg.p;
        const char *f = base + in->offset;
        gk_sb_printf(sb, "%s%s=", gk_sb_len(sb) ? "," : "", in->name);
        switch (in->kind) {
        case MCTS_PK_INT:
        case MCTS_PK_ENUM: {
            int v;
            memcpy(&v, f, sizeof v);
            if (in->kind == MCTS_PK_INT) {
                gk_sb_printf(sb, "%d", v);
            } else {
                const char *c = in->choices;
                for (int k = 0; k < v && strchr(c, '|'); k++) c = strchr(c, '|') + 1;
                gk_sb_printf(sb, "%.*s", (int)strcspn(c, "|"), c);
            }
            break;
        }
        case MCTS_PK_U64: {
            uint64_t v;
            memcpy(&v, f, sizeof v);
            gk_sb_printf(sb, "%llu", (unsigned long long)v);
            break;
        }
        case MCTS_PK_BOOL: {
            bool v;
            memcpy(&v, f, sizeof v);
            gk_sb_puts(sb, v ? "on" : "off");
            break;
        }
        case MCTS_PK_FLOAT: {
            float v;
            memcpy(&v, f, sizeof v);
            gk_sb_printf(sb, "%.9g", (double)v);
            break;
        }
        default: {
            double v;
            memcpy(&v, f, sizeof v);
            gk_sb_printf(sb, "%.17g", v);
        }
        }
    }
}

/* Reads lines until quit or the end of input.  Returns an exit status. */
static int serve(gep_t *g) {
    char *line = NULL;
    size_t cap = 0;
    pthread_t th;
    bool have_thread = false;
    int rc = CLI_OK;
    for (;;) {
        errno = 0;
        ssize_t n = getline(&line, &cap, stdin);
        int r;
        if (n < 0 && errno == EINTR && !got_signal) continue;
        if (got_signal) {
            rc = 3;
            r = gep_line(g, "quit", 4);
        } else if (n < 0) {
            gep_end_of_input(g);
            break;
        } else {
            r = gep_line(g, line, (size_t)n);
        }
        if (r == GEP_GO) {
            if (have_thread) pthread_join(th, NULL);
            have_thread = pthread_create(&th, NULL, search_main, g) == 0;
            if (!have_thread) gep_search(g); /* no thread: answer at once */
        } else if (r == GEP_QUIT) {
            break;
        }
    }
    if (have_thread) pthread_join(th, NULL);
    free(line);
    return rc;
}

int cmd_engine(int argc, char **argv) {
    cli_search_t *s = malloc(sizeof *s);
    if (!s) {
        cli_error("engine", "out of memory");
        return CLI_FAIL;
    }
    cli_search_init(s, NULL, NULL, CLI_SEARCH_WEIGHTS);
    const cli_group_t groups[] = {cli_search_group(s)};
    int first, rc = cli_getopt("engine", argc, argv, groups, 1, 0, &first);
    if (rc == CLI_HELP) usage(s);
    if (rc) {
        free(s);
        return rc == CLI_HELP ? CLI_OK : rc;
    }
    gk_sb_t list;
    gk_sb_growing(&list);
    defaults_list(s, &list);
    char err[768];
    gep_t *g = gep_new(write_line, NULL, list.p ? list.p : "", s->weights, err, sizeof err);
    gk_sb_free(&list);
    free(s);
    if (!g) {
        cli_error("engine", "%s", err);
        return CLI_FAIL;
    }
    cli_catch_stop_signals(on_signal, false);
    rc = serve(g);
    gep_free(g);
    return rc;
}
