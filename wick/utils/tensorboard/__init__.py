"""torch.utils.tensorboard: TensorBoard event files, when the `tensorboard` package is installed (as torch).

Like torch's, this module imports `tensorboard` first, so without the package the import fails with Python's
own ModuleNotFoundError. The events are tensorboard's protobufs, written by tensorboard's EventFileWriter."""
import tensorboard

if tuple(int(p) for p in tensorboard.__version__.split('.')[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del tensorboard

from .writer import FileWriter, SummaryWriter  # noqa: E402
from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
