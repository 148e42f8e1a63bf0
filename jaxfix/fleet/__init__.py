"""`jaxfix migrate` beyond one machine's checkouts: repositories by URL, executors, the journal.

`jaxfix.workflows.migrate.migrate_repo` migrates one work tree; this package decides where that happens
(a scratch clone for a URL, a local process pool or a Dask cluster) and keeps the record.
"""
