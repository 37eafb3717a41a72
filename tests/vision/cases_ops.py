"""torchvision.ops: boxes, nms, batched_nms, roi_align, roi_pool."""
from .harness import case

BOXES = [[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [20.0, 20.0, 30.5, 28.0], [0.5, 0.0, 9.5, 10.5],
         [21.0, 19.0, 30.0, 29.0], [5.0, 5.0, 6.0, 6.0], [2.5, 3.0, 12.0, 9.0]]
SCORES = [0.9, 0.75, 0.8, 0.85, 0.6, 0.95, 0.75]      # a tie (0.75) between 1 and 6
IDXS = [0, 0, 1, 1, 1, 0, 2]


@case()
def box_iou(T, V):
    b = T.tensor(BOXES)
    return V.ops.box_iou(b, b[:4]), V.ops.box_area(b), V.ops.generalized_box_iou(b[:3], b[2:])


@case()
def box_iou_int_and_half(T, V):
    return (V.ops.box_iou(T.tensor(BOXES).int(), T.tensor(BOXES[:2]).int()),
            V.ops.box_area(T.tensor(BOXES, dtype=T.float16)))


@case()
def box_convert(T, V):
    b = T.tensor(BOXES, dtype=T.float64)
    out = {}
    for a in ('xyxy', 'xywh', 'cxcywh'):
        for c in ('xyxy', 'xywh', 'cxcywh'):
            out[a + '->' + c] = V.ops.box_convert(b, a, c)
    return out


@case()
def box_convert_bad(T, V):
    return V.ops.box_convert(T.tensor(BOXES), 'xyxy', 'yxyx')


@case()
def clip_and_small(T, V):
    b = T.tensor(BOXES) - 2
    return V.ops.clip_boxes_to_image(b, (15, 25)), V.ops.remove_small_boxes(T.tensor(BOXES), 9.5)


@case()
def nms(T, V):
    b, s = T.tensor(BOXES), T.tensor(SCORES)
    return [V.ops.nms(b, s, t) for t in (0.0, 0.3, 0.5, 0.7, 1.0)] + [V.ops.nms(b.double(), s.double(), 0.5)]


@case()
def nms_empty_and_bad(T, V):
    out = [V.ops.nms(T.zeros(0, 4), T.zeros(0), 0.5)]
    for b, s in ((T.zeros(3, 3), T.zeros(3)), (T.zeros(3, 4), T.zeros(2)), (T.zeros(3, 4), T.zeros(3, 1))):
        try:
            V.ops.nms(b, s, 0.5)
        except RuntimeError as e:
            out.append(type(e).__name__)
    return out


@case()
def nms_random(T, V):
    xy = T.rand(60, 2) * 50
    wh = T.rand(60, 2) * 20 + 1
    b = T.cat([xy, xy + wh], dim=1)
    s = T.rand(60)
    return V.ops.nms(b, s, 0.4), V.ops.batched_nms(b, s, (T.rand(60) * 3).long(), 0.4)


@case()
def batched_nms(T, V):
    b, s, i = T.tensor(BOXES), T.tensor(SCORES), T.tensor(IDXS)
    return [V.ops.batched_nms(b, s, i, t) for t in (0.1, 0.5)] + [V.ops.batched_nms(T.zeros(0, 4), T.zeros(0),
                                                                                     T.zeros(0).long(), 0.5)]


FEAT = [[[[(r * 7 + c * 3 + ch * 5) % 11 / 3.0 - 1.0 for c in range(9)] for r in range(7)] for ch in range(2)]
        for _ in range(2)]
ROIS = [[0, 0.0, 0.0, 4.0, 4.0], [1, 1.5, 0.5, 7.25, 6.0], [0, 3.0, 2.0, 3.5, 2.5], [1, -2.0, -1.0, 10.0, 8.0],
        [0, 6.0, 1.0, 8.9, 6.9]]


@case()
def roi_align(T, V):
    x, r = T.tensor(FEAT), T.tensor(ROIS)
    return (V.ops.roi_align(x, r, (3, 2)), V.ops.roi_align(x, r, 2, spatial_scale=0.5, sampling_ratio=2),
            V.ops.roi_align(x, r, (2, 3), aligned=True), V.ops.roi_align(x.double(), r.double(), 2, 0.75, 3, True))


@case()
def roi_align_box_list(T, V):
    x = T.tensor(FEAT)
    boxes = [T.tensor([r[1:] for r in ROIS if r[0] == 0]), T.tensor([r[1:] for r in ROIS if r[0] == 1])]
    return V.ops.roi_align(x, boxes, 2, sampling_ratio=1), V.ops.RoIAlign(2, 1.0, 1)(x, boxes)


@case()
def roi_pool(T, V):
    x, r = T.tensor(FEAT), T.tensor(ROIS)
    return V.ops.roi_pool(x, r, (3, 2)), V.ops.roi_pool(x, r, 2, spatial_scale=0.5), V.ops.RoIPool(3, 0.7)(x, r)


@case()
def roi_module_repr(T, V):
    return repr(V.ops.RoIAlign((2, 3), 0.5, 2)), repr(V.ops.RoIPool(3, 0.25))
