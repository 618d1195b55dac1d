// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c - a finding of check: its table row, its count against the file, the callback */
#include "config.h"

#include "report.h"

errcode_t e2v_report(struct e2v_check *c, unsigned int code, struct e2verity_finding *f)
{
	const struct e2verity_check_opts *o = c->opts;

	f->problem = e2verity_problem_lookup(code);
	f->ino = c->file->ino;
	if (f->problem->severity == E2VERITY_SEV_ERROR)
		c->file->errors++;
	else
		c->file->warnings++;
	return o->finding ? o->finding(o->ctx, f) : 0;
}

errcode_t e2v_report_values(struct e2v_check *c, unsigned int code, uint64_t value,
			    uint64_t expected, uint64_t offset)
{
	struct e2verity_finding f = { .value = value, .expected = expected, .offset = offset };

	return e2v_report(c, code, &f);
}
