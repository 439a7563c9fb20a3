/* cli/main.c -- the `gounki` program: dispatches to the subcommands in cli/cmd_*.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} command_t;

static const command_t commands[] = {
#define GK_CMD(name) {#name, cmd_##name, cmd_##name##_summary},
#include "cli_commands.inc"
#undef GK_CMD
};

static void usage(FILE *f) {
    fprintf(f, "usage: gounki COMMAND [OPTIONS]   ('gounki COMMAND --help' for its options)\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gounki %s\n", GK_VERSION);
        return CLI_OK;
    }
    gk_init();
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].run(argc - 1, argv + 1);
            fflush(stdout);
            exit(rc);
        }
    cli_error(NULL, "unknown command '%s' (see 'gounki --help')", argv[1]);
    return CLI_USAGE;
}
