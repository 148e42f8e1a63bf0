"""The project's smoke run: stops at the first error."""
from trainer.export import export_double
from trainer.gather import gathered_batch
from trainer.stages import eval_sizes

print("export", export_double())
print("stage", eval_sizes())
print("gather", gathered_batch())
