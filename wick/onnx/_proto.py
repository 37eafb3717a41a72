"""The ONNX protobuf messages wick writes (onnx.proto, IR 8-10), encoded by hand: a model is a few nested
messages of varints and length-delimited fields, so exporting needs no onnx or protobuf package.

Each function returns the encoded bytes of one message; field numbers are onnx.proto's."""
import struct

# TensorProto.DataType
FLOAT, UINT8, INT8, INT16, INT32, INT64, BOOL, FLOAT16, DOUBLE, BFLOAT16 = 1, 2, 3, 5, 6, 7, 9, 10, 11, 16
# AttributeProto.AttributeType
_A_FLOAT, _A_INT, _A_STRING, _A_TENSOR, _A_GRAPH, _A_FLOATS, _A_INTS, _A_STRINGS = 1, 2, 3, 4, 5, 6, 7, 8


def _varint(n):
    n &= (1 << 64) - 1          # negative int64s are ten-byte two's complement, as protobuf's
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _int(field, n):
    return _key(field, 0) + _varint(int(n))


def _bytes(field, b):
    if isinstance(b, str):
        b = b.encode('utf-8')
    return _key(field, 2) + _varint(len(b)) + b


def _float(field, x):
    return _key(field, 5) + struct.pack('<f', x)


def tensor(name, dims, data_type, raw):
    """TensorProto: dims (1), data_type (2), name (8), raw_data (9, little-endian)."""
    return b''.join(_int(1, d) for d in dims) + _int(2, data_type) + _bytes(8, name) + _bytes(9, raw)


def attribute(name, value):
    """AttributeProto from a Python value: int, float, str/bytes, a list of ints or floats, or an encoded
    TensorProto (wrapped as ('tensor', bytes))."""
    head = _bytes(1, name)
    if isinstance(value, tuple) and value and value[0] == 'tensor':
        return head + _bytes(5, value[1]) + _int(20, _A_TENSOR)
    if isinstance(value, bool) or isinstance(value, int):
        return head + _int(3, int(value)) + _int(20, _A_INT)
    if isinstance(value, float):
        return head + _float(2, value) + _int(20, _A_FLOAT)
    if isinstance(value, (str, bytes)):
        return head + _bytes(4, value) + _int(20, _A_STRING)
    value = list(value)
    if value and all(isinstance(v, (str, bytes)) for v in value):
        return head + b''.join(_bytes(9, v) for v in value) + _int(20, _A_STRINGS)
    if all(isinstance(v, int) for v in value):
        return head + b''.join(_int(8, v) for v in value) + _int(20, _A_INTS)
    return head + b''.join(_float(7, float(v)) for v in value) + _int(20, _A_FLOATS)


def node(op_type, inputs, outputs, name, attrs):
    """NodeProto: input (1), output (2), name (3), op_type (4), attribute (5)."""
    return (b''.join(_bytes(1, i) for i in inputs) + b''.join(_bytes(2, o) for o in outputs) + _bytes(3, name)
            + _bytes(4, op_type) + b''.join(_bytes(5, attribute(k, v)) for k, v in attrs.items()))


def value_info(name, elem_type, shape):
    """ValueInfoProto with a tensor type: each dim an int (dim_value), a str (dim_param) or None (unknown)."""
    dims = b''.join(_bytes(1, b'' if d is None else _int(1, d) if isinstance(d, int) else _bytes(2, d))
                    for d in shape)
    tensor_type = _int(1, elem_type) + _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def graph(name, nodes, initializers, inputs, outputs):
    """GraphProto: node (1), name (2), initializer (5), input (11), output (12)."""
    return (b''.join(_bytes(1, n) for n in nodes) + _bytes(2, name) + b''.join(_bytes(5, t) for t in initializers)
            + b''.join(_bytes(11, v) for v in inputs) + b''.join(_bytes(12, v) for v in outputs))


def model(graph_bytes, opset, ir_version, producer_version):
    """ModelProto: ir_version (1), producer_name (2), producer_version (3), graph (7), opset_import (8)."""
    return (_int(1, ir_version) + _bytes(2, 'wick') + _bytes(3, producer_version) + _bytes(7, graph_bytes)
            + _bytes(8, _bytes(1, '') + _int(2, opset)))
