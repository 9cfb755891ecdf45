/* The shortest decimal digits of a double that read back as it: what jsonout writes for a real.
 *
 * The digits are the fewest significant ones (1 to 17) whose correctly rounded decimal (as
 * printf's %.*e rounds: to nearest, ties to even) reads back as the double under strtod. The
 * search for that count tries counts by halving the range 1 to 17, as printf and strtod would be
 * tried; each try is exact integer arithmetic on 128 bits, and a read-back is one correctly
 * rounded division or multiplication (a decimal of at most 2^53 and a power of ten of at most
 * 10^22 are both doubles), so the latencies and times the tools compute cost no printf and no
 * strtod. A double whose tries do not fit those bounds takes printf and strtod, which always give
 * the same digits. Before any search, a double that is a decimal of at most 15 digits and 6
 * places (a time or latency to the microsecond) is read off by one multiplication and one
 * division a place: those digits are the fewest, and the ones the search finds. */
#ifndef ACP_REALDIGITS_H
#define ACP_REALDIGITS_H

#include <stdbool.h>
#include <stddef.h>

enum { REAL_DIGITS_MAX = 17 };

/* v's digits, without sign or point, in digits (not NUL-terminated), and the power of ten of
 * the first: v is about d.ddd x 10^*exp. v is finite and not negative (0 is "0", exponent 0).
 * Returns how many digits. */
int real_digits(double v, char digits[REAL_DIGITS_MAX], int *exp);

/* The same by integer arithmetic alone, or 0 where printf and strtod must find them. */
int real_digits_exact(double v, char digits[REAL_DIGITS_MAX], int *exp);

/* The same found by printf and strtod alone: what real_digits must always agree with. */
int real_digits_by_printf(double v, char digits[REAL_DIGITS_MAX], int *exp);

/* v correctly rounded to n significant digits (1 to REAL_DIGITS_MAX), as printf's "%.*e" with
 * n - 1 rounds it, by integer arithmetic: its digits in digits and the power of ten of the first
 * in *exp. False when the arithmetic would pass 128 bits (printf must do it then). */
bool real_round(double v, int n, char digits[REAL_DIGITS_MAX], int *exp);

/* The double a number's text (JSON's syntax, already checked) reads as under strtod, where one
 * exact operation gives it: a mantissa of at most 2^53 (its point dropped) times or over a power
 * of ten of at most 10^22 (Clinger's fast path: the times and latencies of a capture). False for
 * any other, which strtod must read. */
bool real_read_exact(const char *text, size_t len, double *v);

#endif
