"""torchvision.transforms (v1) and transforms.functional on tensor and PIL images; seeded random transforms
must draw torchvision's exact parameters."""
from .harness import case


def img(T, c=3, h=9, w=11, dtype=None):
    """A [c, h, w] float image in [0, 1] with uneven values (no RNG)."""
    x = T.tensor([[[((ch * 37 + r * 11 + k * 7) % 23) / 22.0 for k in range(w)] for r in range(h)]
                  for ch in range(c)])
    return x if dtype is None else (x * 255).round().to(dtype)


def pil(T, c=3, h=9, w=11):
    from PIL import Image
    arr = img(T, c, h, w, T.uint8).permute(1, 2, 0).numpy()
    return Image.fromarray(arr[:, :, 0] if c == 1 else arr)


def as_list(p):
    """A PIL image as (mode, size, pixel bytes) to compare."""
    return (p.mode, list(p.size), list(p.tobytes()))


def draws(T, transform, x, n=6):
    return [transform(x) for _ in range(n)]


@case(needs=('PIL',))
def to_tensor_pil(T, V):
    tt = V.transforms
    return tt.ToTensor()(pil(T)), tt.PILToTensor()(pil(T)), tt.ToTensor()(pil(T, 1)), tt.PILToTensor()(pil(T, 1, 4, 5))


@case()
def to_tensor_ndarray(T, V):
    a = img(T, 3, 4, 5, T.uint8).permute(1, 2, 0).numpy()
    return (V.transforms.ToTensor()(a), V.transforms.ToTensor()(a[:, :, 0]),
            V.transforms.ToTensor()(a.astype('float64') / 7))


@case()
def to_tensor_errors(T, V):
    out = []
    for bad in ([1, 2], T.zeros(3, 2, 2).numpy()[None]):
        try:
            V.transforms.ToTensor()(bad)
        except (TypeError, ValueError) as e:
            out.append([type(e).__name__, str(e).split(". Got")[0]])
    return out


@case(needs=('PIL',))
def to_pil_image(T, V):
    f = V.transforms.functional
    return [as_list(f.to_pil_image(img(T))), as_list(f.to_pil_image(img(T, 1, 4, 3))),
            as_list(f.to_pil_image(img(T, 3, 4, 3, T.uint8))), as_list(f.to_pil_image(img(T, 1, 3, 3)[0], mode='F')),
            repr(V.transforms.ToPILImage()), repr(V.transforms.ToPILImage('RGB'))]


@case()
def normalize(T, V):
    tt = V.transforms
    x = img(T)
    n = tt.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    return n(x), n(T.stack([x, x * 0.5])), tt.Normalize(0.5, 0.25)(x.double()), repr(n), x


@case()
def normalize_errors(T, V):
    out = []
    for call in (lambda: V.transforms.Normalize([0.5] * 3, [0.2] * 3)(img(T, dtype=T.uint8)),
                 lambda: V.transforms.Normalize([0.5], [0.0])(img(T)),
                 lambda: V.transforms.Normalize([0.5], [0.2])(img(T)[0])):
        try:
            call()
        except (TypeError, ValueError) as e:
            out.append([type(e).__name__, str(e)])
    return out


@case(rtol=1e-5, atol=1e-5)
def resize_tensor(T, V):
    tt, x = V.transforms, img(T, 3, 12, 10)
    I = tt.InterpolationMode
    return [tt.Resize(5)(x), tt.Resize((7, 13))(x), tt.Resize(6, interpolation=I.NEAREST)(x),
            tt.Resize((5, 4), antialias=False)(x), tt.Resize(8, max_size=9)(x),
            tt.Resize((6, 7), interpolation=I.BICUBIC)(x), tt.Resize(4, interpolation=I.NEAREST_EXACT)(x),
            tt.Resize((12, 10))(x), repr(tt.Resize(5))]


@case()
def resize_uint8_tensor(T, V):
    x = img(T, 3, 12, 10, T.uint8)
    return V.transforms.Resize((5, 4), antialias=False)(x), V.transforms.Resize(6, interpolation=0)(x)


@case(needs=('PIL',))
def resize_pil(T, V):
    tt, p = V.transforms, pil(T, 3, 12, 10)
    return [as_list(tt.Resize(5)(p)), as_list(tt.Resize((7, 13), interpolation=tt.InterpolationMode.BICUBIC)(p)),
            as_list(tt.Resize(6, interpolation=0)(p))]


@case()
def resize_errors(T, V):
    out = []
    for call in (lambda: V.transforms.Resize('a'), lambda: V.transforms.Resize((1, 2, 3)),
                 lambda: V.transforms.functional.resize(img(T), [4, 4], max_size=5),
                 lambda: V.transforms.Resize(8, max_size=8)(img(T)),
                 lambda: V.transforms.functional.resize(img(T), 4, interpolation='bilinear')):
        try:
            call()
        except (TypeError, ValueError) as e:
            out.append([type(e).__name__, str(e)])
    return out


@case()
def crops_tensor(T, V):
    tt, f, x = V.transforms, V.transforms.functional, img(T)
    return [tt.CenterCrop(5)(x), tt.CenterCrop((4, 7))(x), tt.CenterCrop((12, 14))(x), f.crop(x, -2, 3, 5, 12),
            f.center_crop(x, [3]), f.five_crop(x, 4), f.ten_crop(x, (3, 5), vertical_flip=True), repr(tt.CenterCrop(3))]


@case(needs=('PIL',))
def crops_pil(T, V):
    tt, f, p = V.transforms, V.transforms.functional, pil(T)
    return [as_list(tt.CenterCrop(5)(p)), as_list(tt.CenterCrop((12, 14))(p)), as_list(f.crop(p, -2, 3, 5, 12))]


@case()
def random_crop(T, V):
    tt, x = V.transforms, img(T)
    return (draws(T, tt.RandomCrop(5), x) + draws(T, tt.RandomCrop((4, 6), padding=2), x, 3)
            + draws(T, tt.RandomCrop(12, pad_if_needed=True, padding_mode='reflect'), x, 2)
            + [tt.RandomCrop((9, 11))(x), repr(tt.RandomCrop(5, padding=1)), tt.RandomCrop.get_params(x, (3, 4))])


@case()
def random_crop_too_big(T, V):
    return V.transforms.RandomCrop(20)(img(T))


@case(needs=('PIL',))
def random_crop_pil(T, V):
    return [as_list(p) for p in draws(T, V.transforms.RandomCrop(5, padding=(1, 2)), pil(T), 4)]


@case()
def flips(T, V):
    tt, x = V.transforms, img(T)
    return (draws(T, tt.RandomHorizontalFlip(), x, 5) + draws(T, tt.RandomVerticalFlip(0.3), x, 5)
            + [tt.RandomHorizontalFlip(1.0)(x), tt.RandomVerticalFlip(0.0)(x), repr(tt.RandomVerticalFlip(0.3))])


@case(needs=('PIL',))
def flips_pil(T, V):
    tt, p = V.transforms, pil(T)
    return [as_list(tt.RandomHorizontalFlip(1.0)(p)), as_list(tt.RandomVerticalFlip(1.0)(p))]


@case(rtol=1e-5, atol=1e-5)
def random_resized_crop(T, V):
    tt, x = V.transforms, img(T, 3, 16, 20)
    out = draws(T, tt.RandomResizedCrop(8), x, 4) + draws(T, tt.RandomResizedCrop((6, 9), scale=(0.5, 0.9),
                                                                                 ratio=(0.5, 2.0)), x, 3)
    out += [tt.RandomResizedCrop.get_params(x, [0.08, 1.0], [0.75, 1.333]) for _ in range(5)]
    out += [tt.RandomResizedCrop.get_params(img(T, 3, 4, 40), [0.9, 1.0], [0.9, 1.1])]   # the fallback crop
    return out + [repr(tt.RandomResizedCrop(8))]


@case(needs=('PIL',))
def random_resized_crop_pil(T, V):
    return [as_list(p) for p in draws(T, V.transforms.RandomResizedCrop(6), pil(T, 3, 16, 20), 3)]


@case(rtol=1e-5, atol=1e-6)
def rotation_tensor(T, V):
    tt, x = V.transforms, img(T, 3, 9, 11)
    I = tt.InterpolationMode
    return (draws(T, tt.RandomRotation(30), x, 3) + draws(T, tt.RandomRotation((10, 80), expand=True), x, 2)
            + draws(T, tt.RandomRotation(45, interpolation=I.BILINEAR, fill=[0.5, 0.25, 1.0]), x, 2)
            + draws(T, tt.RandomRotation(20, center=(2, 3)), x, 2)
            + [V.transforms.functional.rotate(img(T, 3, 9, 11, T.uint8), 33.0),
               repr(tt.RandomRotation(30)), repr(tt.RandomRotation((1, 2), center=[1, 1], fill=3))])


@case(needs=('PIL',))
def rotation_pil(T, V):
    tt = V.transforms
    return [as_list(p) for p in draws(T, tt.RandomRotation(40, expand=True, fill=7), pil(T), 3)]


@case(rtol=1e-5, atol=1e-6)
def color_jitter_tensor(T, V):
    tt, x = V.transforms, img(T)
    out = draws(T, tt.ColorJitter(0.5, 0.5, 0.5, 0.2), x, 4) + draws(T, tt.ColorJitter(brightness=(0.2, 0.6)), x, 2)
    out += draws(T, tt.ColorJitter(hue=0.3), img(T, 3, 5, 6, T.uint8), 2)
    out += [tt.ColorJitter.get_params((0.5, 1.5), None, (0, 2), (-0.1, 0.1)), repr(tt.ColorJitter(0.1, hue=0.2))]
    return out


@case(rtol=1e-5, atol=1e-6)
def adjust_functional(T, V):
    f, x = V.transforms.functional, img(T)
    u8 = img(T, 3, 5, 6, T.uint8)
    return [f.adjust_brightness(x, 1.7), f.adjust_contrast(x, 0.3), f.adjust_saturation(x, 2.5),
            f.adjust_hue(x, -0.27), f.adjust_hue(u8, 0.4), f.adjust_contrast(u8, 1.9), f.adjust_saturation(u8, 0.0),
            f.adjust_brightness(img(T, 1), 0.5), f.adjust_hue(img(T, 1), 0.1)]


@case()
def color_jitter_errors(T, V):
    out = []
    for kw in ({'brightness': -1}, {'hue': 0.7}, {'contrast': [1, 2, 3]}, {'saturation': (2, 1)}):
        try:
            V.transforms.ColorJitter(**kw)
        except (TypeError, ValueError) as e:
            out.append([type(e).__name__, str(e)])
    return out


@case(needs=('PIL',))
def color_jitter_pil(T, V):
    tt = V.transforms
    return [as_list(p) for p in draws(T, tt.ColorJitter(0.4, 0.4, 0.4, 0.1), pil(T), 3)]


@case()
def grayscale(T, V):
    tt, x = V.transforms, img(T)
    return [tt.Grayscale()(x), tt.Grayscale(3)(x), tt.Grayscale()(img(T, 3, 4, 4, T.uint8)), repr(tt.Grayscale(3))]


@case(needs=('PIL',))
def grayscale_pil(T, V):
    tt = V.transforms
    return [as_list(tt.Grayscale()(pil(T))), as_list(tt.Grayscale(3)(pil(T)))]


@case()
def pad_tensor(T, V):
    tt, x = V.transforms, img(T, 3, 4, 5)
    out = [tt.Pad(2)(x), tt.Pad((1, 3), fill=0.5)(x), tt.Pad([1, 2, 3, 0], padding_mode='edge')(x),
           tt.Pad(2, padding_mode='reflect')(x), tt.Pad((3, 1, 0, 2), padding_mode='symmetric')(x),
           tt.Pad(1, padding_mode='reflect')(img(T, 3, 4, 5, T.uint8)), tt.Pad([-1, 1, 2, -1], padding_mode='symmetric')(x)]
    return out + [repr(tt.Pad(2, fill=1))]


@case(needs=('PIL',))
def pad_pil(T, V):
    tt, p = V.transforms, pil(T, 3, 4, 5)
    return [as_list(tt.Pad(2, fill=(1, 2, 3))(p)), as_list(tt.Pad((1, 3), padding_mode='edge')(p)),
            as_list(tt.Pad([1, 2, 3, 0], padding_mode='symmetric')(p)), as_list(tt.Pad(1, padding_mode='reflect')(p))]


@case()
def pad_errors(T, V):
    out = []
    for call in (lambda: V.transforms.Pad('1'), lambda: V.transforms.Pad(1, padding_mode='wrap'),
                 lambda: V.transforms.Pad((1, 2, 3))):
        try:
            call()
        except (TypeError, ValueError) as e:
            out.append([type(e).__name__, str(e)])
    return out


@case()
def lambda_compose(T, V):
    tt = V.transforms
    c = tt.Compose([tt.CenterCrop(6), tt.Lambda(lambda t: t * 2), tt.Normalize([1.0] * 3, [0.5] * 3)])
    try:
        tt.Lambda(3)
    except TypeError as e:
        err = str(e)
    return c(img(T)), repr(c), err


@case(rtol=1e-5, atol=1e-6)
def gaussian_blur(T, V):
    tt, f, x = V.transforms, V.transforms.functional, img(T)
    return (draws(T, tt.GaussianBlur(3), x, 3) + draws(T, tt.GaussianBlur((5, 3), sigma=(0.5, 1.5)), x, 2)
            + [f.gaussian_blur(x, [3, 5]), f.gaussian_blur(img(T, 3, 9, 11, T.uint8), 5, 1.2),
               tt.GaussianBlur.get_params(0.1, 2.0), repr(tt.GaussianBlur(3))])


@case(needs=('PIL',))
def gaussian_blur_pil(T, V):
    return [as_list(V.transforms.functional.gaussian_blur(pil(T), 3, 0.9))]


@case()
def gaussian_blur_errors(T, V):
    out = []
    for call in (lambda: V.transforms.GaussianBlur(4), lambda: V.transforms.GaussianBlur(3, sigma=-1),
                 lambda: V.transforms.GaussianBlur(3, sigma=(2, 1)), lambda: V.transforms.functional.gaussian_blur(
                     img(T), [3, 4])):
        try:
            call()
        except (TypeError, ValueError) as e:
            out.append([type(e).__name__, str(e)])
    return out


@case()
def random_erasing(T, V):
    tt, x = V.transforms, img(T, 3, 16, 14)
    out = draws(T, tt.RandomErasing(), x, 4) + draws(T, tt.RandomErasing(1.0, value='random'), x, 2)
    out += draws(T, tt.RandomErasing(1.0, value=(0.1, 0.2, 0.3), scale=(0.1, 0.2)), x, 2)
    out += [tt.RandomErasing.get_params(x, (0.02, 0.33), (0.3, 3.3), [0.5]), repr(tt.RandomErasing())]
    y = x.clone()
    tt.RandomErasing(1.0, inplace=True)(y)
    return out + [y]


@case()
def random_apply_choice(T, V):
    tt, x = V.transforms, img(T, 3, 6, 6)
    a = tt.RandomApply([tt.RandomHorizontalFlip(1.0), tt.Lambda(lambda t: t + 1)], p=0.4)
    return draws(T, a, x, 5) + [repr(a)]


@case()
def convert_image_dtype(T, V):
    f, x = V.transforms.functional, img(T)
    u8 = img(T, 3, 2, 3, T.uint8)
    return [f.convert_image_dtype(x, T.uint8), f.convert_image_dtype(u8, T.float64), f.convert_image_dtype(u8, T.int32),
            f.convert_image_dtype(u8.int(), T.uint8), V.transforms.ConvertImageDtype(T.float16)(u8)]
