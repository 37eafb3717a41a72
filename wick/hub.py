"""torch.hub: models from a hubconf.py in a local directory (source='local') or in the hub cache, and files
from file:// URLs or the hub cache with torch's hash check. wick reaches no network: where torch would
download (an http(s) URL, a GitHub repository not in the cache), it raises a RuntimeError that says so and
where to put the file instead."""
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")      # the bfd8deac of resnet18-bfd8deac.pth
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
_hub_dir = None
_builtin_list = list


def _no_network(what, instead):
    return RuntimeError(f"wick.hub: cannot download {what}: wick does not reach the network. {instead}")


def get_dir():
    """The hub cache: set_dir's, else $TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub (~/.cache/torch/hub)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    home = os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch"))
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


@contextlib.contextmanager
def _on_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    with _on_sys_path(repo_dir):
        spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)   # a missing hubconf.py: FileNotFoundError, as torch
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    deps = getattr(module, VAR_DEPENDENCY, None) if VAR_DEPENDENCY in dir(module) else None
    if deps is not None:
        missing = [pkg for pkg in deps if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(module, model) if model in dir(module) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _repo_dir(github, force_reload, trust_repo, verbose, skip_validation):
    """The cached checkout of 'owner/name[:ref]' (get_dir()/owner_name_ref), as torch finds it; wick never
    fetches one."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    owner, name = repo_info.split("/")
    if ref is None:   # torch asks GitHub for the default branch; offline it looks for main, then master
        ref = next((r for r in ("main", "master") if os.path.exists(f"{hub_dir}/{owner}_{name}_{r}")), None)
        if ref is None:
            raise RuntimeError("It looks like there is no internet connection and the repo could not be found in "
                               f"the cache ({hub_dir})")
    owner_name_branch = "_".join([owner, name, ref.replace("/", "_")])
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_trusted(owner, name, owner_name_branch, trust_repo)
    if force_reload or not os.path.exists(repo_dir):
        raise _no_network(f"the repository {owner}/{name} at {ref}",
                          f"Put a checkout of it at {repo_dir}, or use hub.load(dir, model, source='local').")
    if verbose:
        sys.stderr.write(f"Using cache found in {repo_dir}\n")
    return repo_dir


def _check_trusted(owner, name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    path = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(path):
        Path(path).touch()
    with open(path) as f:
        trusted = tuple(line.strip() for line in f)
    owner_name = "_".join([owner, name])
    is_trusted = (owner_name in trusted or owner_name_branch in next(os.walk(hub_dir))[1]
                  or owner in _TRUSTED_REPO_OWNERS)
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(f"The repository {owner_name} does not belong to the list of trusted repositories and as "
                         "such cannot be downloaded. Do you trust this repository and wish to add it to the trusted "
                         "list of repositories (y/N)?")
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(path, "a") as f:
            f.write(owner_name + "\n")


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """The entry points (public callables) of a cached repository's hubconf.py."""
    module = _import_hubconf(_repo_dir(github, force_reload, trust_repo, verbose, skip_validation))
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    module = _import_hubconf(_repo_dir(github, force_reload, trust_repo, True, skip_validation))
    return _entry(module, model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """hubconf.<model>(*args, **kwargs) from a directory (source='local') or a cached GitHub repository."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _repo_dir(repo_or_dir, force_reload, trust_repo, verbose, skip_validation)
    with _on_sys_path(repo_or_dir):
        return _entry(_import_hubconf(repo_or_dir), model)(*args, **kwargs)


def _progress(total, disable):
    try:
        from tqdm import tqdm
    except ImportError:
        return contextlib.nullcontext(None)
    return tqdm(total=total, disable=disable, unit="B", unit_scale=True, unit_divisor=1024)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Copy a file:// URL to dst (through a temporary file beside it), checking that its sha256 starts with
    hash_prefix. Other URLs would need the network, which wick does not reach."""
    dst = os.path.expanduser(dst)
    parts = urlparse(url)
    if parts.scheme != "file":
        raise _no_network(f'"{url}"', f"Put the file at {dst} yourself (or use a file:// URL).")
    src = url2pathname(parts.path)
    tmp = dst + "." + uuid.uuid4().hex + ".partial"
    try:
        sha256 = hashlib.sha256() if hash_prefix is not None else None
        with open(src, "rb") as u, open(tmp, "w+b") as f, _progress(os.path.getsize(src), not progress) as bar:
            while True:
                buf = u.read(READ_DATA_CHUNK)
                if not buf:
                    break
                f.write(buf)
                if sha256 is not None:
                    sha256.update(buf)
                if bar is not None:
                    bar.update(len(buf))
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """torch.load of the URL's file in model_dir (default get_dir()/checkpoints), fetched there first when
    absent (check_hash: its sha256 must start with the name's -<hex>. part, as torch's)."""
    from . import load as _load
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    if zipfile.is_zipfile(cached):
        with zipfile.ZipFile(cached) as zf:
            members = zf.infolist()
        if len(members) == 1 and not members[0].is_dir():
            raise NotImplementedError("wick.hub: the legacy (torch < 1.6) zipped checkpoint format is not supported "
                                      f"yet ({cached}); re-save it with torch.save")
    return _load(cached, map_location=map_location, weights_only=weights_only)
