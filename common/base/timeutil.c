#include "base/timeutil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

long long time_days_from_civil(long long y, unsigned m, unsigned d)
{
    /* Howard Hinnant's days_from_civil, restated: count from 0000-03-01 in 400-year eras. */
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static void civil_from_days(long long z, long long *y, unsigned *m, unsigned *d)
{
    z += 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (long long)yoe + era * 400 + (*m <= 2);
}

bool time_digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

bool time_parse_rfc3339(const char *s, double *epoch, bool *has_zone)
{
    int y, mo, d, h, mi, sec;
    if (strlen(s) < 19 || !time_digits(s, 4, &y) || s[4] != '-' || !time_digits(s + 5, 2, &mo) ||
        s[7] != '-' || !time_digits(s + 8, 2, &d) || !strchr("Tt ", s[10]) || s[10] == '\0' ||
        !time_digits(s + 11, 2, &h) || s[13] != ':' || !time_digits(s + 14, 2, &mi) ||
        s[16] != ':' || !time_digits(s + 17, 2, &sec))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || sec > 60)
        return false;
    const char *p = s + 19;
    double frac = 0;
    if (*p == '.') {
        double scale = 0.1;
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p)) {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    long offset = 0;
    *has_zone = true;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (!time_digits(p + 1, 2, &oh) || p[3] != ':' || !time_digits(p + 4, 2, &om) || oh > 23 ||
            om > 59)
            return false;
        offset = (oh * 60L + om) * 60L * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        *has_zone = false;
    }
    if (*p != '\0')
        return false;
    long long days = time_days_from_civil(y, (unsigned)mo, (unsigned)d);
    *epoch = (double)(days * 86400 + h * 3600LL + mi * 60LL + sec - offset) + frac;
    return true;
}

void time_format_rfc3339(long long t, char *buf, size_t size)
{
    long long days = t / 86400, rem = t % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    long long y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999 || size < sizeof "YYYY-MM-DDTHH:MM:SSZ") {
        snprintf(buf, size, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", y, m, d, rem / 3600,
                 rem / 60 % 60, rem % 60);
        return;
    }
    /* By hand: snprintf would cost a hundred times more, and the converters write one per
     * message. */
    unsigned fields[6] = {(unsigned)y / 100,      (unsigned)y % 100,        m, d,
                          (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60)};
    static const char after[6] = {0, '-', '-', 'T', ':', ':'};
    char *p = buf;
    for (int i = 0; i < 6; i++) {
        *p++ = (char)('0' + fields[i] / 10);
        *p++ = (char)('0' + fields[i] % 10);
        if (after[i])
            *p++ = after[i];
    }
    *p++ = (char)('0' + rem % 60 / 10);
    *p++ = (char)('0' + rem % 10);
    *p++ = 'Z';
    *p = '\0';
}

bool time_format_rfc3339_ms(double t, char *buf, size_t size)
{
    if (!(t >= TIME_RFC3339_FIRST && t < TIME_RFC3339_LAST + 1))
        return false; /* no year of four digits: and past long long, no integer at all */
    long long ms = llround(t * 1000);
    long long seconds = ms / 1000, fraction = ms % 1000;
    if (fraction < 0) {
        fraction += 1000;
        seconds--;
    }
    time_format_rfc3339(seconds, buf, size);
    size_t len = strlen(buf);
    if (fraction && len > 0 && len + 4 < size) {
        /* By hand, as the seconds are: a capture to the millisecond has one a message. */
        char *p = buf + len - 1;
        *p++ = '.';
        *p++ = (char)('0' + fraction / 100);
        *p++ = (char)('0' + fraction / 10 % 10);
        *p++ = (char)('0' + fraction % 10);
        *p++ = 'Z';
        *p = '\0';
    }
    return true;
}

bool time_parse_now(const char *s, time_t *out)
{
    const char *num = *s == '@' ? s + 1 : s;
    unsigned long secs;
    if (parse_ulong(num, &secs)) {
        *out = (time_t)secs;
        return true;
    }
    double epoch;
    bool zone;
    if (time_parse_rfc3339(s, &epoch, &zone) && double_fits_llong(epoch)) {
        *out = (time_t)epoch;
        return true;
    }
    return false;
}

double time_elapsed(double later, double earlier)
{
    return round((later - earlier) * 1e6) / 1e6;
}
