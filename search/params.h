/*
 * search/params.h -- typed values and NAME=VALUE lists, read one way everywhere.
 *
 * The one parser behind the search parameters (search/mcts.h), the player specs
 * (search/player.h) and the numeric flags of the `gounki` program.
 *
 * Contract
 * --------
 * Values: the whole string is the value (no spaces, no trailing text).
 *   integer  decimal digits with an optional sign (u64: digits only), in [lo, hi]
 *   number   strtod syntax, finite, in [lo, hi]
 *   bool     on/off, true/false, yes/no, 1/0
 *   choice   one of the names of a '|'-separated list ("tree|root"); gives its index
 * Errors are one line without the name of what was read: the caller puts "NAME: " or
 * "--flag: " in front.  Every numeric error states the range the same way:
 *   "'abc' is not an integer in [1, 1024]", "0 is out of range [1, 1024]",
 *   "'x' is not a number in [0, 1]", "'both' is not one of tree, root".
 *
 * Lists: "NAME=VALUE[,NAME=VALUE...]", read by params_list() for every list of the
 * program (mcts:... and ab:... specs, --set, --mcts).  Refused with a one-line reason that
 * names the item: an empty list, an empty item (two commas, or one at an end), an item
 * without '=' or with an empty name or value, a value holding '=', a control character,
 * a name given twice, and whatever the caller's setter refuses (an unknown name, a bad
 * value).  Items are set in order; on an error the target may hold the earlier items.
 */
#ifndef GK_PARAMS_H
#define GK_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest list params_list() reads. */
#define PARAMS_LIST_MAX 1024

int params_int(const char *s, long long lo, long long hi, long long *out, char *err, size_t cap);
int params_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t cap);
int params_double(const char *s, double lo, double hi, double *out, char *err, size_t cap);
int params_bool(const char *s, bool *out, char *err, size_t cap);
int params_choice(const char *s, const char *choices, int *out, char *err, size_t cap);

/* A setter of one item: returns 1 when it set it, 0 when the name is not one of its
 * own, -1 on a bad value with the reason (without the name) in err. */
typedef int (*params_set_fn)(void *ctx, const char *name, const char *value, char *err, size_t cap);

/* Reads list item by item into set().  Returns 0, or -1 with a one-line reason in err
 * ("fpu: 5 is out of range [-1, 1]", "unknown parameter 'cpuct'", "empty item 2 (two
 * commas, or one at an end)", "'fpu' is given twice"). */
int params_list(const char *list, params_set_fn set, void *ctx, char *err, size_t cap);

#endif
