/* selfplay/mpi_send.c -- see mpi_send.h. */
#include "mpi_send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/status.h"

struct ms_slot {
    MPI_Request rq;
    void *buf;
    size_t cap; /* bytes */
};

int ms_mpi_fail(char *err, size_t errcap, const char *what, int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", rc);
    return gk_fail(err, errcap, GK_E_MPI, "MPI: %s: %s", what, msg);
}

void ms_nap(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A slot whose send has completed, or a new one; NULL when memory runs out. */
static ms_slot_t *free_slot(ms_queue_t *q) {
    for (size_t i = 0; i < q->n; i++)
        if (q->slot[i]->rq == MPI_REQUEST_NULL) return q->slot[i];
    ms_slot_t **a = realloc(q->slot, (q->n + 1) * sizeof *a);
    if (!a) return NULL;
    q->slot = a;
    ms_slot_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->rq = MPI_REQUEST_NULL;
    q->slot[q->n++] = s;
    return s;
}

int ms_post(ms_queue_t *q, const void *data, int count, MPI_Datatype type, int to, int tag,
            char *err, size_t errcap) {
    int size = 0;
    MS_TRY(MPI_Type_size(type, &size));
    size_t bytes = (size_t)count * (size_t)size;
    ms_slot_t *s = free_slot(q);
    if (!s) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    if (!s->buf || s->cap < bytes) {
        void *b = realloc(s->buf, bytes ? bytes : 1);
        if (!b) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        s->buf = b;
        s->cap = bytes;
    }
    if (bytes) memcpy(s->buf, data, bytes);
    MS_TRY(MPI_Isend(s->buf, count, type, to, tag, MPI_COMM_WORLD, &s->rq));
    return 0;
}

int ms_progress(ms_queue_t *q, char *err, size_t errcap) {
    for (size_t i = 0; i < q->n; i++)
        if (q->slot[i]->rq != MPI_REQUEST_NULL) {
            int flag = 0;
            MS_TRY(MPI_Test(&q->slot[i]->rq, &flag, MPI_STATUS_IGNORE));
        }
    return 0;
}

bool ms_pending(const ms_queue_t *q) {
    for (size_t i = 0; i < q->n; i++)
        if (q->slot[i]->rq != MPI_REQUEST_NULL) return true;
    return false;
}

bool ms_drain(ms_queue_t *q, double limit_s, int nap_ms) {
    double t0 = gk_now_s();
    char e[256];
    while (ms_pending(q) && gk_now_s() - t0 < limit_s) {
        if (ms_progress(q, e, sizeof e)) return false;
        if (ms_pending(q)) ms_nap(nap_ms);
    }
    return !ms_pending(q);
}

void ms_free(ms_queue_t *q) {
    for (size_t i = 0; i < q->n; i++)
        if (q->slot[i]->rq == MPI_REQUEST_NULL) {
            free(q->slot[i]->buf);
            free(q->slot[i]);
        }
    free(q->slot);
    q->slot = NULL;
    q->n = 0;
}
