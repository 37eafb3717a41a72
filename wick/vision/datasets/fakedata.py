"""FakeData: image i is randn(image_size) and a random class under manual_seed(i + random_offset), as a PIL
image; the global generator's state is kept."""
import wick as torch
from .vision import VisionDataset


class FakeData(VisionDataset):
    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None,
                 random_offset=0):
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size, self.num_classes = size, num_classes
        self.image_size, self.random_offset = image_size, random_offset

    def __getitem__(self, index):
        from .. import transforms
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        rng_state = torch.get_rng_state()
        torch.manual_seed(index + self.random_offset)
        img = torch.randn(*self.image_size)
        target = torch.randint(0, self.num_classes, size=(1,), dtype=torch.long)[0]
        torch.set_rng_state(rng_state)
        img = transforms.ToPILImage()(img)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target.item()

    def __len__(self):
        return self.size
