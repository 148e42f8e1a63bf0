"""The launcher's flags (absl): read as `_HOLDER.value` and as `FLAGS.name`."""
from absl import flags

_DATA = flags.DEFINE_integer("data_parallelism", 2, "data-parallel ways")
_MODEL = flags.DEFINE_integer("model_parallelism", 4, "model-parallel ways")
_PROBE_MODEL = flags.DEFINE_integer("probe_model_parallelism", 8, "probe model ways")
flags.DEFINE_integer("eval_model_parallelism", 8, "eval model ways")
FLAGS = flags.FLAGS


def train_shape():
    return (_DATA.value, _MODEL.value)


def eval_shape():
    return (2, FLAGS.eval_model_parallelism)


def probe_shape():
    return [2, _PROBE_MODEL.value]


def sliced_shape():
    return (_DATA.value, 4)
