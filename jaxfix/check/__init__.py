"""Files in, results out: the prefilter, the engine that runs the rules on one file, the runner and its workers."""
