"""A config read and written by attribute (the ml_collections ConfigDict idiom)."""


class Attrs(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(name) from error

    def __setattr__(self, name, value):
        self[name] = value
