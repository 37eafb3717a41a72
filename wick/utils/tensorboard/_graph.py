"""SummaryWriter.add_graph: the model's graph as wick.onnx traces it, as a TensorBoard GraphDef. torch traces
with TorchScript (node names such as Net/Linear[fc]/...); wick's nodes are the ONNX ops of its trace, each
named by its output and placed under the scope of its op type, with the inputs and parameters as nodes."""
from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.versions_pb2 import VersionDef


def _shape_attr(t):
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in t.shape])
    return {"_output_shapes": AttrValue(list=AttrValue.ListValue(shape=[shape]))}


def graph_def(model, input_to_model):
    from ... import onnx
    if input_to_model is None:
        raise ValueError("wick: SummaryWriter.add_graph needs input_to_model (the example inputs to trace)")
    g, inputs, results = onnx.trace(model, input_to_model if isinstance(input_to_model, (list, tuple))
                                    else (input_to_model,))
    nodes = [NodeDef(name=name, op="IO Node", attr=_shape_attr(t)) for name, t in inputs]
    produced = {name for name, _ in inputs}
    for op_type, ins, outs in g.records:
        produced.update(outs)
    consts = sorted({i for _, ins, _ in g.records for i in ins if i and i not in produced})
    nodes += [NodeDef(name=c, op="prim::Constant") for c in consts]       # parameters, buffers, constants
    for op_type, ins, outs in g.records:
        nodes.append(NodeDef(name=outs[0], op="onnx::" + op_type, input=[i for i in ins if i]))
    for i, t in enumerate(results):
        name = f"output.{i + 1}"
        nodes.append(NodeDef(name=name, op="IO Node", input=[g.name(t)], attr=_shape_attr(t)))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
