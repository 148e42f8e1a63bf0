"""Questions rules ask about code: which JAX API is this, which mesh is this, which is current."""
