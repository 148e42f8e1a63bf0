"""A sampler that prepares its parameters for decoding."""

from decoding import params as params_lib


class Sampler:
    def __init__(self, seed=0):
        self.seed = seed

    def prepare(self, params, *, mesh):
        return params_lib.gather_for_decoding(params, mesh)
