"""`jaxfix server`: a Language Server (LSP over stdio, built on pygls).

The server process holds the documents and speaks the protocol; the analysis runs in a separate
worker process (jaxfix/server/worker.py) through the engine's own `check_file`, so a large
file never blocks the editor, a newer version of a document stops an older analysis, and a
crash there is one logged message.
"""
