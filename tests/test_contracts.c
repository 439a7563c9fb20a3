/*
 * tests/test_contracts.c -- the contract checks (assert) are compiled in where
 * GK_ASSERTS is on (the sanitizer builds): each broken contract below must abort the
 * process that breaks it.  Skipped (exit 77) in a build without them (Release).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eval/eval.h"
#include "games/game.h"
#include "games/gobs.h"

static gk_pos_t start(int game, int variant) {
    gk_rules_t r = {(uint8_t)game, (uint8_t)variant, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_game_by_id(game)->setup(&p, &r);
    return p;
}

static void gounki_play_0(void) {
    gk_pos_t p = start(GK_GAME_GOUNKI, 0);
    gk_play(&p, GK_NO_ACTION);
}
static void gobs_play_0(void) {
    gk_pos_t p = start(GK_GAME_GOBS, 0);
    gk_play(&p, GK_NO_ACTION);
}
static void gobs_stop_at_boundary(void) {
    gk_pos_t p = start(GK_GAME_GOBS, 0);
    gk_play(&p, GOBS_STOP);
}
static void play_after_the_end(void) {
    gk_pos_t p = start(GK_GAME_GOUNKI, 0);
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(&p, list);
    gk_apply_no_move(&p);
    if (n > 0) gk_play(&p, list[0]);
}
static void result_without_reason(void) {
    gk_pos_t p = start(GK_GAME_GOUNKI, 0);
    gk_set_result(&p, GK_DRAW, GK_REASON_NONE);
}
static void weights_of_another_game(void) {
    gk_pos_t p = start(GK_GAME_GOUNKI, 0);
    ev_weights_t w;
    ev_weights_default(GK_GAME_GOBS, &w);
    printf("%f\n", (double)ev_logit(&w, &p));
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    {"gounki play(action 0)", gounki_play_0},
    {"gobs play(action 0)", gobs_play_0},
    {"gobs 'stop' at a turn boundary", gobs_stop_at_boundary},
    {"play on a finished game", play_after_the_end},
    {"a result without a reason", result_without_reason},
    {"ev_logit with another game's weights", weights_of_another_game},
};

int main(void) {
#ifdef NDEBUG
    printf("asserts are off in this build (GK_ASSERTS=OFF): %zu cases skipped\n",
           sizeof cases / sizeof cases[0]);
    return 77;
#endif
    gk_init();
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) dup2(null, 2); /* the assert message is expected */
            cases[i].fn();
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        int ok = WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
        printf("%-40s %s\n", cases[i].name, ok ? "aborts" : "FAIL: not caught");
        failures += !ok;
    }
    return failures != 0;
}
