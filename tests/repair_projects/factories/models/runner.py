"""A model holding its config and training mesh; meshes entered inside that mesh."""

import argparse

import jax

from models import layouts


def parse(args):
    parser = argparse.ArgumentParser()
    parser.add_argument("--eval-layout", default="dp")
    return parser.parse_args(args)


def sizes():
    return tuple(jax.sharding.get_abstract_mesh().axis_sizes)


class Model:
    def __init__(self, config, mesh):
        self.config = config
        self.mesh = mesh

    def decode_sizes(self):
        with jax.set_mesh(self.mesh):
            shape = self.config.decode_mesh_shape
            with jax.sharding.use_abstract_mesh(layouts.create_abstract_mesh(*shape)):
                return sizes()

    def eval_sizes(self, flags):
        layout = layouts.get_layout(flags.eval_layout)
        with jax.set_mesh(self.mesh):
            with jax.sharding.use_abstract_mesh(layouts.create_abstract_mesh(*layout)):
                return sizes()
