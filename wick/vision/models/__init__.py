"""torchvision.models: architectures with torchvision's module names and initialisation, so torchvision's
state dicts load with strict=True. Pretrained weights cannot be downloaded here (weights= must be None)."""
from .alexnet import AlexNet, alexnet  # noqa: F401
from .mobilenetv2 import MobileNetV2, mobilenet_v2  # noqa: F401
from .mobilenetv3 import MobileNetV3, mobilenet_v3_large, mobilenet_v3_small  # noqa: F401
from .resnet import ResNet, resnet18, resnet34, resnet50, resnet101, resnet152  # noqa: F401
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1  # noqa: F401
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn  # noqa: F401

_BUILDERS = ("alexnet", "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "resnet18", "resnet34",
             "resnet50", "resnet101", "resnet152", "squeezenet1_0", "squeezenet1_1", "vgg11", "vgg11_bn", "vgg13",
             "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn")


def list_models(module=None, include=None, exclude=None):
    import fnmatch
    names = sorted(_BUILDERS)
    if include:
        inc = [include] if isinstance(include, str) else include
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in inc)]
    if exclude:
        exc = [exclude] if isinstance(exclude, str) else exclude
        names = [n for n in names if not any(fnmatch.fnmatch(n, p) for p in exc)]
    return names


def get_model(name, **config):
    name = name.lower()
    if name not in _BUILDERS:
        raise ValueError(f"Unknown model {name}")
    return globals()[name](**config)
