/* tests/test_solitaire_mt.c -- the parallel proof of the Gobs solitaire: at any number of
 * threads and parts it returns the serial search's solution, status and bound.  The parts
 * run here as threads of one process, with a share hook made of two barriers (what
 * MPI_Allreduce does for `mpirun gounki solitaire`), so that ThreadSanitizer sees them. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solitaire/solitaire.h"

enum { MAX_PARTS = 3 };

typedef struct bus {
    pthread_barrier_t bar;
    int parts;
    gs_share_t slot[MAX_PARTS];
} bus_t;

typedef struct part_arg {
    bus_t *bus;
    int part;
    const gs_problem_t *prob;
    gs_limits_t lim;
    gs_result_t res;
    int err;
} part_arg_t;

/* Combines the parts' slots as gs_limits_t.share asks: sums, least, largest, and the
 * moves of the lowest part with the least key. */
static int bus_share(void *arg, gs_share_t *s) {
    part_arg_t *a = arg;
    bus_t *b = a->bus;
    b->slot[a->part] = *s;
    pthread_barrier_wait(&b->bar);
    gs_share_t out = b->slot[0];
    out.nodes = 0;
    for (int i = 0; i < b->parts; i++) {
        const gs_share_t *t = &b->slot[i];
        out.nodes += t->nodes;
        if (t->next_bound < out.next_bound) out.next_bound = t->next_bound;
        if (t->aborted > out.aborted) out.aborted = t->aborted;
        if (t->key < out.key)
            out.key = t->key, out.len = t->len, memcpy(out.moves, t->moves, sizeof out.moves);
    }
    pthread_barrier_wait(&b->bar); /* every part has read every slot */
    *s = out;
    return 0;
}

static void *part_main(void *arg) {
    part_arg_t *a = arg;
    a->err = gs_solve(a->prob, &a->lim, &a->res);
    return NULL;
}

static gs_result_t serial, split;

/* Solves prob serially, then with `threads` threads in each of `parts` parts, and checks
 * that every part returns the serial answer. */
static void same_as_serial(const char *name, const gs_problem_t *prob, gs_limits_t lim, int threads,
                           int parts) {
    CHECK(gs_solve(prob, &lim, &serial) == 0, "%s: serial", name);
    static part_arg_t args[MAX_PARTS];
    bus_t bus = {.parts = parts};
    pthread_barrier_init(&bus.bar, NULL, (unsigned)parts);
    pthread_t tid[MAX_PARTS];
    for (int i = 0; i < parts; i++) {
        args[i] = (part_arg_t){.bus = &bus, .part = i, .prob = prob, .lim = lim};
        args[i].lim.threads = threads;
        args[i].lim.part = i;
        args[i].lim.parts = parts;
        args[i].lim.share = bus_share;
        args[i].lim.share_arg = &args[i];
        if (parts > 1)
            CHECK(pthread_create(&tid[i], NULL, part_main, &args[i]) == 0);
        else
            part_main(&args[i]);
    }
    for (int i = 0; i < parts && parts > 1; i++) pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&bus.bar);
    for (int i = 0; i < parts; i++) {
        split = args[i].res;
        CHECK(args[i].err == 0, "%s: part %d error %d", name, i, args[i].err);
        CHECK(split.status == serial.status, "%s (%d x %d): status %d, serial %d", name, parts,
              threads, split.status, serial.status);
        CHECK(split.len == serial.len, "%s: length %d, serial %d", name, split.len, serial.len);
        CHECK(split.lower_bound == serial.lower_bound, "%s: bound %d, serial %d", name,
              split.lower_bound, serial.lower_bound);
        CHECK(memcmp(split.moves, serial.moves, (size_t)serial.len * sizeof serial.moves[0]) == 0,
              "%s (%d parts x %d threads): not the serial search's solution", name, parts, threads);
        CHECK(i == 0 || split.nodes == args[0].res.nodes, "%s: parts disagree on the nodes", name);
    }
}

int main(void) {
    gs_problem_t p;
    gs_limits_t proof = {.tt_bytes = (size_t)16 << 20}; /* IDA* alone: it does the work */
    gs_limits_t whole = proof;
    whole.beam_width = 2000;
    whole.mirror_width = 2000;
    const int splits[][2] = {{2, 1}, {1, 2}, {3, 1}, {2, 2}, {1, 3}};
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
        int t = splits[k][0], parts = splits[k][1];
        gs_problem_init(&p, 2);
        same_as_serial("2x2", &p, proof, t, parts);
        CHECK(split.status == GS_SOLVED && split.len == 12);
        gs_problem_init(&p, 3);
        same_as_serial("3x3", &p, proof, t, parts);
        CHECK(split.status == GS_SOLVED && split.len == 13);
        p.preflip = gs_square_parse("e4");
        same_as_serial("3x3 pre-flip e4", &p, proof, t, parts);
        CHECK(split.status == GS_SOLVED && split.len == 10);
        gs_problem_init(&p, 3);
        gs_problem_white(&p, "e5");
        same_as_serial("3x3 white e5", &p, proof, t, parts);
        /* The pre-flipped corner cannot move: unsolvable, 0 nodes. */
        gs_problem_init(&p, 5);
        p.preflip = gs_square_parse("c3");
        same_as_serial("5x5 pre-flip c3", &p, proof, t, parts);
        CHECK(split.status == GS_NONE);
        if (k >= 2) continue; /* the larger ones at 2 threads and at 2 parts */
        gs_problem_init(&p, 4);
        same_as_serial("4x4", &p, proof, t, parts);
        CHECK(split.status == GS_SOLVED && split.len == 16);
        gs_problem_init(&p, 3); /* the finders run on every part, then the proof */
        same_as_serial("3x3 with finders", &p, whole, t, parts);
        CHECK(split.status == GS_SOLVED && split.len == 13);
    }
    /* A node budget: every part stops, nothing found, the bound the serial search had. */
    gs_problem_init(&p, 7);
    p.preflip = gs_square_parse("e3");
    gs_limits_t cut = proof;
    cut.max_nodes = 300000;
    for (int parts = 1; parts <= 2; parts++) {
        same_as_serial("7x7 pre-flip e3, 300k nodes", &p, cut, 2, parts);
        CHECK(split.status == GS_BUDGET && split.lower_bound == 48);
        CHECK(split.nodes > 300000 && split.nodes < 300000 + 2 * 3 * 0x4000 + 100000, "nodes %llu",
              (unsigned long long)split.nodes);
    }
    /* parts > 1 with no way to share is refused, not run. */
    gs_limits_t bad = proof;
    bad.parts = 2;
    CHECK(gs_solve(&p, &bad, &split) == GS_ERR_SHARE);
    return check_exit("test_solitaire_mt");
}
