"""torch.onnx: importable; exporting is not supported by wick."""


def export(*args, **kwargs):
    raise NotImplementedError('wick: torch.onnx.export is not supported (wick has no graph exporter)')


def is_in_onnx_export():
    return False
