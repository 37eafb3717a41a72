"""The PIL half of transforms.functional: PIL's own operations, as torchvision calls them."""
import numbers

import numpy as np


def _pil():
    from PIL import Image
    return Image


def _is_pil_image(img):
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def _check(img):
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def fromarray(arr, mode):
    """Image.fromarray(arr, mode) as PIL before 11.3 read it (the bytes reinterpreted in `mode`), which
    torchvision relies on: Image.frombuffer with the raw decoder."""
    Image = _pil()
    arr = np.ascontiguousarray(arr)
    size = (arr.shape[1], arr.shape[0])
    return Image.frombuffer(mode, size, arr.tobytes(), "raw", mode, 0, 1)


def get_dimensions(img):
    if _is_pil_image(img):
        width, height = img.size
        return [len(img.getbands()), height, width]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_size(img):
    if _is_pil_image(img):
        return list(img.size)
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_num_channels(img):
    if _is_pil_image(img):
        return len(img.getbands())
    raise TypeError(f"Unexpected type {type(img)}")


def hflip(img):
    _check(img)
    return img.transpose(_pil().FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(_pil().FLIP_TOP_BOTTOM)


def _enhance(name, img, factor):
    from PIL import ImageEnhance
    _check(img)
    return getattr(ImageEnhance, name)(img).enhance(factor)


def adjust_brightness(img, factor):
    return _enhance('Brightness', img, factor)


def adjust_contrast(img, factor):
    return _enhance('Contrast', img, factor)


def adjust_saturation(img, factor):
    return _enhance('Color', img, factor)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check(img)
    Image = _pil()
    if img.mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = np.array(h, dtype=np.uint8)
    np_h += np.int32(hue_factor * 255).astype(np.uint8)     # uint8 arithmetic wraps: the hue turns around
    return Image.merge("HSV", (fromarray(np_h, "L"), s, v)).convert(img.mode)


def _parse_fill(fill, img, name="fillcolor"):
    channels = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and channels > 1:
        fill = tuple([fill] * channels)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * channels
        elif len(fill) != channels:
            raise ValueError("The number of elements in 'fill' does not match the number of channels of the image "
                             f"({len(fill)} != {channels})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, (list, tuple)) else int(fill)
    return {name: fill}


def pad(img, padding, fill=0, padding_mode="constant"):
    from PIL import ImageOps
    _check(img)
    Image = _pil()
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, list):
        padding = tuple(padding)
    if isinstance(padding, tuple) and len(padding) not in [1, 2, 4]:
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if isinstance(padding, tuple) and len(padding) == 1:
        padding = padding[0]
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if padding_mode == "constant":
        opts = _parse_fill(fill, img, name="fill")
        if img.mode == "P":
            palette = img.getpalette()
            out = ImageOps.expand(img, border=padding, **opts)
            out.putpalette(palette)
            return out
        return ImageOps.expand(img, border=padding, **opts)
    if isinstance(padding, int):
        p = [padding] * 4
    elif len(padding) == 2:
        p = [padding[0], padding[1], padding[0], padding[1]]
    else:
        p = list(padding)
    left, top, right, bottom = p                                 # negative padding crops
    crop = -np.minimum(p, 0)
    if crop.any():
        img = img.crop((crop[0], crop[1], img.width - crop[2], img.height - crop[3]))
    left, top, right, bottom = np.maximum(p, 0)
    palette = img.getpalette() if img.mode == "P" else None
    arr = np.asarray(img)
    widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
    out = Image.fromarray(np.pad(arr, widths, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation):
    _check(img)
    if not (isinstance(size, list) and len(size) == 2):
        raise TypeError(f"Got inappropriate size arg: {size}")
    return img.resize(tuple(size[::-1]), interpolation)


def rotate(img, angle, interpolation=0, expand=False, center=None, fill=None):
    _check(img)
    return img.rotate(angle, interpolation, expand, center, **_parse_fill(fill, img))


def to_grayscale(img, num_output_channels):
    _check(img)
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        g = np.array(img.convert("L"), dtype=np.uint8)
        return fromarray(np.dstack([g, g, g]), "RGB")
    raise ValueError("num_output_channels should be either 1 or 3")
