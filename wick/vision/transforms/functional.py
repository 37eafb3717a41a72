"""torchvision.transforms.functional: each function on a tensor image ([..., C, H, W]) or a PIL image,
dispatched as torchvision dispatches (tensor ops in _functional_tensor, PIL's own in _functional_pil)."""
import math
import numbers
import sys
import warnings
from enum import Enum

import numpy as np

import wick as torch
from . import _functional_pil as F_pil, _functional_tensor as F_t


class InterpolationMode(Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_FROM_INT = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
             4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}
pil_modes_mapping = {InterpolationMode.NEAREST: 0, InterpolationMode.BILINEAR: 2, InterpolationMode.BICUBIC: 3,
                     InterpolationMode.NEAREST_EXACT: 0, InterpolationMode.BOX: 4, InterpolationMode.HAMMING: 5,
                     InterpolationMode.LANCZOS: 1}
_is_pil_image = F_pil._is_pil_image


def _interpolation_modes_from_int(i):
    return _FROM_INT[i]


def _interpolation(interpolation):
    if isinstance(interpolation, int):
        return _FROM_INT[interpolation]
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer "
                        "constant")
    return interpolation


def _tensor_or_pil(name):
    def dispatch(img, *args, **kwargs):
        if isinstance(img, torch.Tensor):
            return getattr(F_t, name)(img, *args, **kwargs)
        return getattr(F_pil, name)(img, *args, **kwargs)
    dispatch.__name__ = name
    return dispatch


get_dimensions = _tensor_or_pil('get_dimensions')
get_image_size = _tensor_or_pil('get_image_size')
get_image_num_channels = _tensor_or_pil('get_image_num_channels')
hflip = _tensor_or_pil('hflip')
vflip = _tensor_or_pil('vflip')
adjust_brightness = _tensor_or_pil('adjust_brightness')
adjust_contrast = _tensor_or_pil('adjust_contrast')
adjust_saturation = _tensor_or_pil('adjust_saturation')
adjust_hue = _tensor_or_pil('adjust_hue')


def to_tensor(pic):
    """A PIL image or an HWC ndarray as a CHW tensor; 8-bit images become floats in [0, 1]."""
    if not (_is_pil_image(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray) and pic.ndim not in {2, 3}:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    float_dtype = torch.get_default_dtype()
    if isinstance(pic, np.ndarray):
        if pic.ndim == 2:
            pic = pic[:, :, None]
        img = torch.from_numpy(pic.transpose((2, 0, 1))).contiguous()
        return img.to(dtype=float_dtype).div(255) if img.dtype == torch.uint8 else img
    nptype = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16, "F": np.float32}
    img = torch.from_numpy(np.array(pic, nptype.get(pic.mode, np.uint8), copy=True))
    if pic.mode == "1":
        img = 255 * img
    img = img.view(pic.size[1], pic.size[0], F_pil.get_image_num_channels(pic)).permute((2, 0, 1)).contiguous()
    return img.to(dtype=float_dtype).div(255) if img.dtype == torch.uint8 else img


def pil_to_tensor(pic):
    """A PIL image as a CHW tensor of its own values (no scaling)."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    img = torch.as_tensor(np.array(pic, copy=True))
    return img.view(pic.size[1], pic.size[0], F_pil.get_image_num_channels(pic)).permute((2, 0, 1))


def convert_image_dtype(image, dtype=torch.float):
    if not isinstance(image, torch.Tensor):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, dtype)


def to_pil_image(pic, mode=None):
    """A CHW tensor or an HWC ndarray as a PIL image (floats scaled by 255 to bytes unless mode 'F')."""
    if isinstance(pic, torch.Tensor):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = pic.detach().cpu().numpy()
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = np.expand_dims(pic, 2)
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    npimg = pic
    if np.issubdtype(npimg.dtype, np.floating) and mode != "F":
        npimg = (npimg * 255).astype(np.uint8)
    channels = npimg.shape[2]
    if channels == 1:
        npimg = npimg[:, :, 0]
        expected = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16" if sys.byteorder == "little" else "I;16B",
                    np.dtype(np.int32): "I", np.dtype(np.float32): "F"}.get(npimg.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. Should be {expected}")
        mode = expected
    else:
        permitted, default = {2: (["LA"], "LA"), 4: (["RGBA", "CMYK", "RGBX"], "RGBA"),
                              3: (["RGB", "YCbCr", "HSV"], "RGB")}[channels]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {channels}D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = default
    if mode is None:
        raise TypeError(f"Input type {npimg.dtype} is not supported")
    return F_pil.fromarray(npimg, mode)


def normalize(tensor, mean, std, inplace=False):
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    return F_t.normalize(tensor, mean=mean, std=std, inplace=inplace)


def _compute_resized_output_size(image_size, size, max_size=None):
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if len(size) == 1:      # the shorter edge to size, the aspect ratio kept
        new_short = size if isinstance(size, int) else size[0]
        new_short, new_long = new_short, int(new_short * long / short)
        if max_size is not None:
            if max_size <= size[0]:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                                 f"smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    else:
        new_w, new_h = size[1], size[0]
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    interpolation = _interpolation(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in [1, 2]:
            raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element "
                             "tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, i.e. "
                             "size should be an int or a sequence of length 1 in torchscript mode.")
    _, h, w = get_dimensions(img)
    if isinstance(size, int):
        size = [size]
    out = _compute_resized_output_size((h, w), size, max_size)
    if [h, w] == out:
        return img
    if not isinstance(img, torch.Tensor):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        return F_pil.resize(img, size=out, interpolation=pil_modes_mapping[interpolation])
    return F_t.resize(img, size=out, interpolation=interpolation.value, antialias=antialias)


def pad(img, padding, fill=0, padding_mode="constant"):
    if not isinstance(img, torch.Tensor):
        return F_pil.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)
    return F_t.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)


def crop(img, top, left, height, width):
    if not isinstance(img, torch.Tensor):
        return F_pil.crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    _, h, w = get_dimensions(img)
    ch, cw = output_size
    if cw > w or ch > h:       # pad to the crop first, extra pixel on the right / bottom
        padding_ltrb = [(cw - w) // 2 if cw > w else 0, (ch - h) // 2 if ch > h else 0,
                        (cw - w + 1) // 2 if cw > w else 0, (ch - h + 1) // 2 if ch > h else 0]
        img = pad(img, padding_ltrb, fill=0)
        _, h, w = get_dimensions(img)
        if cw == w and ch == h:
            return img
    return crop(img, int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """The 2 x 3 matrix of rotation about center, translation, scale and shear (its inverse by default)."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        m = [x / scale for x in [d, -b, 0.0, -c, a, 0.0]]
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
        m[2] += cx
        m[5] += cy
    else:
        m = [x * scale for x in [a, b, 0.0, c, d, 0.0]]
        m[2] += m[0] * -cx + m[1] * -cy
        m[5] += m[3] * -cx + m[4] * -cy
        m[2] += cx + tx
        m[5] += cy + ty
    return m


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, torch.Tensor):
        return F_pil.rotate(img, angle=angle, interpolation=pil_modes_mapping[interpolation], expand=expand,
                            center=center, fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:
        _, h, w = get_dimensions(img)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [w, h])]     # relative to the image's centre
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.rotate(img, matrix=matrix, interpolation=interpolation.value, expand=expand, fill=fill)


def to_grayscale(img, num_output_channels=1):
    if _is_pil_image(img):
        return F_pil.to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def rgb_to_grayscale(img, num_output_channels=1):
    if not isinstance(img, torch.Tensor):
        return F_pil.to_grayscale(img, num_output_channels)
    return F_t.rgb_to_grayscale(img, num_output_channels)


def erase(img, i, j, h, w, v, inplace=False):
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace=inplace)


def gaussian_blur(img, kernel_size, sigma=None):
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if isinstance(sigma, (list, tuple)) and len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    if isinstance(img, torch.Tensor):
        return F_t.gaussian_blur(img, kernel_size, sigma)
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
    return to_pil_image(F_t.gaussian_blur(pil_to_tensor(img), kernel_size, sigma), mode=img.mode)


def five_crop(img, size):
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    _, h, w = get_dimensions(img)
    ch, cw = size
    if cw > w or ch > h:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(h, w)}")
    return (crop(img, 0, 0, ch, cw), crop(img, 0, w - cw, ch, cw), crop(img, h - ch, 0, ch, cw),
            crop(img, h - ch, w - cw, ch, cw), center_crop(img, [ch, cw]))


def ten_crop(img, size, vertical_flip=False):
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return five_crop(img, size) + five_crop(vflip(img) if vertical_flip else hflip(img), size)
