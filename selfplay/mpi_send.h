/*
 * selfplay/mpi_send.h -- nonblocking sends that never make a rank wait on a peer it can
 * no longer reach, and the MPI error reporting the self-play scheduler and the book farm
 * share.
 *
 * Contract
 * --------
 * A SEND QUEUE owns the buffers of the messages it posted until MPI is done with them.
 * ms_post copies the message and starts an MPI_Isend on MPI_COMM_WORLD, reusing the slot
 * of a completed send when there is one; ms_progress completes what is done (MPI_Test,
 * which also drives MPI's progress); ms_drain waits at most a given time for every send
 * to complete and says whether they did.  A send that never completes (its peer is lost)
 * is never waited for beyond those limits: ms_free then leaves its buffer allocated, as
 * MPI may read it until the process ends.  One queue is used by one thread at a time
 * (the thread that makes the MPI calls).
 *
 * Errors: 0 on success, else a GK_E_* code from common/status.h with a one-line reason in
 * err ("MPI: <call>: <MPI's message>" for a failed MPI call, "out of memory").
 */
#ifndef GK_MPI_SEND_H
#define GK_MPI_SEND_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct ms_slot ms_slot_t;
typedef struct ms_queue {
    ms_slot_t **slot;
    size_t n;
} ms_queue_t; /* zero-initialised: empty */

/* Sends count elements of type from data to rank `to` with tag. */
int ms_post(ms_queue_t *q, const void *data, int count, MPI_Datatype type, int to, int tag,
            char *err, size_t errcap);
int ms_progress(ms_queue_t *q, char *err, size_t errcap);
bool ms_pending(const ms_queue_t *q);
/* Progresses the sends, sleeping nap_ms between polls, for at most limit_s seconds; true
 * when none is pending any more (false also when an MPI call failed). */
bool ms_drain(ms_queue_t *q, double limit_s, int nap_ms);
/* Frees the completed sends and the queue's array; pending sends keep their buffers. */
void ms_free(ms_queue_t *q);

/* The GK_E_MPI failure of MPI call `what` that returned rc, with MPI's message. */
int ms_mpi_fail(char *err, size_t errcap, const char *what, int rc);
/* Sleeps ms milliseconds (a poll interval). */
void ms_nap(int ms);

/* Returns from the calling function with ms_mpi_fail(err, errcap, ...) when call fails;
 * the caller has err and errcap in scope. */
#define MS_TRY(call)                                                                               \
    do {                                                                                           \
        int mrc_ = (call);                                                                         \
        if (mrc_ != MPI_SUCCESS) return ms_mpi_fail(err, errcap, #call, mrc_);                     \
    } while (0)

#endif
