"""Results kept between runs: the per-file cache and the files the prefilter settled."""
