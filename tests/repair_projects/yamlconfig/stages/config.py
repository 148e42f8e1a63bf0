"""Each stage's settings, read from stages.yaml beside the package."""
from pathlib import Path

import yaml

STAGES = yaml.safe_load((Path(__file__).parent.parent / "stages.yaml").read_text())
