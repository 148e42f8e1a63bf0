"""A shape two stages share: the wide stage runs with it, the narrow one does not."""

SHAPE = (4, 4)
