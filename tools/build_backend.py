"""A PEP 517 build backend with no dependencies: `pip install .` runs `make` and packs a wheel.

It builds the C library and the extension with the project's Makefile into a temporary build directory, then
writes the wheel (the `wick` package with `_C`) with zipfile. Only the standard library is used, so pip's
isolated build environment needs nothing from the network."""
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME, VERSION = 'wick', '0.1.0'


def _tag():
    impl = 'cp%d%d' % sys.version_info[:2]
    plat = sysconfig.get_platform().replace('-', '_').replace('.', '_')
    return '%s-%s-%s' % (impl, impl, plat)


def _metadata():
    return 'Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: PyTorch\'s shape in C\n' % (NAME, VERSION)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, '%s-%s.dist-info' % (NAME, VERSION))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'METADATA'), 'w') as f:
        f.write(_metadata())
    return os.path.basename(d)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory() as tmp:
        build, stage = os.path.join(tmp, 'build'), os.path.join(tmp, 'stage')
        shutil.copytree(os.path.join(ROOT, 'wick'), os.path.join(stage, 'wick'),
                        ignore=shutil.ignore_patterns('__pycache__', '*.so'))
        subprocess.run(['make', '-C', ROOT, '-j2', 'BUILD=' + build, 'PYEXT_DIR=' + stage, 'PYTHON=' + sys.executable,
                        'python'], check=True)
        wheel = '%s-%s-%s.whl' % (NAME, VERSION, _tag())
        distinfo = '%s-%s.dist-info' % (NAME, VERSION)
        records = []
        with zipfile.ZipFile(os.path.join(wheel_directory, wheel), 'w', zipfile.ZIP_DEFLATED) as z:
            def add(arcname, data):
                z.writestr(arcname, data)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
                records.append('%s,sha256=%s,%d' % (arcname, digest, len(data)))
            for dirpath, _, files in os.walk(os.path.join(stage, 'wick')):
                for fn in sorted(files):
                    path = os.path.join(dirpath, fn)
                    with open(path, 'rb') as f:
                        add(os.path.relpath(path, stage), f.read())
            add(distinfo + '/METADATA', _metadata().encode())
            add(distinfo + '/WHEEL', ('Wheel-Version: 1.0\nGenerator: wick build_backend\nRoot-Is-Purelib: false\n'
                                      'Tag: %s\n' % _tag()).encode())
            records.append(distinfo + '/RECORD,,')
            z.writestr(distinfo + '/RECORD', '\n'.join(records) + '\n')
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    files = subprocess.run(['git', 'ls-files'], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    name = '%s-%s' % (NAME, VERSION)
    with tarfile.open(os.path.join(sdist_directory, name + '.tar.gz'), 'w:gz') as t:
        for f in files:
            t.add(os.path.join(ROOT, f), arcname=os.path.join(name, f))
    return name + '.tar.gz'
