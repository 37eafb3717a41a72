"""torch.device for a CPU-only library: 'cpu' works; anything else raises a clear error."""


class device:
    __module__ = 'torch'

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            type, index = 'cuda', type
        s = str(type)
        if ':' in s:
            s, idx = s.split(':', 1)
            index = int(idx)
        valid = ('cpu', 'cuda', 'mps', 'xpu', 'meta', 'xla', 'hip', 'ipu', 'mtia', 'privateuseone', 'lazy', 'vulkan',
                 'ort', 'mkldnn', 'opengl', 'opencl', 'ideep', 've', 'fpga', 'maia', 'hpu')
        if s not in valid:
            raise RuntimeError('Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, '
                               'maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of '
                               'device string: %s' % type)
        self.type, self.index = s, index

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __str__(self):
        return self.type if self.index is None else '%s:%d' % (self.type, self.index)

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type,) if self.index is None else (self.type, self.index))
