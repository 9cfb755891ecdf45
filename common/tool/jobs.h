/* Private to tool/: the -j pipeline, which takes the steps of a record's handling (steps.h) in
 * worker threads and in input order. The tools include filter.h, never this. */
#ifndef ACP_JOBS_H
#define ACP_JOBS_H

#include <stddef.h>

#include "tool/steps.h"

/* The number of threads --jobs asks for: 0 is one per online core. */
size_t jobs_wanted(const struct common_opts *o);
/* Starts n worker threads for f (f->jobs), besides this one. */
void jobs_start(struct filter *f, size_t n);
/* Stops and joins the workers and frees the pipeline; called with nothing in flight. */
void jobs_stop(struct filter *f);
/* Hands rec to the workers, copied into the batch being filled. */
void jobs_add_record(struct filter *f, const struct record *rec);
/* Everything read is handled, in order, before the function returns. Does nothing without
 * jobs. */
void jobs_drain(struct filter *f);

#endif
