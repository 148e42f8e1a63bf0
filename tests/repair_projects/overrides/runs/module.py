"""A base class whose subclasses become frozen dataclasses (equinox's Module idiom)."""
import dataclasses


class Frozen:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True)(cls)
