from rl import meshes
from rl.config import ClusterConfig, RolloutConfig


def default_config():
    return ClusterConfig(actor_mesh=meshes.role_mesh((4, 2)))


def train_rollout():
    return RolloutConfig(actor_mesh=meshes.role_mesh((4, 2)))


def eval_rollout():
    return RolloutConfig(actor_mesh=meshes.role_mesh((2, 2)))
