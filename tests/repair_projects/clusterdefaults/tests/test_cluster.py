from rl.cluster import RLCluster, Rollout
from rl.launch import default_config, eval_rollout, train_rollout


def test_sampler_sizes():
    cluster = RLCluster(cluster_config=default_config())
    assert cluster.sampler_sizes() == {"fsdp": 4, "tp": 2}


def test_reference_sizes():
    cluster = RLCluster(cluster_config=default_config())
    assert cluster.reference_sizes() == {"fsdp": 4, "tp": 2}


def test_train_plan():
    assert Rollout(train_rollout()).plan_sizes() == {"fsdp": 4, "tp": 2}


def test_eval_plan():
    assert Rollout(eval_rollout()).plan_sizes() == {"fsdp": 2, "tp": 2}
