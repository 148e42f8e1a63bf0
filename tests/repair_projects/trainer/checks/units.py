import unittest

from jax.sharding import AbstractMesh, use_abstract_mesh

from trainer.export import export_double
from trainer.gather import gathered_batch
from trainer.stages import eval_sizes


class TrainerTest(unittest.TestCase):
    def test_export(self):
        self.assertTrue(export_double())

    def test_eval_sizes(self):
        self.assertEqual(eval_sizes(), (8, 4))

    def test_gather(self):
        self.assertEqual(gathered_batch(), (list(range(8)), {"x": 4, "y": 2}))

    def test_resizing_is_refused(self):
        with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
            with self.assertRaisesRegex(ValueError, "cannot change the size"):
                with use_abstract_mesh(AbstractMesh((4, 4), ("data", "model"))):
                    pass
