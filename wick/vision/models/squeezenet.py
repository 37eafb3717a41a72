"""SqueezeNet 1.0 / 1.1 (Iandola et al. 2016): Fire modules (squeeze, expand1x1, expand3x3)."""
import wick as torch
from wick import nn
from wick.nn import init
from ._layers import no_weights


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


_FIRES = {"1_0": [(96, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), "M", (256, 32, 128, 128),
                  (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), "M", (512, 64, 256, 256)],
          "1_1": [(64, 16, 64, 64), (128, 16, 64, 64), "M", (128, 32, 128, 128), (256, 32, 128, 128), "M",
                  (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]}


class SqueezeNet(nn.Module):
    def __init__(self, version="1_0", num_classes=1000, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes
        if version not in _FIRES:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        stem = nn.Conv2d(3, 96, kernel_size=7, stride=2) if version == "1_0" else nn.Conv2d(3, 64, kernel_size=3,
                                                                                             stride=2)
        layers = [stem, nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)]
        for f in _FIRES[version]:
            layers.append(nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True) if f == "M" else Fire(*f))
        self.features = nn.Sequential(*layers)
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    init.constant_(m.bias, 0)

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


def squeezenet1_0(*, weights=None, progress=True, **kwargs):
    no_weights(weights, 'squeezenet1_0')
    return SqueezeNet("1_0", **kwargs)


def squeezenet1_1(*, weights=None, progress=True, **kwargs):
    no_weights(weights, 'squeezenet1_1')
    return SqueezeNet("1_1", **kwargs)
