"""`--from-log`: turn tracebacks in a log into Evidence for the rules at the lines that raised.

log bytes --logtext--> clean lines --tracebacks--> (frames, exception text)
          --errors--> occurrences of JAX001-JAX003 with their mesh facts
          --locate--> (local file, line) + Evidence, or one clear error per traceback
"""
