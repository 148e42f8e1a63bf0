"""Device lists and arrays by their shapes: what `Mesh(devices, names)` takes its sizes from.

Real projects build a mesh's devices as `np.array(jax.devices()[:8]).reshape(2, 4)`,
`np.asarray(jax.devices()).reshape((2, -1))`, `mesh_utils.create_device_mesh((2, 4))` or
`other_mesh.devices`. These functions are NumPy's and JAX's rules on values the engine already
knows (checked on jax 0.10.2 and 0.12.0.1):

- `jax.devices()` is a list of unknown length. `devices[a:b]` with `0 <= a <= b` has `b - a`
  devices even when the length is unknown: jaxfix assumes there are at least `b` (code that
  slices asks for that many; with fewer devices it builds a smaller mesh).
- `reshape` fills one `-1` only when the number of devices is known; a known shape whose size
  differs from a known number of devices raises in NumPy, so it is Unknown.
- `.shape` and `.size` of a device array; `list(devices)` the same devices, `len(devices)`
  their count when known.
- `Mesh(array, names)` of a NumPy array of known shape that the code fills with devices
  (vmoe's `np.empty((n, 1), dtype=object)`, its items set one by one) takes the array's shape:
  a mesh's axis sizes are its devices' shape, whatever the array holds.
"""

from __future__ import annotations

import math

from jaxfix.analysis.ast_engine.values import Devices, ListValue, Unknown, Value


def reshaped(devices: Devices, shape: Value) -> Value:
    """`devices.reshape(shape)` or `np.reshape(devices, shape)`; `shape` an int, a tuple or a
    list."""
    dims = (
        (shape,)
        if isinstance(shape, int)
        else shape.items
        if isinstance(shape, ListValue)
        else shape
    )
    if not isinstance(dims, tuple):
        return Unknown("a reshape to a shape jaxfix cannot spell out")
    new: list[int | None] = []
    for dim in dims:
        if isinstance(dim, int) and dim < -1:
            return Unknown("a reshape to a negative dimension")
        new.append(dim if isinstance(dim, int) else None)
    if new.count(-1) > 1:
        return Unknown("a reshape with two -1 dimensions")
    count = devices.count
    others = [d for d in new if d != -1]
    if -1 in new:
        fill = None
        if count is not None and None not in others:
            product = math.prod(d for d in others if d is not None)
            if product == 0 or count % product:
                return Unknown(f"a reshape of {count} devices that NumPy rejects")
            fill = count // product
        new[new.index(-1)] = fill
    elif (
        count is not None
        and None not in new
        and math.prod(d for d in new if d is not None) != count
    ):
        return Unknown(f"a reshape of {count} devices that NumPy rejects")
    return Devices(tuple(new), is_array=True)


def flattened(devices: Devices) -> Devices:
    """`devices.flatten()` / `devices.ravel()`."""
    return Devices((devices.count,), is_array=True)


def sliced(base: tuple[Value, ...] | Devices, lower: Value, upper: Value) -> Value:
    """`base[lower:upper]` (None for a bound left out) of a tuple or of devices."""
    if not all(bound is None or isinstance(bound, int) for bound in (lower, upper)):
        return Unknown("a slice with bounds jaxfix cannot compute")
    start = lower if isinstance(lower, int) else None
    stop = upper if isinstance(upper, int) else None
    if isinstance(base, tuple):
        return base[start:stop]
    if not base.shape:
        return Unknown("a slice of something that is not known devices")
    length = base.shape[0]
    if length is not None:
        kept: int | None = len(range(length)[start:stop])
    elif (start or 0) >= 0 and stop is not None and stop >= (start or 0):
        kept = stop - (start or 0)  # assumes at least `stop` devices
    else:
        kept = None
    return Devices((kept, *base.shape[1:]), is_array=base.is_array)


def stepped(devices: Devices, lower: Value, upper: Value, step: Value) -> Value:
    """`devices[lower:upper:step]` of a device list or 1-D array: as many devices as the
    slice keeps when the length is known, else an unknown number (still devices: what a
    reshape to a known shape builds a mesh of)."""
    if len(devices.shape) != 1 or not all(
        b is None or isinstance(b, int) for b in (lower, upper, step)
    ):
        return Unknown("a slice with a step jaxfix cannot compute")
    if step == 0:
        return Unknown("a slice step of zero")
    length = devices.shape[0]
    assert lower is None or isinstance(lower, int)
    assert upper is None or isinstance(upper, int)
    assert step is None or isinstance(step, int)
    kept = None if length is None else len(range(length)[lower:upper:step])
    return Devices((kept,), is_array=devices.is_array)


def joined(left: Devices, right: Devices) -> Value:
    """`a + b` of two device lists (a NumPy array would add element-wise)."""
    if left.is_array or right.is_array:
        return Unknown("`+` of device arrays")
    if len(left.shape) != 1 or len(right.shape) != 1:
        return Unknown("`+` of device lists jaxfix cannot spell out")
    a, b = left.shape[0], right.shape[0]
    return Devices((None if a is None or b is None else a + b,), is_array=False)


def array_attribute(devices: Devices, name: str) -> Value:
    """`.shape` or `.size` of a device array."""
    if name == "shape":
        return tuple(
            Unknown("a dimension jaxfix cannot compute") if s is None else s
            for s in devices.shape
        )
    if name == "size" and devices.count is not None:
        return devices.count
    return Unknown(f"`.{name}` of devices jaxfix does not know")
