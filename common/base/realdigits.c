#include "base/realdigits.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCC's and clang's 128-bit integers: the scaled doubles below need up to 127 bits. */
__extension__ typedef unsigned __int128 u128;

/* 10^0 to 10^19: the powers of ten of 64 bits. */
static const uint64_t pow10_u64[20] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL,
                                       1000000000000000000ULL,
                                       10000000000000000000ULL};

/* The powers of ten that are doubles exactly (5^22 < 2^53). */
enum { EXACT_POW10_MAX = 22 };
static const double pow10_exact[EXACT_POW10_MAX + 1] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^k for k from 0 to 38 (10^38 < 2^127). */
static u128 pow10_u128(int k)
{
    return k < 20 ? pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

static int bits_u128(u128 x)
{
    uint64_t high = (uint64_t)(x >> 64), low = (uint64_t)x;
    if (high)
        return 128 - __builtin_clzll(high);
    return low ? 64 - __builtin_clzll(low) : 0;
}

/* m x 2^e x 10^s as the fraction *num / *den; false when either would pass 127 bits. */
static bool scaled(uint64_t m, int e, int s, u128 *num, u128 *den)
{
    enum { POW10_MAX = 38, BITS = 127 };
    u128 n = m, d = 1;
    if (s > POW10_MAX || s < -POW10_MAX)
        return false;
    if (s >= 0) {
        u128 p = pow10_u128(s);
        if (bits_u128(p) + bits_u128(n) > BITS)
            return false;
        n *= p;
    } else {
        d = pow10_u128(-s);
    }
    if (e >= 0) {
        if (bits_u128(n) + e > BITS)
            return false;
        n <<= e;
    } else {
        if (bits_u128(d) - e > BITS)
            return false;
        d <<= -e;
    }
    *num = n;
    *den = d;
    return true;
}

/* v (finite, above 0) as m x 2^e exactly, m odd; *binary: v is in [2^(binary-1), 2^binary). */
static void split_double(double v, uint64_t *m, int *e, int *binary)
{
    double fraction = frexp(v, binary); /* v = fraction x 2^binary, fraction in [0.5, 1) */
    uint64_t mantissa = (uint64_t)ldexp(fraction, 53);
    int zeros = __builtin_ctzll(mantissa);
    *m = mantissa >> zeros;
    *e = *binary - 53 + zeros;
}

/* v to 17 digits, truncated, and what was cut: v = (q + f) x 10^(k - 16), q of 17 digits, f in
 * [0, 1) compared with a half (half: -1 below, 0 at, 1 above; zero: f is 0). Every count's
 * rounding is exact from here, with one division. */
struct truncated {
    uint64_t q;
    int k, half;
    bool zero;
};

static bool truncate17(double v, struct truncated *t)
{
    uint64_t m;
    int e, binary;
    split_double(v, &m, &e, &binary);
    /* The power of ten of the first digit: at most one above this, which the quotient tells. */
    int k = (int)floor((binary - 1) * 0.30102999566398120);
    const uint64_t low = pow10_u64[REAL_DIGITS_MAX - 1], high = pow10_u64[REAL_DIGITS_MAX];
    for (int tries = 0; tries < 3; tries++) {
        u128 num, den;
        if (!scaled(m, e, REAL_DIGITS_MAX - 1 - k, &num, &den))
            return false;
        u128 q = num / den, r = num % den;
        if (q < low) {
            k--;
            continue;
        }
        if (q >= high) {
            k++;
            continue;
        }
        *t = (struct truncated){.q = (uint64_t)q,
                                .k = k,
                                .half = r > den - r    ? 1
                                        : r == den - r ? 0
                                                       : -1,
                                .zero = r == 0};
        return true;
    }
    return false;
}

/* t rounded to n digits: *q of n digits, and the power of ten of its first, *k. */
static void round_truncated(const struct truncated *t, int n, uint64_t *q, int *k)
{
    uint64_t cut = pow10_u64[REAL_DIGITS_MAX - n];
    uint64_t kept = t->q / cut, rest = t->q % cut;
    int above; /* the part cut off against a half of the last digit kept */
    if (n == REAL_DIGITS_MAX)
        above = t->half;
    else if (rest != cut / 2)
        above = rest > cut / 2 ? 1 : -1;
    else
        above = t->zero ? 0 : 1;
    if (above > 0 || (above == 0 && (kept & 1))) /* to nearest, ties to even */
        kept++;
    *k = t->k;
    if (kept == pow10_u64[n]) { /* 9.96 to two digits: 1.0e1 */
        kept = pow10_u64[n - 1];
        ++*k;
    }
    *q = kept;
}

static void put_digits(uint64_t q, int n, char *digits)
{
    for (int i = n - 1; i >= 0; i--, q /= 10)
        digits[i] = (char)('0' + q % 10);
}

bool real_round(double v, int n, char digits[REAL_DIGITS_MAX], int *exp)
{
    struct truncated t;
    if (v == 0) {
        memset(digits, '0', (size_t)n);
        *exp = 0;
        return true;
    }
    if (!truncate17(v, &t))
        return false;
    uint64_t q;
    round_truncated(&t, n, &q, exp);
    put_digits(q, n, digits);
    return true;
}

/* q x 10^scale as strtod reads it, in *v, where one operation gives it: q and the power of ten
 * both doubles exactly, so the one rounding is strtod's (Clinger's fast path). */
static bool exact_decimal(uint64_t q, int scale, double *v)
{
    if (q > (UINT64_C(1) << 53) || scale > EXACT_POW10_MAX || scale < -EXACT_POW10_MAX)
        return false;
    *v = scale >= 0 ? (double)q * pow10_exact[scale] : (double)q / pow10_exact[-scale];
    return true;
}

/* Whether q x 10^scale reads back as v: 1 or 0; -1 when the read-back would not be one exact
 * operation. */
static int reads_back(double v, uint64_t q, int scale)
{
    double back;
    if (!exact_decimal(q, scale, &back))
        return -1;
    return back == v;
}

/* The reals the tools compute most, times and latencies to the millisecond or the microsecond,
 * are q x 10^-k for a q of at most 15 digits and a k of at most 6, and so is each such double
 * that reads back from that decimal. Its digits (q's, without trailing zeros) are then the fewest
 * that read back (two decimals of at most 15 digits never read as one double, DBL_DIG), and the
 * halving search below finds the same count (up to 15 digits, reading back only grows with the
 * count). Taken at once: a multiplication and a division a place, where the search divides
 * 128-bit numbers. 0 when v is no such decimal. */
static int few_decimals(double v, char digits[REAL_DIGITS_MAX], int *exp)
{
    for (int k = 0; k <= 6; k++) {
        double scaled = v * pow10_exact[k];
        if (!(scaled < 1e15))
            return 0;
        uint64_t q = (uint64_t)(scaled + 0.5); /* a guess: reading back decides */
        if (q == 0 || (double)q / pow10_exact[k] != v)
            continue;
        int n = 1;
        while (q >= pow10_u64[n])
            n++;
        *exp = n - 1 - k;
        for (; q % 10 == 0; q /= 10)
            n--;
        put_digits(q, n, digits);
        return n;
    }
    return 0;
}

int real_digits_exact(double v, char digits[REAL_DIGITS_MAX], int *exp)
{
    if (v == 0)
        return real_round(v, 1, digits, exp) ? 1 : 0;
    int few = few_decimals(v, digits, exp);
    if (few)
        return few;
    struct truncated t;
    if (!truncate17(v, &t))
        return 0;
    /* The same halving search as real_digits_by_printf's, so that the two find the same count
     * wherever the count that reads back is not the least of a run. */
    int lo = 1, hi = REAL_DIGITS_MAX;
    uint64_t q;
    int k;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        round_truncated(&t, mid, &q, &k);
        int reads = reads_back(v, q, k - (mid - 1));
        if (reads < 0)
            return 0;
        if (reads)
            hi = mid;
        else
            lo = mid + 1;
    }
    round_truncated(&t, lo, &q, exp);
    put_digits(q, lo, digits);
    return lo;
}

int real_digits(double v, char digits[REAL_DIGITS_MAX], int *exp)
{
    int n = real_digits_exact(v, digits, exp);
    return n ? n : real_digits_by_printf(v, digits, exp);
}

int real_digits_by_printf(double v, char digits[REAL_DIGITS_MAX], int *exp)
{
    char sci[32];
    int lo = 1, hi = REAL_DIGITS_MAX;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(sci, sizeof sci, "%.*e", mid - 1, v);
        if (strtod(sci, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(sci, sizeof sci, "%.*e", lo - 1, v);
    digits[0] = sci[0];
    if (lo > 1)
        memcpy(digits + 1, sci + 2, (size_t)lo - 1);
    *exp = atoi(strchr(sci, 'e') + 1);
    return lo;
}

bool real_read_exact(const char *text, size_t len, double *v)
{
    const char *p = text, *end = text + len;
    bool negative = p < end && *p == '-';
    p += negative;
    uint64_t mantissa = 0;
    int scale = 0;
    bool point = false;
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            point = true;
            continue;
        }
        if (mantissa > (UINT64_C(1) << 53) / 10)
            return false;
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        scale -= point;
    }
    if (p < end) { /* the exponent: a few digits at most, past which strtod decides */
        p++;
        bool down = p < end && *p == '-';
        p += p < end && (*p == '-' || *p == '+');
        int exponent = 0;
        for (; p < end; p++) {
            if (exponent > 1000)
                return false;
            exponent = exponent * 10 + (*p - '0');
        }
        scale += down ? -exponent : exponent;
    }
    double magnitude;
    if (!exact_decimal(mantissa, scale, &magnitude))
        return false;
    *v = negative ? -magnitude : magnitude;
    return true;
}
