/* check.h: a tiny assertion kit for the native tests: counts checks, prints failures with the
 * line, and reports "N passed, N failed" at the end. */
#ifndef CHECK_H
#define CHECK_H
#include <math.h>
#include <stdio.h>

static int checks_passed, checks_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (cond) checks_passed++;                                                     \
        else { checks_failed++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } \
    } while (0)

#define CHECK_EQ_INT(actual, expected)                                                 \
    do {                                                                               \
        long a_ = (long)(actual), e_ = (long)(expected);                               \
        if (a_ == e_) checks_passed++;                                                 \
        else { checks_failed++; fprintf(stderr, "%s:%d: %s is %ld, expected %ld\n", __FILE__, __LINE__, #actual, a_, e_); } \
    } while (0)

#define CHECK_NEAR(actual, expected, tol)                                              \
    do {                                                                               \
        double a_ = (actual), e_ = (expected);                                         \
        if (fabs(a_ - e_) <= (tol)) checks_passed++;                                   \
        else { checks_failed++; fprintf(stderr, "%s:%d: %s is %.9g, expected %.9g (tol %g)\n", __FILE__, __LINE__, #actual, a_, e_, (double)(tol)); } \
    } while (0)

static int check_report(const char* name) {
    printf("%s: %d passed, %d failed\n", name, checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}
#endif
