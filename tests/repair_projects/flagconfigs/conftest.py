import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

from absl import flags  # noqa: E402

flags.FLAGS.mark_as_parsed()  # the defaults, as `app.run` with no arguments gives them
