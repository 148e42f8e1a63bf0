"""The command line: options in, rendering and exit codes out; no analysis here."""
