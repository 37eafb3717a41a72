"""MobileNetV3 large / small (Howard et al. 2019): InvertedResidual blocks (block) with squeeze-excitation."""
from functools import partial

import wick as torch
from wick import nn
from ._layers import Conv2dNormActivation, SqueezeExcitation, _make_divisible, no_weights
from .mobilenetv2 import _init_mobilenet


class InvertedResidualConfig:
    def __init__(self, input_channels, kernel, expanded_channels, out_channels, use_se, activation, stride, dilation,
                 width_mult):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se, self.use_hs = use_se, activation == "HS"
        self.stride, self.dilation = stride, dilation

    @staticmethod
    def adjust_channels(channels, width_mult):
        return _make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    def __init__(self, cnf, norm_layer, se_layer=partial(SqueezeExcitation, scale_activation=nn.Hardsigmoid)):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        act = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=act))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel,
                                           stride=1 if cnf.dilation > 1 else cnf.stride, dilation=cnf.dilation,
                                           groups=cnf.expanded_channels, norm_layer=norm_layer, activation_layer=act))
        if cnf.use_se:
            layers.append(se_layer(cnf.expanded_channels, _make_divisible(cnf.expanded_channels // 4, 8)))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result += input
        return result


class MobileNetV3(nn.Module):
    def __init__(self, inverted_residual_setting, last_channel, num_classes=1000, block=None, norm_layer=None,
                 dropout=0.2, **kwargs):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not (isinstance(inverted_residual_setting, (list, tuple))
                and all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting)):
            raise TypeError("The inverted_residual_setting should be List[InvertedResidualConfig]")
        block = block or InvertedResidual
        norm_layer = norm_layer or partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels, kernel_size=3, stride=2,
                                       norm_layer=norm_layer, activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        layers.append(Conv2dNormActivation(last_in, 6 * last_in, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(6 * last_in, last_channel), nn.Hardswish(inplace=True),
                                        nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        _init_mobilenet(self)

    def _forward_impl(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))

    def forward(self, x):
        return self._forward_impl(x)


# input, kernel, expanded, output, squeeze-excite, activation, stride, dilation
_LARGE = [(16, 3, 16, 16, False, "RE", 1, 1), (16, 3, 64, 24, False, "RE", 2, 1), (24, 3, 72, 24, False, "RE", 1, 1),
          (24, 5, 72, 40, True, "RE", 2, 1), (40, 5, 120, 40, True, "RE", 1, 1), (40, 5, 120, 40, True, "RE", 1, 1),
          (40, 3, 240, 80, False, "HS", 2, 1), (80, 3, 200, 80, False, "HS", 1, 1), (80, 3, 184, 80, False, "HS", 1, 1),
          (80, 3, 184, 80, False, "HS", 1, 1), (80, 3, 480, 112, True, "HS", 1, 1), (112, 3, 672, 112, True, "HS", 1, 1),
          (112, 5, 672, 160, True, "HS", 2, 2), (160, 5, 960, 160, True, "HS", 1, 2), (160, 5, 960, 160, True, "HS", 1, 2)]
_SMALL = [(16, 3, 16, 16, True, "RE", 2, 1), (16, 3, 72, 24, False, "RE", 2, 1), (24, 3, 88, 24, False, "RE", 1, 1),
          (24, 5, 96, 40, True, "HS", 2, 1), (40, 5, 240, 40, True, "HS", 1, 1), (40, 5, 240, 40, True, "HS", 1, 1),
          (40, 5, 120, 48, True, "HS", 1, 1), (48, 5, 144, 48, True, "HS", 1, 1), (48, 5, 288, 96, True, "HS", 2, 2),
          (96, 5, 576, 96, True, "HS", 1, 2), (96, 5, 576, 96, True, "HS", 1, 2)]


def _mobilenet_v3_conf(arch, width_mult=1.0, reduced_tail=False, dilated=False, **kwargs):
    """The block configs: the last three blocks' channels halved by reduced_tail, dilated 2 by dilated."""
    table, last, tail = (_LARGE, 1280, 12) if arch == "mobilenet_v3_large" else (_SMALL, 1024, 8)
    div = 2 if reduced_tail else 1
    setting = []
    for k, (i, ks, e, o, se, act, s, d) in enumerate(table):
        if k >= tail:
            i = i if k == tail else i // div
            e, o, d = (e if k == tail else e // div), o // div, (2 if dilated else 1)
        setting.append(InvertedResidualConfig(i, ks, e, o, se, act, s, d, width_mult))
    return setting, InvertedResidualConfig.adjust_channels(last // div, width_mult)


def _kwargs(kwargs):
    return {k: v for k, v in kwargs.items() if k not in ("width_mult", "reduced_tail", "dilated")}


def mobilenet_v3_large(*, weights=None, progress=True, **kwargs):
    no_weights(weights, 'mobilenet_v3_large')
    setting, last = _mobilenet_v3_conf("mobilenet_v3_large", **kwargs)
    return MobileNetV3(setting, last, **_kwargs(kwargs))


def mobilenet_v3_small(*, weights=None, progress=True, **kwargs):
    no_weights(weights, 'mobilenet_v3_small')
    setting, last = _mobilenet_v3_conf("mobilenet_v3_small", **kwargs)
    return MobileNetV3(setting, last, **_kwargs(kwargs))
