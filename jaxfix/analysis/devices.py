"""Device lists and arrays by their shapes, and what known meshes tell about themselves.

`Mesh(devices, names)` takes its axis sizes from the shape of `devices`; real projects build it
as `np.array(jax.devices()[:8]).reshape(2, 4)`, `np.asarray(jax.devices()).reshape((2, -1))`,
`mesh_utils.create_device_mesh((2, 4))` or `other_mesh.devices`. These functions are NumPy's and
JAX's rules on values the value model already knows (checked on jax 0.10.2 and 0.12.0.1):

- `jax.devices()` is a list of unknown length. `devices[a:b]` with `0 <= a <= b` has `b - a`
  devices even when the length is unknown: jaxfix assumes there are at least `b` (code that
  slices asks for that many; with fewer devices it builds a smaller mesh).
- `reshape` fills one `-1` only when the number of devices is known; a known shape whose size
  differs from a known number of devices raises in NumPy, so it is Unknown.
- `mesh.axis_sizes`, `.axis_names`, `.size`, `.shape[name]` of a known mesh; `.devices` of a
  concrete one (an AbstractMesh raises); `.shape` and `.size` of a device array.
"""

from __future__ import annotations

import math

from jaxfix.analysis.values import Devices, MeshValue, Unknown, Value


def reshaped(devices: Devices, shape: Value) -> Value:
    """`devices.reshape(shape)` or `np.reshape(devices, shape)`; `shape` an int or a tuple."""
    dims = (shape,) if isinstance(shape, int) else shape
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


def item(base: Value, index: Value) -> Value:
    """`base[index]`: an element of a tuple (`sizes[0]`, `sizes[-1]`)."""
    if (
        isinstance(base, tuple)
        and isinstance(index, int)
        and -len(base) <= index < len(base)
    ):
        return base[index]
    return Unknown("an item jaxfix cannot pick")


def sliced(base: Value, lower: Value, upper: Value) -> Value:
    """`base[lower:upper]` (None for a bound left out) of a tuple or of devices."""
    if not all(bound is None or isinstance(bound, int) for bound in (lower, upper)):
        return Unknown("a slice with bounds jaxfix cannot compute")
    start = lower if isinstance(lower, int) else None
    stop = upper if isinstance(upper, int) else None
    if isinstance(base, tuple):
        return base[start:stop]
    if not isinstance(base, Devices) or not base.shape:
        return Unknown("a slice of something that is not known devices")
    length = base.shape[0]
    if length is not None:
        kept: int | None = len(range(length)[start:stop])
    elif (start or 0) >= 0 and stop is not None and stop >= (start or 0):
        kept = stop - (start or 0)  # assumes at least `stop` devices
    else:
        kept = None
    return Devices((kept, *base.shape[1:]), is_array=base.is_array)


def attribute(base: Value, name: str) -> Value:
    """What `base.<name>` is, for a known mesh or a device array."""
    if isinstance(base, MeshValue):
        if name == "axis_names" and base.axis_names is not None:
            return base.axis_names
        if name == "axis_sizes" and base.axis_sizes is not None:
            return tuple(
                Unknown("an axis size jaxfix cannot compute") if s is None else s
                for s in base.axis_sizes
            )
        if name == "size" and base.size is not None:
            return base.size
        if name == "devices" and not base.is_abstract and base.axis_sizes is not None:
            return Devices(base.axis_sizes, is_array=True)
    if isinstance(base, Devices) and base.is_array:
        if name == "shape":
            return tuple(
                Unknown("a dimension jaxfix cannot compute") if s is None else s
                for s in base.shape
            )
        if name == "size" and base.count is not None:
            return base.count
    return Unknown(f"`.{name}` of something jaxfix does not know")


def axis_size(mesh: Value, name: Value) -> Value:
    """`mesh.shape[name]`: the size of one named axis."""
    if (
        isinstance(mesh, MeshValue)
        and isinstance(name, str)
        and mesh.axis_names is not None
        and mesh.axis_sizes is not None
    ):
        sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
        size = sizes.get(name)
        if size is not None:
            return size
    return Unknown("an axis size jaxfix cannot compute")
