/* tests/test_solitaire.c -- the one-player Gobs puzzle: rules, solver, options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solitaire/solitaire.h"

static gs_move_t mv(const char *from, const char *over, const char *to) {
    return (gs_move_t){(uint8_t)gs_square_parse(from), (uint8_t)gs_square_parse(over),
                       (uint8_t)gs_square_parse(to)};
}

/* Replays a solution with the rules functions (not the solver's own move code) and
 * checks that it reaches the goal only at its last move. */
static int replays(const gs_problem_t *p, const gs_result_t *r) {
    gs_state_t s;
    gs_start(p, &s);
    for (int i = 0; i < r->len; i++) {
        if (gs_is_goal(p, &s)) return 0;
        if (!gs_play(&s, r->moves[i])) return 0;
    }
    return gs_is_goal(p, &s);
}

static gs_result_t res; /* large */

static void solve(const gs_problem_t *p) {
    gs_limits_t lim = {.max_nodes = 20000000, .tt_bytes = (size_t)16 << 20};
    CHECK(gs_solve(p, &lim, &res) == 0);
}

/* Breadth-first search over every reachable position of the 2x2 puzzle, written apart
 * from the solver: the shortest length it finds must equal the solver's. */
typedef struct bstate {
    uint8_t cell[GS_SQUARES];
} bstate_t;

static int bfs_2x2(void) {
    gs_problem_t p;
    gs_problem_init(&p, 2);
    enum { CAP = 1 << 21 };
    bstate_t *q = malloc(CAP * sizeof *q);
    int *depth = malloc(CAP * sizeof *depth);
    size_t hsize = (size_t)1 << 23;
    uint32_t *seen = calloc(hsize, sizeof *seen); /* index + 1 into q */
    if (!q || !depth || !seen) return -1;
    gs_state_t s0;
    gs_start(&p, &s0);
    memcpy(q[0].cell, s0.cell, GS_SQUARES);
    depth[0] = 0;
    int head = 0, tail = 1, answer = -1;
    while (head < tail && answer < 0) {
        bstate_t cur = q[head];
        int d = depth[head++];
        for (int from = 0; from < GS_SQUARES && answer < 0; from++)
            for (int dir = 0; dir < 9 && answer < 0; dir++) {
                int df = dir % 3 - 1, dr = dir / 3 - 1, f = from % 9, r = from / 9;
                if (cur.cell[from] == GS_EMPTY || dir == 4) continue;
                if (f + 2 * df < 0 || f + 2 * df > 8 || r + 2 * dr < 0 || r + 2 * dr > 8) continue;
                int over = from + df + 9 * dr, to = from + 2 * (df + 9 * dr);
                gs_state_t s;
                memcpy(s.cell, cur.cell, GS_SQUARES);
                s.first = -1;
                if (!gs_play(&s, (gs_move_t){(uint8_t)from, (uint8_t)over, (uint8_t)to})) continue;
                if (gs_is_goal(&p, &s)) {
                    answer = d + 1;
                    break;
                }
                uint64_t h = 1469598103934665603ULL;
                for (int i = 0; i < GS_SQUARES; i++) h = (h ^ s.cell[i]) * 1099511628211ULL;
                size_t k = h & (hsize - 1);
                int dup = 0;
                while (seen[k]) {
                    if (memcmp(q[seen[k] - 1].cell, s.cell, GS_SQUARES) == 0) {
                        dup = 1;
                        break;
                    }
                    k = (k + 1) & (hsize - 1);
                }
                if (dup) continue;
                if (tail >= CAP) {
                    answer = -2;
                    break;
                }
                memcpy(q[tail].cell, s.cell, GS_SQUARES);
                depth[tail] = d + 1;
                seen[k] = (uint32_t)++tail;
            }
    }
    free(q);
    free(depth);
    free(seen);
    return answer;
}

int main(void) {
    gs_problem_t p;
    gs_state_t s;

    /* Notation and parsing. */
    CHECK(gs_square_parse("a1") == 0 && gs_square_parse("i9") == 80 && gs_square_parse("E5") == 40);
    CHECK(gs_square_parse("j1") < 0 && gs_square_parse("a0") < 0 && gs_square_parse("a10") < 0);
    CHECK(gs_square_parse("") < 0 && gs_square_parse("e") < 0 && gs_square_parse(NULL) < 0);
    char buf[9];
    gs_move_text(mv("d4", "d5", "d6"), buf);
    CHECK(strcmp(buf, "d4xd5-d6") == 0);

    /* Placement: 2x2 lower-left of centre, 3x3 and 7x7 centred. */
    CHECK(gs_problem_init(&p, 1) == GS_ERR_SIZE && gs_problem_init(&p, 8) == GS_ERR_SIZE);
    CHECK(gs_problem_init(&p, 2) == 0);
    CHECK(gs_in_square(&p, gs_square_parse("d4")) && gs_in_square(&p, gs_square_parse("e5")));
    CHECK(!gs_in_square(&p, gs_square_parse("f5")) && !gs_in_square(&p, gs_square_parse("c4")));
    gs_problem_init(&p, 7);
    CHECK(gs_in_square(&p, gs_square_parse("b2")) && gs_in_square(&p, gs_square_parse("h8")));
    CHECK(!gs_in_square(&p, gs_square_parse("a5")) && !gs_in_square(&p, gs_square_parse("i5")));

    /* Move legality: adjacent piece, empty landing, on the board; the jumped piece turns. */
    gs_problem_init(&p, 3);
    gs_start(&p, &s);
    CHECK(gs_play(&s, mv("e5", "e6", "e7")) == 1);
    CHECK(s.cell[gs_square_parse("e6")] == GS_WHITE && s.cell[gs_square_parse("e7")] == GS_BLACK);
    CHECK(s.cell[gs_square_parse("e5")] == GS_EMPTY);
    CHECK(gs_play(&s, mv("e4", "e5", "e6")) == 0); /* jumping an empty square */
    CHECK(gs_play(&s, mv("d4", "e4", "f4")) == 0); /* landing occupied */
    CHECK(gs_play(&s, mv("d4", "e5", "f6")) == 0); /* not adjacent-then-beyond: e5 empty */
    CHECK(gs_play(&s, mv("d5", "e5", "g5")) == 0); /* not the square just beyond */
    CHECK(gs_play(&s, mv("e7", "e6", "e5")) == 1); /* back: e6 turns black again */
    CHECK(s.cell[gs_square_parse("e6")] == GS_BLACK);
    {
        gs_problem_t q;
        gs_problem_init(&q, 7);
        gs_state_t t;
        gs_start(&q, &t);
        CHECK(gs_play(&t, mv("b3", "b2", "b1")) == 1); /* onto the free band */
        gs_start(&q, &t);
        t.cell[gs_square_parse("a5")] = GS_BLACK;
        /* b5 over a5 would leave the board; square 35 (i4) is what a linear step gives. */
        CHECK(gs_play(&t, mv("b5", "a5", "i4")) == 0);
    }

    /* The 2x2 square: exactly 12 moves (the seed), proven, replaying to the goal; and an
     * independent breadth-first search agrees. */
    gs_problem_init(&p, 2);
    solve(&p);
    CHECK(res.status == GS_SOLVED && res.len == 12);
    CHECK(replays(&p, &res));
    CHECK(bfs_2x2() == 12);

    /* 3x3: 13 moves without a pre-flip; 10 with the middle of an edge pre-flipped. */
    gs_problem_init(&p, 3);
    solve(&p);
    CHECK(res.status == GS_SOLVED && res.len == 13 && replays(&p, &res));
    p.preflip = gs_square_parse("e4");
    CHECK(gs_problem_check(&p) == 0);
    solve(&p);
    CHECK(res.status == GS_SOLVED && res.len == 10 && replays(&p, &res));
    CHECK(res.moves[0].from == gs_square_parse("e4"));
    /* The pre-flipped piece must move first: a corner cannot (no empty square beyond). */
    p.preflip = gs_square_parse("d4");
    solve(&p);
    CHECK(res.status == GS_NONE && res.nodes == 0);
    /* The first-mover rule is part of the rules, not only of the solver. */
    gs_problem_init(&p, 3);
    p.preflip = gs_square_parse("e4");
    gs_start(&p, &s);
    CHECK(s.cell[gs_square_parse("e4")] == GS_WHITE);
    CHECK(gs_play(&s, mv("e6", "e7", "e8")) == 0);
    CHECK(gs_play(&s, mv("e5", "e6", "e7")) == 0);
    CHECK(gs_play(&s, mv("e4", "e5", "e6")) == 0); /* e6 occupied */
    CHECK(gs_play(&s, mv("e4", "e3", "e2")) == 0); /* e3 empty */

    /* Fixed pieces: never move, turn nor get jumped, need not end white. */
    gs_problem_init(&p, 3);
    CHECK(gs_problem_fix(&p, "e5") == 0);
    CHECK(gs_problem_check(&p) == 0);
    gs_start(&p, &s);
    CHECK(s.cell[gs_square_parse("e5")] == GS_FIXED);
    CHECK(gs_play(&s, mv("e4", "e5", "e6")) == 0);
    solve(&p);
    CHECK(res.status == GS_SOLVED && replays(&p, &res));
    for (int i = 0; i < res.len; i++)
        CHECK(res.moves[i].from != gs_square_parse("e5") &&
              res.moves[i].over != gs_square_parse("e5"));
    /* A fixed piece outside the square blocks a landing. */
    gs_problem_init(&p, 2);
    CHECK(gs_problem_fix(&p, "d3,c3") == 0);
    gs_start(&p, &s);
    CHECK(gs_play(&s, mv("d5", "d4", "d3")) == 0);
    CHECK(gs_play(&s, mv("e5", "e4", "e3")) == 1);

    /* Bad options. */
    gs_problem_init(&p, 3);
    CHECK(gs_problem_fix(&p, "") == GS_ERR_PARSE);
    CHECK(gs_problem_fix(&p, "e5,") == GS_ERR_PARSE);
    CHECK(gs_problem_fix(&p, ",e5") == GS_ERR_PARSE);
    CHECK(gs_problem_fix(&p, "e5,,d4") == GS_ERR_PARSE);
    CHECK(gs_problem_fix(&p, "e55") == GS_ERR_PARSE);
    CHECK(gs_problem_fix(&p, "e5 d4") == GS_ERR_PARSE);
    CHECK(gs_problem_fix(&p, "z9") == GS_ERR_PARSE);
    for (int sq = 0; sq < GS_SQUARES; sq++) CHECK(p.fixed[sq] == 0); /* unchanged on error */
    p.preflip = gs_square_parse("a1");
    CHECK(gs_problem_check(&p) == GS_ERR_PREFLIP);
    p.preflip = gs_square_parse("e5");
    CHECK(gs_problem_fix(&p, "e5") == 0 && gs_problem_check(&p) == GS_ERR_FIXED);

    /* Budget: too few nodes gives a lower bound, not a wrong answer. */
    gs_problem_init(&p, 2);
    gs_limits_t lim = {.max_nodes = 100, .tt_bytes = (size_t)1 << 20};
    CHECK(gs_solve(&p, &lim, &res) == 0);
    CHECK(res.status == GS_BUDGET && res.lower_bound >= 4 && res.lower_bound <= 12);

    return check_exit("test_solitaire");
}
