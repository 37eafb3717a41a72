"""torch.hub from a local directory and the hub cache, and load_state_dict_from_url from file:// URLs with the
hash check: wick.hub and real torch.hub on the same files must agree (entry points, docs, errors, loaded
tensors); wick refuses network URLs with a clear RuntimeError. Also wick.install_as_torch()."""
import hashlib
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import wick

HUBCONF = textwrap.dedent('''
    """A hub repository for the tests."""
    dependencies = ['os']
    import helper                      # hubconf's own directory is on sys.path while it loads

    def linear(lib, n_in=3, n_out=2):
        """A seeded nn.Linear of the library passed in."""
        lib.manual_seed(0)
        return lib.nn.Linear(n_in, n_out)

    def scale(x, by=2):
        """Multiply by a number."""
        return helper.twice(x) if by == 2 else x * by

    def _private():
        pass

    not_callable = 3
''')


@pytest.fixture
def repo(tmp_path):
    d = tmp_path / 'repo'
    d.mkdir()
    (d / 'hubconf.py').write_text(HUBCONF)
    (d / 'helper.py').write_text('def twice(x):\n    return x * 2\n')
    return str(d)


def _outcome(f):
    try:
        return 'ok', f()
    except Exception as e:    # the type and message, as the parity suite compares them
        return type(e).__name__, str(e)


def test_load_local(repo):
    for T in (torch, wick):
        m = T.hub.load(repo, 'linear', T, n_out=4, source='local')
        assert type(m).__name__ == 'Linear' and tuple(m.weight.shape) == (4, 3)
    assert wick.hub.load(repo, 'linear', wick, source='local').weight.tolist() == \
        torch.hub.load(repo, 'linear', torch, source='local').weight.tolist()
    assert wick.hub.load(repo, 'scale', 5, source='LOCAL') == torch.hub.load(repo, 'scale', 5, source='local') == 10
    for call in (lambda h: h.load(repo, 'nothing', source='local'),
                 lambda h: h.load(repo, 'not_callable', source='local'),
                 lambda h: h.load(repo, 3, source='local'),
                 lambda h: h.load(repo, 'scale', source='gitlab'),
                 lambda h: h.load(repo + '/missing', 'scale', source='local')):
        ref, got = _outcome(lambda: call(torch.hub)), _outcome(lambda: call(wick.hub))
        assert ref[0] != 'ok' and got == ref


def test_missing_dependencies(repo):
    with open(os.path.join(repo, 'hubconf.py'), 'a') as f:
        f.write("dependencies = ['os', 'no_such_module_x', 'no_such_y']\n")
    ref = _outcome(lambda: torch.hub.load(repo, 'scale', 1, source='local'))
    assert ref == ('RuntimeError', 'Missing dependencies: no_such_module_x, no_such_y')
    assert _outcome(lambda: wick.hub.load(repo, 'scale', 1, source='local')) == ref


def test_list_help_from_cache(repo, tmp_path, capsys):
    import shutil
    for T in (torch, wick):
        hub_dir = str(tmp_path / ('hub_' + T.__name__))
        os.makedirs(hub_dir)
        shutil.copytree(repo, os.path.join(hub_dir, 'someone_models_main'))
        T.hub.set_dir(hub_dir)
    outcomes = []
    try:
        for call in (lambda h: h.list('someone/models:main', trust_repo=True),
                     lambda h: h.list('someone/models', trust_repo=True),      # no ref: main or master in the cache
                     lambda h: h.help('someone/models:main', 'scale', trust_repo=True),
                     lambda h: h.help('someone/models', 'nothing', trust_repo=True),
                     lambda h: h.load('someone/models:main', 'scale', 3, by=3, trust_repo=True),
                     lambda h: (h.list('someone/models:main', trust_repo='check', verbose=False),
                                open(os.path.join(h.get_dir(), 'trusted_list')).read())):
            ref, got = _outcome(lambda: call(torch.hub)), _outcome(lambda: call(wick.hub))
            assert got == ref, (ref, got)
            outcomes.append(ref[0])
            err = capsys.readouterr().err
            assert err.count('Using cache found in') in (0, 2)
        assert outcomes == ['ok', 'ok', 'ok', 'RuntimeError', 'ok', 'ok']
        assert wick.hub.list('someone/models:main', trust_repo=True) == ['linear', 'scale']
        # not in the cache: wick says it cannot download, and where the checkout would go
        with pytest.raises(RuntimeError, match=r'cannot download the repository someone/other at main: wick does '
                                               r'not reach the network\. Put a checkout of it at .*someone_other_main'):
            wick.hub.load('someone/other:main', 'scale', trust_repo=True)
        with pytest.raises(RuntimeError, match=r'no internet connection and the repo could not be found in the cache'):
            wick.hub.list('someone/other', trust_repo=True)
    finally:
        torch.hub.set_dir(os.path.join(torch.hub._get_torch_home(), 'hub'))
        wick.hub._hub_dir = None


def test_get_dir_env(monkeypatch, tmp_path):
    monkeypatch.setattr(torch.hub, '_hub_dir', None)
    for env in ({'TORCH_HOME': str(tmp_path / 'th')}, {'XDG_CACHE_HOME': str(tmp_path / 'xdg')}, {}):
        for k in ('TORCH_HOME', 'XDG_CACHE_HOME'):
            monkeypatch.delenv(k, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert wick.hub.get_dir() == torch.hub.get_dir()
    wick.hub.set_dir('~/x')
    try:
        assert wick.hub.get_dir() == os.path.expanduser('~/x')
    finally:
        wick.hub._hub_dir = None


def test_load_state_dict_from_url(tmp_path, capsys):
    state = {'w': [[1.5, -2.0], [0.25, 3.0]], 'b': [0.5, -1.0]}
    src = tmp_path / 'src'
    src.mkdir()
    plain = src / 'plain.pth'
    wick.save({k: wick.tensor(v) for k, v in state.items()}, str(plain))
    digest = hashlib.sha256(plain.read_bytes()).hexdigest()
    good = src / f'model-{digest[:8]}.pth'
    bad = src / 'model-0badbeef.pth'
    good.write_bytes(plain.read_bytes())
    bad.write_bytes(plain.read_bytes())
    for name, check in ((good.name, True), (bad.name, False), (bad.name, True), ('plain.pth', True)):
        outs = []
        for T in (torch, wick):
            d = str(tmp_path / T.__name__ / name / str(check))
            outs.append(_outcome(lambda: {k: v.tolist() for k, v in T.hub.load_state_dict_from_url(
                (src / name).as_uri(), model_dir=d, check_hash=check, progress=False).items()}))
            outs[-1] = (outs[-1][0], outs[-1][1].replace(T.__name__, 'LIB') if isinstance(outs[-1][1], str)
                        else outs[-1][1])
            if outs[-1][0] == 'ok':       # a second load reads the cache (no hash check then, as torch)
                assert T.hub.load_state_dict_from_url('file:///nonexistent/' + name, model_dir=d,
                                                      check_hash=check)['b'].tolist() == state['b']
        assert outs[0] == outs[1], outs
        assert outs[0][0] == ('RuntimeError' if (name, check) == (bad.name, True) else 'ok')
        if outs[0][0] == 'ok':
            assert outs[0][1] == state
    out = capsys.readouterr().out
    assert out.count('Downloading: "file://') == 8
    # file_name= renames the cached copy; the default model_dir is get_dir()/checkpoints
    wick.hub.set_dir(str(tmp_path / 'hubdir'))
    try:
        sd = wick.hub.load_state_dict_from_url(good.as_uri(), file_name='renamed.pth', progress=False)
        assert sd['w'].tolist() == state['w']
        assert os.path.exists(tmp_path / 'hubdir' / 'checkpoints' / 'renamed.pth')
    finally:
        wick.hub._hub_dir = None


def test_network_urls_fail_clearly(tmp_path):
    for url in ('https://download.pytorch.org/models/resnet18-f37072fd.pth', 'http://example.com/x.pth'):
        with pytest.raises(RuntimeError, match=r'wick\.hub: cannot download "' + url.replace('.', r'\.')
                           + r'": wick does not reach the network\. Put the file at .*'):
            wick.hub.load_state_dict_from_url(url, model_dir=str(tmp_path))
    assert os.listdir(tmp_path) == []     # nothing partial left behind


def test_install_as_torch(tmp_path):
    """A script that imports torch, torch.nn, torch.utils.data and torchvision runs on wick after
    install_as_torch(); a real torch already imported is refused."""
    script = textwrap.dedent('''
        import sys, wick
        wick.install_as_torch()
        import torch, torchvision
        from torch import nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, TensorDataset
        assert torch is wick and nn is wick.nn and F is wick.nn.functional and torchvision is wick.vision
        assert sys.modules['torch.utils.data'] is wick.utils.data
        assert wick.nn.__spec__.name == 'wick.nn'
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            assert str(e) == "No module named 'torch.no_such_module'", e
        print(type(torch.tensor([1.0])).__module__, nn.Linear(2, 1).__class__.__module__)
    ''')
    r = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(wick.__file__)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['torch', 'torch.nn.modules.linear']   # wick's classes name torch's modules
    r = subprocess.run([sys.executable, '-c', 'import torch, wick; wick.install_as_torch()'], capture_output=True,
                       text=True, cwd=os.path.dirname(os.path.dirname(wick.__file__)))
    assert r.returncode == 1 and 'RuntimeError: wick.install_as_torch(): the real torch is already imported' in r.stderr
