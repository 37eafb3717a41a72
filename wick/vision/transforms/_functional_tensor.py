"""The tensor half of transforms.functional: images are [..., C, H, W] tensors, computed with wick's ops in
the order torchvision's tensor functions use (so the floats round as theirs)."""
import math
import warnings

import numpy as np

import wick as torch
from wick.nn.functional import conv2d, grid_sample, interpolate, pad as torch_pad


def _assert_image_tensor(img):
    if img.ndim < 2:
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img):
    _assert_image_tensor(img)
    return [1 if img.ndim == 2 else img.shape[-3], img.shape[-2], img.shape[-1]]


def get_image_size(img):
    _assert_image_tensor(img)
    return [img.shape[-1], img.shape[-2]]


def get_image_num_channels(img):
    _assert_image_tensor(img)
    return 1 if img.ndim == 2 else img.shape[-3]


_MAX = {'torch.uint8': 255, 'torch.int8': 127, 'torch.int16': 32767, 'torch.uint16': 65535,
        'torch.int32': 2147483647, 'torch.int64': 9223372036854775807}


def _max_value(dtype):
    return _MAX.get(str(dtype), 1)


def _assert_channels(img, permitted):
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but found {c}")


def convert_image_dtype(image, dtype=torch.float):
    """Between integer images (0..max of the type) and float images (0..1)."""
    if image.dtype == dtype:
        return image
    to_float = torch.tensor(0, dtype=dtype).is_floating_point()
    if image.is_floating_point():
        if to_float:
            return image.to(dtype)
        if (image.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or \
                (image.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        return image.mul(float(_max_value(dtype)) + 1.0 - 0.001).to(dtype)
    in_max = float(_max_value(image.dtype))
    if to_float:
        return image.to(dtype) / in_max
    out_max = float(_max_value(dtype))
    if in_max > out_max:
        return torch.div(image, int((in_max + 1) // (out_max + 1)), rounding_mode="floor").to(dtype)
    return image.to(dtype) * int((out_max + 1) // (in_max + 1))


def vflip(img):
    _assert_image_tensor(img)
    return img.flip(-2)


def hflip(img):
    _assert_image_tensor(img)
    return img.flip(-1)


def crop(img, top, left, height, width):
    """img[..., top:top + height, left:left + width], zero-padded where the box leaves the image."""
    _assert_image_tensor(img)
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding_ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0), max(right - max(w, left), 0),
                        max(bottom - max(h, top), 0)]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], padding_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def rgb_to_grayscale(img, num_output_channels=1):
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)   # ITU-R 601-2 luma
    else:
        gray = img.clone()
    return gray.expand(img.shape) if num_output_channels == 3 else gray


def _blend(img1, img2, ratio):
    ratio = float(ratio)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, _max_value(img1.dtype)).to(img1.dtype)


def adjust_brightness(img, brightness_factor):
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    return _blend(img, torch.zeros_like(img), brightness_factor)


def adjust_contrast(img, contrast_factor):
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [3, 1])
    dtype = img.dtype if torch.is_floating_point(img) else torch.float32
    gray = rgb_to_grayscale(img) if get_dimensions(img)[0] == 3 else img
    mean = torch.mean(gray.to(dtype), dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor):
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def _rgb2hsv(img):
    r, g, b = img.unbind(dim=-3)
    maxc = torch.max(img, dim=-3).values
    minc = torch.min(img, dim=-3).values
    eqc = maxc == minc                      # grey pixels: hue and saturation 0, no division by zero
    cr = maxc - minc
    ones = torch.ones_like(maxc)
    s = cr / torch.where(eqc, ones, maxc)
    cr_divisor = torch.where(eqc, ones, cr)
    rc, gc, bc = (maxc - r) / cr_divisor, (maxc - g) / cr_divisor, (maxc - b) / cr_divisor
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = torch.fmod((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return torch.stack((h, s, maxc), dim=-3)


def _hsv2rgb(img):
    h, s, v = img.unbind(dim=-3)
    i = torch.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.to(dtype=torch.int32)
    p = torch.clamp(v * (1.0 - s), 0.0, 1.0)
    q = torch.clamp(v * (1.0 - s * f), 0.0, 1.0)
    t = torch.clamp(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    i = i % 6
    sector = i.unsqueeze(dim=-3) == torch.arange(6).view(-1, 1, 1)       # [..., 6, H, W] one-hot
    table = torch.stack((torch.stack((v, q, p, p, t, v), dim=-3), torch.stack((t, v, v, q, p, p), dim=-3),
                         torch.stack((p, p, t, v, v, q), dim=-3)), dim=-4)  # [..., 3, 6, H, W]
    return torch.einsum("...ijk, ...xijk -> ...xjk", sector.to(dtype=img.dtype), table)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor image")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    orig = img.dtype
    h, s, v = _rgb2hsv(convert_image_dtype(img, torch.float32)).unbind(dim=-3)
    h = (h + hue_factor) % 1.0
    return convert_image_dtype(_hsv2rgb(torch.stack((h, s, v), dim=-3)), orig)


def _parse_pad_padding(padding):
    """[left, right, top, bottom] from an int or a 1-, 2- (lr, tb) or 4- (l, t, r, b) list."""
    if isinstance(padding, int):
        return [padding] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return [padding[0], padding[2], padding[1], padding[3]]


def _pad_symmetric(img, padding):
    if min(padding) < 0:          # negative padding crops first
        cl, cr, ct, cb = [-min(x, 0) for x in padding]
        img = img[..., ct:img.shape[-2] - cb, cl:img.shape[-1] - cr]
        padding = [max(x, 0) for x in padding]
    left, right, top, bottom = padding

    def indices(n, before, after):
        return torch.tensor(list(range(before - 1, -1, -1)) + list(range(n)) + [-(i + 1) for i in range(after)])
    x = indices(img.shape[-1], left, right)
    y = indices(img.shape[-2], top, bottom)
    if img.ndim == 3:
        return img[:, y[:, None], x[None, :]]
    if img.ndim == 4:
        return img[:, :, y[:, None], x[None, :]]
    raise RuntimeError("Symmetric padding of N-D tensors are not supported yet")


def pad(img, padding, fill=0, padding_mode="constant"):
    _assert_image_tensor(img)
    if fill is None:
        fill = 0
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in [1, 2, 4]:
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    p = _parse_pad_padding(list(padding) if isinstance(padding, tuple) else padding)
    if padding_mode == "symmetric":
        return _pad_symmetric(img, p)
    mode = "replicate" if padding_mode == "edge" else padding_mode
    squeeze = img.ndim < 4
    x = img.unsqueeze(dim=0) if squeeze else img
    out_dtype = x.dtype
    cast = mode != "constant" and x.dtype not in (torch.float32, torch.float64)
    if cast:
        x = x.to(torch.float32)
    x = torch_pad(x, p, mode=mode) if mode in ("reflect", "replicate") else torch_pad(x, p, mode=mode,
                                                                                      value=float(fill))
    if squeeze:
        x = x.squeeze(dim=0)
    return x.to(out_dtype) if cast else x


def _cast_squeeze_in(img, req_dtypes):
    squeeze = img.ndim < 4
    if squeeze:
        img = img.unsqueeze(dim=0)
    out_dtype = img.dtype
    cast = out_dtype not in req_dtypes
    if cast:
        img = img.to(req_dtypes[0])
    return img, cast, squeeze, out_dtype


def _cast_squeeze_out(img, cast, squeeze, out_dtype):
    if squeeze:
        img = img.squeeze(dim=0)
    if cast:
        if out_dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
            img = torch.round(img)
        img = img.to(out_dtype)
    return img


def _aa_weights(n_in, n_out, cubic):
    """[n_out, n_in] weights of torch's antialiased resampling along one dim (align_corners=False): a
    triangle (bilinear) or Keys cubic (a = -0.5) filter stretched by the scale when shrinking, each row
    normalised."""
    scale = n_in / n_out
    support = (2.0 if cubic else 1.0) * (scale if scale >= 1.0 else 1.0)
    invscale = 1.0 / scale if scale >= 1.0 else 1.0

    def f(x):
        x = abs(x)
        if not cubic:
            return 1.0 - x if x < 1.0 else 0.0
        a = -0.5
        if x < 1.0:
            return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
        if x < 2.0:
            return (((x - 5) * x + 8) * x - 4) * a
        return 0.0
    w = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        ws = [f((j - center + 0.5) * invscale) for j in range(lo, hi)]
        total = sum(ws)
        w[i, lo:hi] = [x / total for x in ws] if total != 0 else ws
    return w


def _resize_aa(img, size, mode):
    """Antialiased bilinear / bicubic resize of [N, C, H, W] floats as separable weighted sums: the width
    first, then the height (dims whose size does not change are left alone)."""
    h, w = img.shape[-2:]
    oh, ow = size
    out = img
    if ow != w:
        out = out.matmul(torch.tensor(_aa_weights(w, ow, mode == 'bicubic').T, dtype=img.dtype))
    if oh != h:
        out = torch.tensor(_aa_weights(h, oh, mode == 'bicubic'), dtype=img.dtype).matmul(out)
    return out


def resize(img, size, interpolation="bilinear", antialias=True):
    _assert_image_tensor(img)
    size = list(size)
    antialias = bool(antialias) and interpolation in ("bilinear", "bicubic")
    x, cast, squeeze, out_dtype = _cast_squeeze_in(img, [torch.float32, torch.float64])
    if antialias:
        x = _resize_aa(x, size, interpolation)
    else:
        align = False if interpolation in ("bilinear", "bicubic") else None
        x = interpolate(x, size=size, mode=interpolation, align_corners=align)
    if interpolation == "bicubic" and out_dtype == torch.uint8:
        x = x.clamp(min=0, max=255)
    return _cast_squeeze_out(x, cast, squeeze, out_dtype)


def _assert_grid_transform_inputs(img, matrix, interpolation, fill, supported):
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor")
    _assert_image_tensor(img)
    if matrix is not None and not isinstance(matrix, list):
        raise TypeError("Argument matrix should be a list")
    if matrix is not None and len(matrix) != 6:
        raise ValueError("Argument matrix should have 6 float values")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        warnings.warn("Argument fill should be either int, float, tuple or list")
    channels = get_dimensions(img)[0]
    if fill is not None and isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != channels:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number of channels of the "
                         f"image ({len(fill)} != {channels})")
    if interpolation not in supported:
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


def _apply_grid_transform(img, grid, mode, fill):
    """grid_sample of the image at the grid; with a fill, a ones channel sampled alongside marks what came
    from outside the image, which takes the fill."""
    x, cast, squeeze, out_dtype = _cast_squeeze_in(img, [grid.dtype])
    if x.shape[0] > 1:
        grid = grid.expand(x.shape[0], grid.shape[1], grid.shape[2], grid.shape[3])
    if fill is not None:
        x = torch.cat((x, torch.ones((x.shape[0], 1, x.shape[2], x.shape[3]), dtype=x.dtype)), dim=1)
    x = grid_sample(x, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask = x[:, -1:, :, :]
        x = x[:, :-1, :, :]
        mask = mask.expand_as(x)
        fills = list(fill) if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = torch.tensor(fills, dtype=x.dtype).view(1, len(fills), 1, 1).expand_as(x)
        if mode == "nearest":
            outside = mask < 0.5
            x[outside] = fill_img[outside]
        else:
            x = x * mask + (1.0 - mask) * fill_img
    return _cast_squeeze_out(x, cast, squeeze, out_dtype)


def _gen_affine_grid(theta, w, h, ow, oh):
    """The [1, oh, ow, 2] sampling grid of the output pixels' centres mapped by theta [1, 2, 3], in
    grid_sample's [-1, 1] coordinates of the [h, w] input."""
    base = torch.empty(1, oh, ow, 3, dtype=theta.dtype)
    base[..., 0].copy_(torch.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, steps=ow))
    base[..., 1].copy_(torch.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, steps=oh).unsqueeze_(-1))
    base[..., 2].fill_(1)
    rescaled = theta.transpose(1, 2) / torch.tensor([0.5 * w, 0.5 * h], dtype=theta.dtype)
    return base.view(1, oh * ow, 3).bmm(rescaled).view(1, oh, ow, 2)


def _compute_affine_output_size(matrix, w, h):
    pts = torch.tensor([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                        [0.5 * w, -0.5 * h, 1.0]])
    theta = torch.tensor(matrix, dtype=torch.float).view(2, 3)
    new_pts = torch.matmul(pts, theta.T)
    min_vals, _ = new_pts.min(dim=0)
    max_vals, _ = new_pts.max(dim=0)
    min_vals += torch.tensor((w * 0.5, h * 0.5))
    max_vals += torch.tensor((w * 0.5, h * 0.5))
    tol = 1e-4      # truncate at 1e-4 first, so 2.0000001 does not become 3
    cmax = torch.ceil((max_vals / tol).trunc_() * tol)
    cmin = torch.floor((min_vals / tol).trunc_() * tol)
    size = cmax - cmin
    return int(size[0]), int(size[1])


def rotate(img, matrix, interpolation="nearest", expand=False, fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    w, h = img.shape[-1], img.shape[-2]
    ow, oh = _compute_affine_output_size(matrix, w, h) if expand else (w, h)
    dtype = img.dtype if torch.is_floating_point(img) else torch.float32
    theta = torch.tensor(matrix, dtype=dtype).reshape(1, 2, 3)
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=ow, oh=oh), interpolation, fill=fill)


def affine(img, matrix, interpolation="nearest", fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    dtype = img.dtype if torch.is_floating_point(img) else torch.float32
    theta = torch.tensor(matrix, dtype=dtype).reshape(1, 2, 3)
    w, h = img.shape[-1], img.shape[-2]
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=w, oh=h), interpolation, fill=fill)


def _gaussian_kernel1d(kernel_size, sigma, dtype):
    half = (kernel_size - 1) * 0.5
    x = torch.linspace(-half, half, steps=kernel_size, dtype=dtype)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size, sigma):
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    _assert_image_tensor(img)
    dtype = img.dtype if torch.is_floating_point(img) else torch.float32
    kx = _gaussian_kernel1d(kernel_size[0], sigma[0], dtype)
    ky = _gaussian_kernel1d(kernel_size[1], sigma[1], dtype)
    kernel = torch.mm(ky[:, None], kx[None, :])
    kernel = kernel.expand(img.shape[-3], 1, kernel.shape[0], kernel.shape[1])
    x, cast, squeeze, out_dtype = _cast_squeeze_in(img, [kernel.dtype])
    x = torch_pad(x, [kernel_size[0] // 2, kernel_size[0] // 2, kernel_size[1] // 2, kernel_size[1] // 2],
                  mode="reflect")
    x = conv2d(x, kernel, groups=x.shape[-3])
    return _cast_squeeze_out(x, cast, squeeze, out_dtype)


def normalize(tensor, mean, std, inplace=False):
    _assert_image_tensor(tensor)
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{tensor.size()}")
    if not inplace:
        tensor = tensor.clone()
    mean = torch.as_tensor(mean, dtype=tensor.dtype)
    std = torch.as_tensor(std, dtype=tensor.dtype)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


def erase(img, i, j, h, w, v, inplace=False):
    _assert_image_tensor(img)
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


del math
