from jax.sharding import AbstractMesh


def make_abstract_moe_mesh(data, expert, model):
    """The mixture-of-experts stage's mesh."""
    return AbstractMesh((data, expert, model), ("data", "expert", "model"))
