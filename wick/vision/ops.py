"""torchvision.ops: box utilities (box_area, box_iou, box_convert, clip_boxes_to_image, remove_small_boxes),
nms / batched_nms and roi_align / roi_pool, computed as torchvision's CPU kernels compute them.

nms, roi_align and roi_pool run on numpy in the boxes' / input's own dtype (torchvision's kernels are plain
scalar loops in that type); they have no autograd here, so an input that requires grad is refused."""
import math

import numpy as np

from wick import nn


def _torch():
    import wick
    return wick


def _upcast(t):
    """torchvision's _upcast: float16 / bfloat16 to float32, small ints to int32 (no overflow in products)."""
    T = _torch()
    if t.is_floating_point():
        return t if t.dtype in (T.float32, T.float64) else t.float()
    return t if t.dtype in (T.int32, T.int64) else t.int()


def box_area(boxes):
    boxes = _upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _box_inter_union(boxes1, boxes2):
    T = _torch()
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = T.max(boxes1[:, None, :2], boxes2[:, :2])   # [N, M, 2]
    rb = T.min(boxes1[:, None, 2:], boxes2[:, 2:])   # [N, M, 2]
    wh = _upcast(rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]                 # [N, M]
    return inter, area1[:, None] + area2 - inter


def box_iou(boxes1, boxes2):
    """IoU of every pair: [N, 4] x [M, 4] boxes (x1, y1, x2, y2) -> [N, M]."""
    inter, union = _box_inter_union(boxes1, boxes2)
    return inter / union


def generalized_box_iou(boxes1, boxes2):
    T = _torch()
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union
    lti = T.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = T.max(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = _upcast(rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def box_convert(boxes, in_fmt, out_fmt):
    """Between 'xyxy', 'xywh' and 'cxcywh' (through xyxy, as torchvision)."""
    T = _torch()
    allowed = ("xyxy", "xywh", "cxcywh", "xywhr", "cxcywhr", "xyxyxyxy")
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}")
    if in_fmt in allowed[3:] or out_fmt in allowed[3:]:
        if in_fmt == out_fmt:
            return boxes.clone()
        raise NotImplementedError("wick.vision.ops.box_convert: rotated box formats (xywhr, cxcywhr, xyxyxyxy) are "
                                  "not supported yet")
    if in_fmt == out_fmt:
        return boxes.clone()
    if in_fmt != "xyxy" and out_fmt != "xyxy":
        boxes = box_convert(boxes, in_fmt, "xyxy")
        in_fmt = "xyxy"
    a, b, c, d = boxes.unbind(-1)
    if in_fmt == "xywh":        # -> xyxy
        return T.stack((a, b, a + c, b + d), dim=-1)
    if in_fmt == "cxcywh":
        return T.stack((a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d), dim=-1)
    if out_fmt == "xywh":       # xyxy ->
        return T.stack((a, b, c - a, d - b), dim=-1)
    return T.stack(((a + c) / 2, (b + d) / 2, c - a, d - b), dim=-1)


def clip_boxes_to_image(boxes, size):
    T = _torch()
    dim = boxes.dim()
    x, y = boxes[..., 0::2], boxes[..., 1::2]
    height, width = size
    x = x.clamp(min=0, max=width)
    y = y.clamp(min=0, max=height)
    return T.stack((x, y), dim=dim).reshape(boxes.shape)


def remove_small_boxes(boxes, min_size):
    T = _torch()
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    return T.where(keep)[0]


def _np(t):
    return t.detach().contiguous().numpy()


def _check_nms(boxes, scores):
    if boxes.dim() != 2 or boxes.shape[-1] != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {boxes.shape[-1] if boxes.dim() else 0}"
                           if boxes.dim() == 2 else f"boxes should be a 2d tensor, got {boxes.dim()}D")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if boxes.shape[0] != scores.shape[0]:
        raise RuntimeError(f"boxes and scores should have same number of elements in dimension 0, got "
                           f"{boxes.shape[0]} and {scores.shape[0]}")


def nms(boxes, scores, iou_threshold):
    """Indices (int64) of the boxes kept by greedy non-maximum suppression, by decreasing score: a box is
    dropped when its IoU with a kept, higher-scoring box is above iou_threshold."""
    T = _torch()
    _check_nms(boxes, scores)
    if boxes.numel() == 0:
        return T.empty(0, dtype=T.int64)
    b, s = _np(boxes), _np(scores)
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-s, kind='stable')      # torchvision: a stable descending sort of the scores
    suppressed = np.zeros(len(s), bool)
    keep = []
    thr = b.dtype.type(iou_threshold)
    for k, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[k + 1:]
        rest = rest[~suppressed[rest]]
        w = np.maximum(b.dtype.type(0), np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]))
        h = np.maximum(b.dtype.type(0), np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]))
        inter = w * h
        ovr = inter / (areas[i] + areas[rest] - inter)
        suppressed[rest[ovr > thr]] = True
    return T.tensor(np.array(keep, dtype=np.int64))


def batched_nms(boxes, scores, idxs, iou_threshold):
    """nms within each category of idxs: torchvision's coordinate trick (each category's boxes moved apart by
    (max coordinate + 1) * idx) up to 4000 boxes' coordinates on the CPU, one nms per category beyond."""
    T = _torch()
    if boxes.numel() > 4000:
        keep_mask = T.zeros_like(scores, dtype=T.bool)
        for class_id in T.unique(idxs).tolist():
            curr = T.where(idxs == class_id)[0]
            keep_mask[curr[nms(boxes[curr], scores[curr], iou_threshold)]] = True
        keep = T.where(keep_mask)[0]
        return keep[scores[keep].sort(descending=True)[1]]
    if boxes.numel() == 0:
        return T.empty((0,), dtype=T.int64)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + T.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, iou_threshold)


def _rois(boxes, input):
    """[K, 5] rois (batch index, x1, y1, x2, y2) from a tensor or a list of per-image [L, 4] boxes."""
    T = _torch()
    if isinstance(boxes, (list, tuple)):
        for b in boxes:
            if b.size(1) != 4:
                raise AssertionError("The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]")
        idx = T.cat([T.full((b.shape[0], 1), float(i), dtype=b.dtype) for i, b in enumerate(boxes)], dim=0)
        return T.cat([idx, T.cat(list(boxes), dim=0)], dim=1)
    if boxes.dim() != 2 or boxes.size(1) != 5:
        raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
    return boxes


def _no_grad_check(name, input):
    T = _torch()
    if T.is_grad_enabled() and input.requires_grad:
        raise NotImplementedError(f"wick.vision.ops.{name}: gradients are not supported yet (call it under "
                                  "torch.no_grad() or on a tensor that does not require grad)")


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _bilinear(img, y, x, height, width):
    """torchvision's roi_align bilinear sample of img [C, H, W] at (y, x); 0 outside [-1, H] x [-1, W]."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return np.zeros(img.shape[0], img.dtype)
    y, x = max(y, 0), max(x, 0)
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_high = y_low = height - 1
        y = img.dtype.type(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_high = x_low = width - 1
        x = img.dtype.type(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - y_low, x - x_low
    hy, hx = 1 - ly, 1 - lx
    return (hy * hx * img[:, y_low, x_low] + hy * lx * img[:, y_low, x_high] + ly * hx * img[:, y_high, x_low]
            + ly * lx * img[:, y_high, x_high])


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """Average of bilinear samples over each bin of each roi: [K, C, out_h, out_w]."""
    T = _torch()
    _no_grad_check('roi_align', input)
    rois = _rois(boxes, input)
    ph, pw = _pair(output_size)
    x = _np(input)
    r = _np(rois).astype(x.dtype)
    dt = x.dtype.type
    _, C, H, W = x.shape
    out = np.zeros((r.shape[0], C, ph, pw), x.dtype)
    offset = dt(0.5) if aligned else dt(0)
    scale = dt(spatial_scale)
    for k, roi in enumerate(r):
        img = x[int(roi[0])]
        start_w, start_h = roi[1] * scale - offset, roi[2] * scale - offset
        end_w, end_h = roi[3] * scale - offset, roi[4] * scale - offset
        roi_w, roi_h = end_w - start_w, end_h - start_h
        if not aligned:
            roi_w, roi_h = max(roi_w, dt(1)), max(roi_h, dt(1))
        bin_h, bin_w = dt(roi_h / dt(ph)), dt(roi_w / dt(pw))
        grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_h / ph))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_w / pw))
        count = max(grid_h * grid_w, 1)
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(C, x.dtype)
                for iy in range(grid_h):
                    yy = start_h + dt(i) * bin_h + (dt(iy) + dt(0.5)) * bin_h / dt(grid_h)
                    for ix in range(grid_w):
                        xx = start_w + dt(j) * bin_w + (dt(ix) + dt(0.5)) * bin_w / dt(grid_w)
                        acc += _bilinear(img, dt(yy), dt(xx), H, W)
                out[k, :, i, j] = acc / dt(count)
    return T.tensor(out)


def _round_half_away(v):
    """C's round(): halves away from zero (numpy's round goes to even)."""
    return int(math.copysign(math.floor(abs(float(v)) + 0.5), float(v)))


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Max over each bin of each roi (rounded to the input's grid): [K, C, out_h, out_w]."""
    T = _torch()
    _no_grad_check('roi_pool', input)
    rois = _rois(boxes, input)
    ph, pw = _pair(output_size)
    x = _np(input)
    r = _np(rois).astype(x.dtype)
    _, C, H, W = x.shape
    out = np.zeros((r.shape[0], C, ph, pw), x.dtype)
    for k, roi in enumerate(r):
        img = x[int(roi[0])]
        sw, sh, ew, eh = (_round_half_away(v * x.dtype.type(spatial_scale)) for v in roi[1:5])
        roi_w, roi_h = max(ew - sw + 1, 1), max(eh - sh + 1, 1)
        bin_h, bin_w = x.dtype.type(roi_h) / x.dtype.type(ph), x.dtype.type(roi_w) / x.dtype.type(pw)
        for i in range(ph):
            hs = min(max(int(np.floor(x.dtype.type(i) * bin_h)) + sh, 0), H)
            he = min(max(int(np.ceil(x.dtype.type(i + 1) * bin_h)) + sh, 0), H)
            for j in range(pw):
                ws = min(max(int(np.floor(x.dtype.type(j) * bin_w)) + sw, 0), W)
                we = min(max(int(np.ceil(x.dtype.type(j + 1) * bin_w)) + sw, 0), W)
                if he <= hs or we <= ws:
                    continue       # an empty bin is 0
                out[k, :, i, j] = img[:, hs:he, ws:we].reshape(C, -1).max(axis=1)
    return T.tensor(out)


class RoIAlign(nn.Module):
    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})")


class RoIPool(nn.Module):
    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"


from .models._layers import Conv2dNormActivation, SqueezeExcitation  # noqa: E402,F401  (torchvision.ops.misc)
