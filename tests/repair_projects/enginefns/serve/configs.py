import functools

from serve.engines import Engine


def make_engine(devices, scale, width):
    return Engine(devices, scale=scale, width=width)


class Server:
    engine_fns = ()


class WideServer(Server):
    engine_fns = (functools.partial(make_engine, scale=2.0, width=4),)


class FullServer(Server):
    engine_fns = (functools.partial(make_engine, scale=3.0, width=8),)


def build(server, devices):
    return [make(devices) for make in server.engine_fns]
