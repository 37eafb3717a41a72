"""torch.autograd.graph: Node, the abstract type of every grad_fn (built-in nodes and custom Functions' ctx)."""
from .. import _C

__all__ = ['Node']


class _NodeMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C._FunctionBase)

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, _C._FunctionBase)


class Node(metaclass=_NodeMeta):
    __module__ = 'torch.autograd.graph'
