import enum


class Role(enum.Enum):
    TRAIN = "train"
    SERVE = "serve"
