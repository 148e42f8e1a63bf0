"""What a run is told: config files, flags, the target JAX version, the options every stage reads."""
