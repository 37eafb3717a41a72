"""Building blocks shared by the models (torchvision.ops.misc): Conv2dNormActivation, SqueezeExcitation."""
from functools import partial  # noqa: F401  (used by the models)

from wick import nn


def _make_divisible(v, divisor, min_value=None):
    """v rounded to a multiple of divisor, never below min_value nor 10% under v."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def no_weights(weights, name):
    if weights is not None:
        raise NotImplementedError(f"wick.vision.models.{name}: pretrained weights ({weights}) cannot be downloaded "
                                  "here; build the model with weights=None and load a torchvision state dict with "
                                  "model.load_state_dict(torch.load(path))")


class Conv2dNormActivation(nn.Sequential):
    """conv (no bias when there is a norm) -> norm -> activation, 'same' padding for odd kernels."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1, inplace=True, bias=None):
        if padding is None:
            if isinstance(kernel_size, int) and isinstance(dilation, int):
                padding = (kernel_size - 1) // 2 * dilation
            else:
                n = len(kernel_size) if isinstance(kernel_size, (list, tuple)) else len(dilation)
                ks = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size,) * n
                dl = dilation if isinstance(dilation, (list, tuple)) else (dilation,) * n
                kernel_size, dilation = tuple(ks), tuple(dl)
                padding = tuple((ks[i] - 1) // 2 * dl[i] for i in range(n))
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation, groups=groups,
                            bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {'inplace': inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels


class SqueezeExcitation(nn.Module):
    """x * scale_activation(fc2(activation(fc1(avgpool(x))))): channel attention."""

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, input):
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))

    def forward(self, input):
        return self._scale(input) * input
