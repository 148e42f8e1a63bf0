from stages.settings import StageConfig

SERVING = StageConfig()
