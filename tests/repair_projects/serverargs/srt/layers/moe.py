import jax


class EPMoE:
    """Experts over the same devices as the model's mesh, its axes relabelled."""

    def __init__(self, num_experts, ep_size, tp_size, mesh):
        self.num_experts = num_experts
        self.ep_size = ep_size
        self.tp_size = tp_size
        self.mesh = mesh
        abstract_mesh = self.mesh.abstract_mesh
        self.updated_mesh = abstract_mesh.update(
            axis_sizes=(self.ep_size, self.tp_size), axis_names=("expert", "tensor")
        )

    def layout(self):
        with jax.sharding.use_abstract_mesh(self.updated_mesh):
            return dict(jax.sharding.get_abstract_mesh().shape)
