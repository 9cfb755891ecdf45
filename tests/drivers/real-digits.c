/* real-digits: holds real_digits (the shortest digits jsonout writes for a real) to printf and
 * strtod, over random doubles of every kind: bit patterns of every exponent (denormals among
 * them), the times and latencies the tools compute (milliseconds and microseconds, and their
 * differences, of epoch times and of short spans), decimal ties (x.5 at every place a count of
 * digits may cut), powers of two and their neighbours, and the edges (the least denormal, the
 * greatest double, the powers of ten):
 *   - real_round to every count 1..17, where it answers, gives printf's "%.*e" digits;
 *   - real_digits gives real_digits_by_printf's digits and exponent;
 *   - those digits read back under strtod as the double, and one fewer rounded does not;
 *   - of the times and latencies, at least 99% are answered without printf (the fast way is
 *     not left for the slow one unnoticed);
 * and real_read_exact (the scanner's read of a real) to strtod, bit for bit, over random number
 * texts of JSON's syntax (signs, leading zeros, points, exponents, 1 to 20 digits), the texts
 * the writer made above among them, and answering at least a third of them.
 * Prints the cases that fail, then "checked N, failed N, by printf N of N times, read N of N",
 * and exits 1 when any failed. Usage: real-digits [ROUNDS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/realdigits.h"

static uint64_t next_random(uint64_t *state)
{
    /* splitmix64: every bit of the result random, which bit patterns need */
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static double of_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static unsigned long failed, checked;

static void fail(double v, const char *what, const char *got, const char *want)
{
    if (failed++ < 20)
        printf("%.17g (%a): %s: got %s, want %s\n", v, v, what, got, want);
}

static void as_text(const char *digits, int n, int exp, char *out, size_t size)
{
    snprintf(out, size, "%.*s e%d", n, digits, exp);
}

/* Every count's rounding against printf's. */
static void check_rounding(double v)
{
    for (int n = 1; n <= REAL_DIGITS_MAX; n++) {
        char digits[REAL_DIGITS_MAX], sci[40], got[48], want[48];
        int exp;
        if (!real_round(v, n, digits, &exp))
            continue;
        snprintf(sci, sizeof sci, "%.*e", n - 1, v);
        char printed[REAL_DIGITS_MAX];
        printed[0] = sci[0];
        if (n > 1)
            memcpy(printed + 1, sci + 2, (size_t)n - 1);
        int printed_exp = atoi(strchr(sci, 'e') + 1);
        if (exp != printed_exp || memcmp(digits, printed, (size_t)n) != 0) {
            as_text(digits, n, exp, got, sizeof got);
            as_text(printed, n, printed_exp, want, sizeof want);
            fail(v, "rounding", got, want);
        }
    }
}

static double read_back(const char *digits, int n, int exp)
{
    char text[64];
    snprintf(text, sizeof text, "%.*se%d", n, digits, exp - (n - 1));
    return strtod(text, NULL);
}

static unsigned long texts, texts_exact;

/* real_read_exact's answer, where it gives one, is strtod's to the bit. */
static void check_read(const char *text)
{
    double exact;
    texts++;
    if (!real_read_exact(text, strlen(text), &exact))
        return;
    texts_exact++;
    double want = strtod(text, NULL);
    if (memcmp(&exact, &want, sizeof exact) != 0 && failed++ < 20)
        printf("%s: read %.17g, strtod %.17g\n", text, exact, want);
}

/* A number's text as JSON spells it. */
static void random_text(uint64_t *state, char *out, size_t size)
{
    size_t n = 0;
    if (next_random(state) % 3 == 0)
        out[n++] = '-';
    int digits = 1 + (int)(next_random(state) % 20);
    int point = (int)(next_random(state) % (uint64_t)(digits + 1));
    for (int i = 0; i < digits; i++) {
        if (i == point && i > 0)
            out[n++] = '.';
        /* JSON's leading digit: no 0 before another digit of the whole part */
        out[n++] = (char)('0' + (i == 0 && point != 1 ? 1 + next_random(state) % 9
                                                        : next_random(state) % 10));
    }
    if (next_random(state) % 2) {
        const char *mark = next_random(state) % 2 ? "e" : "E-";
        int exponent = (int)(next_random(state) % 40);
        n += (size_t)snprintf(out + n, size - n, "%s%d", mark, exponent);
    }
    out[n] = '\0';
}

static void check(double v)
{
    if (!isfinite(v))
        return;
    v = fabs(v);
    checked++;
    check_rounding(v);
    char digits[REAL_DIGITS_MAX], reference[REAL_DIGITS_MAX], got[48], want[48];
    int exp, reference_exp;
    int n = real_digits(v, digits, &exp);
    int reference_n = real_digits_by_printf(v, reference, &reference_exp);
    as_text(digits, n, exp, got, sizeof got);
    as_text(reference, reference_n, reference_exp, want, sizeof want);
    if (n != reference_n || exp != reference_exp || memcmp(digits, reference, (size_t)n) != 0)
        fail(v, "digits", got, want);
    char text[64];
    snprintf(text, sizeof text, "%.*se%d", n, digits, exp - (n - 1));
    check_read(text);
    if (read_back(digits, n, exp) != v)
        fail(v, "read back", got, "the same double");
    char fewer[REAL_DIGITS_MAX];
    int fewer_exp;
    if (n > 1 && real_round(v, n - 1, fewer, &fewer_exp) &&
        read_back(fewer, n - 1, fewer_exp) == v)
        fail(v, "shortest", got, "one digit fewer");
}

/* A time or latency as the tools compute it: whole milliseconds or microseconds, of an epoch
 * time or a span, or the difference of two epoch times. */
static double computed_time(uint64_t *state)
{
    double epoch = 1e9 + (double)(next_random(state) % 1000000000);
    double unit = next_random(state) % 2 ? 1e3 : 1e6;
    double fraction = (double)(next_random(state) % (uint64_t)unit) / unit;
    switch (next_random(state) % 4) {
    case 0:
        return epoch + fraction;
    case 1:
        return (double)(next_random(state) % 100000) + fraction;
    case 2:
        return (epoch + fraction) - (epoch - (double)(next_random(state) % 3600) - 0.25);
    default:
        return fraction;
    }
}

/* x.5 at a place where a count of digits cuts: ties of every kind, exact in binary. */
static double decimal_tie(uint64_t *state)
{
    int digits = 1 + (int)(next_random(state) % 15);
    uint64_t whole = next_random(state) % 1000000000000000ULL;
    double v = ((double)whole * 10 + 5) / pow(10, digits);
    return v;
}

static double power_of_two_about(uint64_t *state)
{
    double p = ldexp(1.0, (int)(next_random(state) % 2098) - 1074);
    switch (next_random(state) % 3) {
    case 0:
        return nextafter(p, 0);
    case 1:
        return nextafter(p, INFINITY);
    default:
        return p;
    }
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    uint64_t state = 46;
    static const double edges[] = {0,       5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                   1e22,    1e23,   9007199254740992.0,      9007199254740993.0,
                                   0.1,     0.125,  0.3,                     2.5,
                                   1e-7,    1e21,   123456789012345680.0,    0.30000000000000004,
                                   9.96,    99.5,   999.5,                   0.0009765625};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        check(edges[i]);
    for (int k = -325; k <= 308; k++)
        check(pow(10, k));
    unsigned long times = 0, slow = 0;
    for (unsigned long i = 0; i < rounds; i++) {
        check(of_bits(next_random(&state)));
        check(decimal_tie(&state));
        check(power_of_two_about(&state));
        double t = computed_time(&state);
        char digits[REAL_DIGITS_MAX];
        int exp;
        times++;
        if (!real_digits_exact(t, digits, &exp))
            slow++;
        check(t);
        char text[64];
        random_text(&state, text, sizeof text);
        check_read(text);
    }
    static const char *const texts_at_edges[] = {"-0.0", "0.0", "-0", "0e5", "9007199254740993.0",
                                                 "9007199254740992", "1e22", "1e23", "1e-22",
                                                 "1e-23", "0.1", "-123.456e-7", "1E+2"};
    for (size_t i = 0; i < sizeof texts_at_edges / sizeof *texts_at_edges; i++)
        check_read(texts_at_edges[i]);
    printf("checked %lu, failed %lu, by printf %lu of %lu times, read %lu of %lu\n", checked,
           failed, slow, times, texts_exact, texts);
    if (texts_exact * 3 < texts) {
        printf("fewer than a third of the texts were read without strtod\n");
        return 1;
    }
    if (slow * 100 > times) {
        printf("more than 1%% of the times and latencies took printf\n");
        return 1;
    }
    return failed ? 1 : 0;
}
