"""Experiments: each class overrides the mesh shapes it needs."""
from paxexp import base
from paxexp.registry import register


@register
class LmCloudSpmd(base.BaseExperiment):
    ICI_MESH_SHAPE = [2, 4]
    DECODE_MESH_SHAPE = [2, 4]


@register
class LmCloudSpmdDecode(LmCloudSpmd):
    DECODE_MESH_SHAPE = [4, 4]


@register
class LmCloudSpmdWideDecode(LmCloudSpmd):
    DECODE_MESH_SHAPE = [2, 8]


@register
class LmCloudSpmdWideDecodeV2(LmCloudSpmdWideDecode):
    """Inherits the wide decode mesh."""
