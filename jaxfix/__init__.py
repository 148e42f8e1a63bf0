"""jaxfix: find and fix JAX sharding code that recent JAX releases reject."""

__version__ = "0.1.0"
