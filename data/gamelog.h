/*
 * data/gamelog.h -- self-play game logs: records of whole games with the search's root
 * statistics, stored in shards of independent zstd frames that survive being killed.
 *
 * Contract
 * --------
 * GAME RECORD (gl_game_t).  One finished (or resigned) game: a header, the ACTIONS
 * played (game.h: a turn is one or more actions), and optionally one gl_action_stats_t of root
 * statistics per action.  Children are held as actions in memory; on disk actions and
 * children are coded as their index in gen() order (or raw 32-bit actions, see
 * GL_CODE_*), which is why encoding and decoding replay the game: an illegal or
 * out-of-range action is an error, and the decoder checks that the replay ends on the
 * stored final hash, result and turn count, so a log written by an engine whose gen()
 * order differs is detected instead of silently misread.
 *
 * SHARD.  A file that is a plain sequence of FRAMES, each a zstd skippable frame holding
 * our header (magic, format version, game count, payload length, XXH64 of the payload,
 * the game indices, XXH64 of the header) followed by one ordinary zstd frame (content
 * size and content checksum on) whose content is the batch's game records.  A frame is
 * written with one append and fsync'ed; the game indices in the header make the file its
 * own index: scanning reads headers and checksums, it decompresses nothing.  `zstd -d`
 * on a shard prints the concatenated raw records (it skips our headers).  Field by field:
 * docs/FORMATS.md, "Self-play game logs".
 *
 * TORN AND CORRUPT.  Scanning stops at the first frame that is incomplete or fails a
 * check.  When the bad bytes run to the end of the file (a frame cut short by a kill or
 * a crash) the shard is TORN: everything before is sound, and gl_writer_open() cuts
 * the tail off.  Anything else is CORRUPT: later frames are not trusted.
 *
 * VERSIONS.  GL_VERSION is the format written; a reader of version V reads every
 * version <= V and refuses later ones with a clear message.
 *
 * RUN DIRECTORY.  DIR/manifest.gkm (a small text file with a checksum: game count,
 * settings and their fingerprint) plus DIR/shard-RRRRR.gkz, one per writing rank.
 *
 * Every function returns 0 (GK_OK) or a negative gk_status_t (common/status.h) and, where
 * it takes one, a one-line reason in err.  Nothing here prints, exits or keeps global state;
 * distinct objects may be used from distinct threads.  Inputs are untrusted: bad bytes give an
 * error, never a crash, a hang or an unbounded allocation.
 */
#ifndef GK_GAMELOG_H
#define GK_GAMELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "../games/game.h"

#define GL_VERSION          1
#define GL_MAX_TOP          64           /* most children stored per searched action */
#define GL_MAX_GAME_ACTIONS (1u << 20)   /* most actions in one record */
#define GL_MAX_FRAME_GAMES  65536        /* most games in one frame */
#define GL_MAX_FRAME_BYTES  (256u << 20) /* largest uncompressed frame a reader accepts */
#define GL_ENGINE_MAX       32           /* engine version text, NUL included */
#define GL_MANIFEST_NAME    "manifest.gkm"

/* How an action was chosen; root statistics exist only for GL_ACTION_SEARCH. */
typedef enum {
    GL_ACTION_SEARCH = 0, /* by the search (statistics below) */
    GL_ACTION_RANDOM = 1, /* random opening action */
    GL_ACTION_BOOK = 2,   /* from an opening book */
    GL_ACTION_FORCED = 3, /* the only legal action: no search was run */
    GL_NACTION_KINDS
} gl_action_kind_t;

/* Action coding on disk (stored in each record, so both can be read back). */
enum { GL_CODE_INDEX = 0, GL_CODE_RAW = 1 };

typedef struct gl_child {
    gk_action_t action;
    uint32_t visits;
} gl_child_t;

/* Root statistics of one action's decision. */
typedef struct gl_action_stats {
    uint8_t kind;    /* gl_action_kind_t */
    uint8_t ntop;    /* children stored, at most GL_MAX_TOP, most visited first */
    uint16_t nlegal; /* legal actions at the root (known from the replay; filled on read) */
    uint32_t visits; /* root visits (playouts) */
    float value;     /* root value for the player to move, in [-1, 1] (stored to 1/32767) */
    uint32_t first;  /* index of this action's first child in gl_game_t.child */
} gl_action_stats_t;

/* The settings that produced a game, as plain numbers (the CLI's text is in the manifest). */
typedef struct gl_settings {
    uint32_t playouts;         /* per decision; 0 when time-limited */
    uint32_t time_ms;          /* per decision; 0 when playout-limited */
    uint16_t threads_per_game; /* search threads of one game */
    uint16_t top;              /* children kept per decision (GL_MAX_TOP at most) */
    float temperature;         /* move-selection temperature of early actions */
    uint16_t temp_turns;       /* for this many turns; then the most visited child */
    uint16_t open_turns;       /* random / book opening turns */
    uint8_t open_kind;         /* GL_OPEN_* */
    uint8_t resign_on;         /* resignation enabled in the run */
    float resign_value;        /* resign when the root value stays below this */
    float resign_share;        /* share of games played out anyway */
    uint64_t book_hash;        /* XXH64 of the book file, 0 without one */
} gl_settings_t;

enum { GL_OPEN_NONE = 0, GL_OPEN_RANDOM = 1, GL_OPEN_BOOK = 2, GL_OPEN_POLICY = 3 };

/* Game flags. */
enum {
    GL_FLAG_PLAYOUT = 1, /* resignation was disabled in this game (false-resign sample) */
};

typedef struct gl_game {
    uint64_t index;   /* game index in the run: 0 .. N-1 */
    uint64_t seed;    /* the game's own seed (derived from the run seed and index) */
    gk_rules_t rules; /* game, variant, turn limit; the game starts at setup() */
    char engine[GL_ENGINE_MAX];
    uint64_t weights_hash; /* ev_weights_hash() of the evaluation used */
    gl_settings_t set;
    uint8_t result;      /* gk_result_t */
    uint8_t reason;      /* gk_reason_t */
    uint8_t flags;       /* GL_FLAG_* */
    uint8_t resign_side; /* with resign_at: who would have resigned */
    uint32_t resign_at;  /* 1 + action index where a resignation happened or, in a
                            GL_FLAG_PLAYOUT game, would have; 0 = never */
    uint32_t turns;      /* turns played */
    uint32_t time_ms;    /* wall time to play the game */
    uint64_t final_hash; /* Zobrist hash of the final position */
    /* Actions, and when has_stats their statistics (stats[i] belongs to action[i]). */
    bool has_stats;
    uint32_t nactions, cap;
    gk_action_t *action;
    gl_action_stats_t *stats;
    uint32_t nchild, child_cap;
    gl_child_t *child;
} gl_game_t;

void gl_game_init(gl_game_t *g);
void gl_game_free(gl_game_t *g);
/* Forgets the whole game (header, actions, statistics) but keeps the memory. */
void gl_game_clear(gl_game_t *g);
/* Appends one action with its statistics (st may be NULL for an unsearched action;
 * top[0..ntop-1] the most visited children, ntop clamped to GL_MAX_TOP). */
int gl_game_push(gl_game_t *g, gk_action_t a, const gl_action_stats_t *st, const gl_child_t *top,
                 int ntop);

/* ---- growable byte buffer ---- */
typedef struct gl_buf {
    uint8_t *p;
    size_t n, cap;
} gl_buf_t;
void gl_buf_free(gl_buf_t *b);
int gl_buf_reserve(gl_buf_t *b, size_t extra);

/* ---- records ---- */

/* Appends the record of g to out.  code: GL_CODE_*; stats: write the per-action
 * statistics when g has them.  Replays the game, so g's actions must be legal. */
int gl_encode_game(const gl_game_t *g, int code, bool stats, gl_buf_t *out, char *err,
                   size_t errcap);
/* Decodes one record of a version-`version` payload at p[0..n) into g (whose old content
 * is replaced); *used gets the bytes consumed. */
int gl_decode_game(const uint8_t *p, size_t n, int version, gl_game_t *g, size_t *used, char *err,
                   size_t errcap);

/* ---- frames ---- */

/* Builds a whole frame (header + zstd frame) from a payload of `ngames` encoded records
 * whose game indices are idx[]; level is the zstd level.  out is replaced. */
int gl_frame_build(const gl_buf_t *payload, const uint64_t *idx, uint32_t ngames, int level,
                   gl_buf_t *out, char *err, size_t errcap);

/* Where scans read from: a file descriptor (pread) or bytes in memory. */
typedef struct gl_src {
    int fd;             /* -1 for memory */
    const uint8_t *mem; /* used when fd < 0 */
    uint64_t size;
} gl_src_t;

typedef struct gl_frame {
    uint64_t offset;     /* of the frame's header in the shard */
    uint64_t zoffset;    /* of its zstd frame */
    uint32_t clen, ulen; /* zstd frame bytes, payload bytes */
    uint64_t checksum;   /* XXH64 of the zstd frame */
    uint32_t ngames;
    uint16_t version;
    uint64_t first; /* position of its first game index in gl_shard_t.index */
} gl_frame_t;

enum { GL_SHARD_OK = 0, GL_SHARD_TORN = 1, GL_SHARD_CORRUPT = 2 };

typedef struct gl_shard {
    uint64_t size;      /* bytes in the file */
    uint64_t valid_end; /* end of the last sound frame */
    int status;         /* GL_SHARD_* */
    char problem[192];  /* what is wrong at valid_end, when status != OK */
    uint32_t nframes, frame_cap;
    gl_frame_t *frame;
    uint64_t nindex, index_cap;
    uint64_t *index; /* game indices of every sound frame, in file order */
} gl_shard_t;

void gl_shard_init(gl_shard_t *s);
void gl_shard_free(gl_shard_t *s);
/* Walks the frames of src, checking each header's checksum and, when verify, each
 * payload's checksum (reading, not decompressing).  A bad frame is not an error of the
 * call: it ends the scan and sets status/problem.  Returns an error only when reading
 * fails or memory runs out. */
int gl_shard_scan(const gl_src_t *src, gl_shard_t *s, bool verify, char *err, size_t errcap);
/* Reads, checks and decompresses frame f into payload (replaced). */
int gl_frame_load(const gl_src_t *src, const gl_frame_t *f, gl_buf_t *payload, char *err,
                  size_t errcap);
/* Decodes game number k (0-based) of a loaded frame payload into g.  Records are found
 * by walking from the start; *pos (start it at 0) carries the walk from call to call so
 * that reading the games in order costs one pass. */
int gl_frame_next_game(const gl_frame_t *f, const gl_buf_t *payload, size_t *pos, gl_game_t *g,
                       char *err, size_t errcap);

/* ---- shard writer ---- */

typedef struct gl_writer gl_writer_t;

typedef struct gl_writer_opts {
    int level;  /* zstd level (default 9 when 0) */
    int code;   /* GL_CODE_* */
    bool stats; /* write per-action statistics */
} gl_writer_opts_t;

/* Opens (creating if needed) a shard for appending and locks it (fcntl write lock:
 * GK_E_LOCKED when another process holds it; no lock where the file system has none).  The shard
 * is scanned first: a torn tail is cut off (*dropped gets its byte count, may be NULL); a corrupt
 * shard is refused unless repair, in which case it is cut at the first bad frame too. */
int gl_writer_open(gl_writer_t **w, const char *path, const gl_writer_opts_t *o, bool repair,
                   uint64_t *dropped, char *err, size_t errcap);
/* Encodes g into the pending batch (nothing is written yet). */
int gl_writer_add(gl_writer_t *w, const gl_game_t *g, char *err, size_t errcap);
/* Adds a record already made by gl_encode_game() (so that worker threads can encode
 * in parallel); index must be the record's game index. */
int gl_writer_add_encoded(gl_writer_t *w, uint64_t index, const uint8_t *rec, size_t n, char *err,
                          size_t errcap);
/* Games and payload bytes in the pending batch. */
uint32_t gl_writer_pending(const gl_writer_t *w);
size_t gl_writer_pending_bytes(const gl_writer_t *w);
/* Writes the pending batch as one frame (one write, then fsync); nothing when empty. */
int gl_writer_flush(gl_writer_t *w, char *err, size_t errcap);
/* Flushes, unlocks, closes, frees.  w may be NULL. */
int gl_writer_close(gl_writer_t *w, char *err, size_t errcap);

/* ---- run directory ---- */

typedef struct gl_manifest {
    uint64_t games;       /* N: the run ends with games 0 .. N-1 */
    uint64_t fingerprint; /* XXH64 of `settings` */
    char settings[1024];  /* canonical text of every setting that decides the games */
    char engine[GL_ENGINE_MAX];
} gl_manifest_t;

/* Manifest text (docs/FORMATS.md); parse checks magic, version and checksum. */
int gl_manifest_format(const gl_manifest_t *m, char *buf, size_t cap);
int gl_manifest_parse(const char *text, size_t len, gl_manifest_t *m, char *err, size_t errcap);
/* Reads DIR/manifest.gkm; GK_E_IO with errno ENOENT preserved when there is none. */
int gl_manifest_read(const char *dir, gl_manifest_t *m, char *err, size_t errcap);
/* Writes it atomically (temporary file, fsync, rename, fsync of the directory). */
int gl_manifest_write(const char *dir, const gl_manifest_t *m, char *err, size_t errcap);

/* Path of rank r's shard in dir. */
int gl_shard_path(const char *dir, int rank, char *buf, size_t cap);

/* The shards of a run directory (or one shard file), scanned. */
typedef struct gl_logset {
    int nshards;
    char **path;
    gl_shard_t *shard;
    bool has_manifest;
    gl_manifest_t manifest;
} gl_logset_t;

/* Opens DIR (every shard-*.gkz in name order, and the manifest) or a single file, and
 * scans each (verify: check payload checksums too).  Damaged shards are reported in
 * their status, not as an error of the call. */
int gl_logset_open(gl_logset_t *ls, const char *path, bool verify, char *err, size_t errcap);
void gl_logset_free(gl_logset_t *ls);

/* Where one game lives. */
typedef struct gl_loc {
    uint64_t index;
    int shard;
    uint32_t frame;
    uint32_t k; /* position in the frame */
} gl_loc_t;

/* Every game of the sound frames of ls, sorted by game index (then shard, frame, k:
 * duplicates stay adjacent).  *out is malloc'ed; caller frees. */
int gl_logset_locate(const gl_logset_t *ls, gl_loc_t **out, uint64_t *n, char *err, size_t errcap);

/* Reads games of a logset in any order with a small cache of decompressed frames.
 * gl_reader_get's reasons start with the shard's path and the game's index. */
typedef struct gl_reader gl_reader_t;
int gl_reader_new(gl_reader_t **r, const gl_logset_t *ls, char *err, size_t errcap);
int gl_reader_get(gl_reader_t *r, const gl_loc_t *loc, gl_game_t *g, char *err, size_t errcap);
void gl_reader_free(gl_reader_t *r);

const char *gl_action_kind_text(int kind);

#endif
