"""A prefill/decode pair: KV pages are made on the prefill mesh and gathered before transfer."""

import jax
import numpy as np
from jax._src.shard_map import top_level_all_gather
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from disagg.meshes import build_mesh
from disagg.transfer import gather_pages


def make_pages(mesh, seed):
    with jax.set_mesh(mesh):
        pages = np.arange(4 * 8, dtype=np.float32).reshape(4, 8) + seed
        return jax.device_put(pages, P("data", "tensor"))


class DisaggWorker:
    def __init__(self):
        self.prefill_mesh = build_mesh(2, 4)
        self.decode_mesh = build_mesh(1, 8)

    def send(self, seed):
        pages = make_pages(self.prefill_mesh, seed)
        with jax.set_mesh(self.decode_mesh):
            gathered = gather_pages(
                pages, NamedSharding(self.prefill_mesh, P("data", None, reduced={"tensor"}))
            )
            return jax.device_put(jax.device_get(gathered), NamedSharding(self.decode_mesh, P()))

    def send_on_prefill(self, seed):
        pages = make_pages(self.prefill_mesh, seed)
        with jax.set_mesh(self.prefill_mesh):
            return gather_pages(
                pages, NamedSharding(self.prefill_mesh, P("data", None, reduced={"tensor"}))
            )


def send_local(seed):
    prefill = build_mesh(2, 4)
    decode = build_mesh(1, 8)
    pages = make_pages(prefill, seed)
    with jax.set_mesh(decode):
        out = NamedSharding(prefill, P("data", None, reduced={"tensor"}))
        return gather_pages(pages, out)



def gather_here(seed):
    prefill = build_mesh(2, 4)
    decode = build_mesh(1, 8)
    pages = make_pages(prefill, seed)
    with jax.set_mesh(decode):
        return top_level_all_gather(
            pages, NamedSharding(prefill, P("data", None, reduced={"tensor"}))
        )
