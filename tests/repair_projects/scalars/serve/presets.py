"""Partition presets written in Python (EasyDeL style)."""
import dataclasses

WIDE_DP = 4


@dataclasses.dataclass(frozen=True)
class Axes:
    dp: int = 1
    tp: int = 8


PRESETS = {
    "train": Axes(dp=2, tp=4),
    "eval": Axes(dp=4, tp=4),
    "wide": Axes(dp=WIDE_DP, tp=4),
    "probe": Axes(dp=WIDE_DP, tp=4),
}
