"""The spelling table (jaxfix/analysis/names.py) asked about LibCST nodes: the old engine's side.

`ApiResolver.api(node)` maps an expression to an `Api` through LibCST's qualified names,
`signature_of(def)` is the signature of a function in the code, and `bind(call, signature)`
binds a `cst.Call`'s arguments. Apart from names.py so that the engine over `ast` imports no
LibCST; this module goes with the old engine.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import libcst as cst
from libcst.metadata import QualifiedName, Scope

from jaxfix.analysis.names import API_LAST_NAMES, Api, Signature, api_of_name


def signature_of(function: cst.FunctionDef) -> Signature | None:
    """The signature of a function defined in the code; None when it takes `*args`/`**kwargs`
    (jaxfix then cannot tell which argument binds which parameter)."""
    params = function.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        return None
    positional = tuple(p.name.value for p in (*params.posonly_params, *params.params))
    return Signature(
        positional,
        tuple(p.name.value for p in params.kwonly_params),
        len(params.posonly_params),
    )


def bind(call: cst.Call, signature: Signature) -> dict[str, cst.BaseExpression] | None:
    """Map a call's arguments to parameter names; None if it uses `*`/`**`, passes too many
    positional arguments, an unknown keyword, or one parameter twice."""
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(signature.positional):
                return None
            name = signature.positional[index]
        else:
            name = arg.keyword.value
            if name in signature.positional[: signature.positional_only]:
                return None
            if name not in signature.positional and name not in signature.keyword_only:
                return None
        if name in bound:
            return None
        bound[name] = arg.value
    return bound


def api_of_qualified_names(names: Collection[QualifiedName]) -> Api | None:
    """The API a set of qualified names denotes, or None."""
    for qualified in names:
        api = api_of_name(qualified.name)
        if api is not None:
            return api
    return None


class ApiResolver:
    """Answers "which API is this expression?" from the qualified names its scope gives.

    The same names as LibCST's QualifiedNameProvider (which asks the node's scope in the same
    way), but computed only for the nodes a rule asks about, not a traversal of the module.
    """

    def __init__(self, scopes: Mapping[cst.CSTNode, Scope | None]) -> None:
        self._scopes = scopes
        self._known: dict[cst.CSTNode, frozenset[QualifiedName]] = {}

    def qualified_names(self, node: cst.CSTNode) -> frozenset[QualifiedName]:
        names = self._known.get(node)
        if names is None:
            scope = self._scopes.get(node)
            names = self._known[node] = (
                frozenset()
                if scope is None
                else frozenset(scope.get_qualified_names_for(node))
            )
        return names

    def api(self, node: cst.CSTNode | None) -> Api | None:
        if node is None or (
            isinstance(node, cst.Attribute) and node.attr.value not in API_LAST_NAMES
        ):
            return None
        return api_of_qualified_names(self.qualified_names(node))

    def called_api(self, node: cst.CSTNode | None) -> Api | None:
        """For a Call node, the API of its callee; None for anything else."""
        return self.api(node.func) if isinstance(node, cst.Call) else None
