"""Commands built on the check: `repair` (run, record, fix, again) and `migrate` (one repository)."""
