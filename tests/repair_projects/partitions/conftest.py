import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
# the launcher of this suite partitions the model four ways
os.environ.setdefault("NUM_PARTITIONS", "4")
