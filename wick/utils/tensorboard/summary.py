"""Summary protobufs for SummaryWriter: scalars, histograms, images, text, hparams (torch's summary.py formats)."""
import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto


def make_np(x):
    """A numpy array of a wick tensor (detached; bfloat16 through float16, as torch), a numpy array or a scalar."""
    from ... import Tensor, bfloat16, float16
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.dtype == bfloat16:
            x = x.to(float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name, tensor, new_style=False, double_precision=False):
    tensor = make_np(tensor).squeeze()
    if tensor.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {tensor.size} "
                             f"and {tensor.ndim} dimensions.")
    value = float(tensor)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=smd)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None):
    return Summary(value=[Summary.Value(tag=name, histo=make_histogram(make_np(values).astype(float), bins,
                                                                        max_bins))])


def make_histogram(values, bins, max_bins=None):
    """numpy's histogram, merged down to max_bins, trimmed to the buckets between the first and last non-empty
    one (keeping one empty bucket on the left), as torch's writer stores it."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        if len(counts) % group:
            counts = np.pad(counts, [[0, group - len(counts) % group]])
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    start, end = int(nonzero[0]), int(nonzero[-1]) + 1     # counts[start:end] spans every non-empty bucket
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())


def _grid(nchw, ncols=8):
    """N images [N, 3, H, W] side by side in rows of ncols: [3, H * rows, W * ncols]."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, 1)
    if nchw.ndim != 4 or nchw.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = nchw.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=nchw.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = nchw[i]
    return canvas


def convert_to_HWC(tensor, input_format):
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shorthand twice. input_format: {input_format}")
    if len(tensor.shape) != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {tensor.shape}, "
                             f"input_format: {input_format}")
    fmt = input_format.upper()
    if len(fmt) == 4:
        return _grid(tensor.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = tensor.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = tensor.transpose([fmt.find(c) for c in "HW"])
    return np.stack([hw] * 3, 2)


def image(tag, tensor, rescale=1, dataformats="NCHW"):
    """An image summary: floats are scaled by 255 (uint8 as is), clipped to [0, 255], PNG-encoded by PIL."""
    tensor = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if tensor.dtype == np.uint8 else 255
    tensor = (tensor.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(tensor, rescale=rescale))])


def make_image(tensor, rescale=1):
    from PIL import Image
    height, width, channels = tensor.shape
    img = Image.fromarray(tensor).resize((int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=out.getvalue())


def text(tag, text):
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text.encode("utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=smd, tensor=proto)])


def _hparams_summary(tag, **content):
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content).SerializeToString()
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME, content=data))
    return Summary(value=[Summary.Value(tag=tag, metadata=smd)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The three summaries of the hparams plugin: the experiment (hparam and metric names), the session's start
    (the values) and its end (success)."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo
    from ... import Tensor
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    infos, ssi = [], SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):
            ssi.hparams[k].number_value = make_np(v)[0]
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        # bool is an int in Python: it is stored as a number, as torch's checks (int, float) first
        kind = ('number' if isinstance(v, (int, float)) else 'string' if isinstance(v, str)
                else 'bool' if isinstance(v, bool) else None)
        if kind is None:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(ssi.hparams[k], kind + '_value', v)
        domain = (struct_pb2.ListValue(values=[struct_pb2.Value(**{kind + '_value': d}) for d in domains[k]])
                  if k in domains else None)
        dtype = {'number': "DATA_TYPE_FLOAT64", 'string': "DATA_TYPE_STRING", 'bool': "DATA_TYPE_BOOL"}[kind]
        infos.append(HParamInfo(name=k, type=DataType.Value(dtype), domain_discrete=domain))
    exp = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_hparams_summary(metadata.EXPERIMENT_TAG, experiment=exp),
            _hparams_summary(metadata.SESSION_START_INFO_TAG, session_start_info=ssi),
            _hparams_summary(metadata.SESSION_END_INFO_TAG,
                             session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
