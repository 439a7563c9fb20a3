/* search/params.c -- typed values and NAME=VALUE lists (see params.h). */
#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/status.h"

/* Values are quoted in errors only up to this many characters. */
#define QUOTE 40

/* strtoll and strtod skip leading white space: a value may not start with any. */
static bool starts_ok(const char *s) {
    return s && *s && !isspace((unsigned char)*s);
}

int params_int(const char *s, long long lo, long long hi, long long *out, char *err, size_t cap) {
    char *end;
    errno = 0;
    long long v = starts_ok(s) ? strtoll(s, &end, 10) : 0;
    if (!starts_ok(s) || *end)
        return gk_fail(err, cap, GK_E_INVALID, "'%.*s' is not an integer in [%lld, %lld]", QUOTE,
                       s ? s : "", lo, hi);
    if (errno == ERANGE || v < lo || v > hi)
        return gk_fail(err, cap, GK_E_INVALID, "%.*s is out of range [%lld, %lld]", QUOTE, s, lo,
                       hi);
    *out = v;
    return 0;
}

int params_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t cap) {
    char *end = NULL;
    errno = 0;
    bool digits = s && *s >= '0' && *s <= '9';
    unsigned long long v = digits ? strtoull(s, &end, 10) : 0;
    if (!digits || *end) {
        /* "-1" is an integer, only not one in range. */
        if (s && *s == '-' && s[1] >= '0' && s[1] <= '9' && !s[1 + strspn(s + 1, "0123456789")])
            snprintf(err, cap, "%.*s is out of range [%" PRIu64 ", %" PRIu64 "]", QUOTE, s, lo, hi);
        else
            snprintf(err, cap, "'%.*s' is not an integer in [%" PRIu64 ", %" PRIu64 "]", QUOTE,
                     s ? s : "", lo, hi);
        return -1;
    }
    if (errno == ERANGE || v < lo || v > hi)
        return gk_fail(err, cap, GK_E_INVALID, "%.*s is out of range [%" PRIu64 ", %" PRIu64 "]",
                       QUOTE, s, lo, hi);
    *out = v;
    return 0;
}

int params_double(const char *s, double lo, double hi, double *out, char *err, size_t cap) {
    char *end;
    errno = 0;
    double v = starts_ok(s) ? strtod(s, &end) : 0;
    if (!starts_ok(s) || *end || !isfinite(v))
        return gk_fail(err, cap, GK_E_INVALID, "'%.*s' is not a number in [%g, %g]", QUOTE,
                       s ? s : "", lo, hi);
    if (v < lo || v > hi)
        return gk_fail(err, cap, GK_E_INVALID, "%.*s is out of range [%g, %g]", QUOTE, s, lo, hi);
    *out = v;
    return 0;
}

int params_bool(const char *s, bool *out, char *err, size_t cap) {
    static const char *const yes[] = {"on", "true", "yes", "1"}, *const no[] = {"off", "false",
                                                                                "no", "0"};
    for (int i = 0; s && i < 4; i++) {
        if (!strcmp(s, yes[i])) return *out = true, 0;
        if (!strcmp(s, no[i])) return *out = false, 0;
    }
    return gk_fail(err, cap, GK_E_INVALID, "'%.*s' is not on or off (also true/false, yes/no, 1/0)",
                   QUOTE, s ? s : "");
}

int params_choice(const char *s, const char *choices, int *out, char *err, size_t cap) {
    size_t n = s ? strlen(s) : 0;
    int i = 0;
    for (const char *c = choices; *c; i++) {
        size_t len = strcspn(c, "|");
        if (s && len == n && !strncmp(c, s, n)) {
            *out = i;
            return 0;
        }
        c += len + (c[len] == '|');
    }
    char list[256];
    size_t k = 0;
    for (const char *c = choices; *c && k + 3 < sizeof list; c++) {
        if (*c == '|') {
            list[k++] = ',';
            list[k++] = ' ';
        } else {
            list[k++] = *c;
        }
    }
    list[k] = 0;
    return gk_fail(err, cap, GK_E_INVALID, "'%.*s' is not one of %s", QUOTE, s ? s : "", list);
}

int params_list(const char *list, params_set_fn set, void *ctx, char *err, size_t cap) {
    char buf[PARAMS_LIST_MAX];
    size_t len = list ? strlen(list) : 0;
    if (len == 0)
        return gk_fail(err, cap, GK_E_INVALID, "empty list (expected NAME=VALUE[,NAME=VALUE...])");
    if (len >= sizeof buf)
        return gk_fail(err, cap, GK_E_INVALID, "list longer than %d characters",
                       PARAMS_LIST_MAX - 1);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)list[i] < 0x20 || list[i] == 0x7f)
            return gk_fail(err, cap, GK_E_INVALID, "the list contains a control character");
    memcpy(buf, list, len + 1);
    const char *names[PARAMS_LIST_MAX / 2 + 1];
    int nitems = 0;
    char *s = buf;
    for (int item = 1;; item++) {
        char *comma = strchr(s, ',');
        if (comma) *comma = 0;
        char *eq = strchr(s, '=');
        if (!*s)
            return gk_fail(err, cap, GK_E_INVALID, "empty item %d (two commas, or one at an end)",
                           item);
        if (!eq || eq == s || !eq[1])
            return gk_fail(err, cap, GK_E_INVALID, "'%.*s' is not NAME=VALUE", QUOTE, s);
        *eq = 0;
        const char *name = s, *value = eq + 1;
        if (strchr(value, '='))
            return gk_fail(err, cap, GK_E_INVALID, "%.*s: the value contains '='", QUOTE, name);
        for (int k = 0; k < nitems; k++)
            if (!strcmp(names[k], name))
                return gk_fail(err, cap, GK_E_INVALID, "'%.*s' is given twice", QUOTE, name);
        names[nitems++] = name;
        char e2[200] = "";
        int r = set(ctx, name, value, e2, sizeof e2);
        if (r == 0) return gk_fail(err, cap, GK_E_INVALID, "unknown parameter '%.*s'", QUOTE, name);
        if (r < 0) return gk_fail(err, cap, GK_E_INVALID, "%.*s: %s", QUOTE, name, e2);
        if (!comma) return 0;
        s = comma + 1;
    }
}
