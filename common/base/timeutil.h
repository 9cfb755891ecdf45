/* Date-times as the protocols write them: RFC 3339 in FIPA JSON, unix seconds in IACP. */
#ifndef ACP_TIMEUTIL_H
#define ACP_TIMEUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Unix seconds above 10^11 (the year 5138) are taken for milliseconds, written by mistake (IACP's
 * ts, FIPA's timestamp and created_at, a capture replayed); above 10^14 they are neither seconds
 * nor milliseconds of this era: no time at all. Doubles, as every time read is one. */
#define UNIX_MILLISECONDS_ABOVE 1e11
#define UNIX_NO_TIME_ABOVE      1e14

/* Parses an RFC 3339 / ISO 8601 date-time ("2024-01-15T10:35:00Z", "...T10:35:00.250+02:00").
 * Without a zone the time is read as UTC and *has_zone is false. Returns false if s is not a
 * date-time or names an impossible date. *epoch gets seconds since 1970 (fractions kept). */
bool time_parse_rfc3339(const char *s, double *epoch, bool *has_zone);

/* The span of time RFC 3339 can write, in unix seconds: from year 0 to the end of year 9999. */
#define TIME_RFC3339_FIRST (-62167219200.0)
#define TIME_RFC3339_LAST  253402300799.0

/* Writes t as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into buf, which holds at least 32 bytes. */
void time_format_rfc3339(long long t, char *buf, size_t size);

/* Writes t (unix seconds) the same way, with milliseconds when it has a fraction
 * ("2011-08-02T11:21:40.250Z"; buf holds at least 40 bytes). False, with nothing written, when t
 * is outside the years 0 to 9999 that RFC 3339 can write. */
bool time_format_rfc3339_ms(double t, char *buf, size_t size);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
long long time_days_from_civil(long long y, unsigned m, unsigned d);

/* later - earlier, to the microsecond. A time of this era as a double keeps about 0.24 us, so
 * the difference of two times read from text with up to microsecond digits is exact once rounded
 * there: 0.1 s, not the 0.09999990463256836 the subtraction gives. */
double time_elapsed(double later, double earlier);

/* Reads exactly n decimal digits at s into *out; false if any of them is not a digit. */
bool time_digits(const char *s, int n, int *out);

/* Parses --now: unix seconds ("1700000000", "@1700000000") or an RFC 3339 date-time. */
bool time_parse_now(const char *s, time_t *out);

#endif
