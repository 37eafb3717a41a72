"""Compiles and runs the tutorial at the top of include/wick.h (under ASan+UBSan) and checks that it prints
what the same computation prints under real torch.  Usage: python3 tests/c/check_tutorial.py BUILD_DIR"""
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(root, 'build', 'asan')
header = open(os.path.join(root, 'include', 'wick.h')).read()
first_comment = header[:header.index('*/')]
code = '\n'.join(line[7:] for line in first_comment.split('\n') if line.startswith(' *     '))
code = code[:code.rindex('}') + 1]  # the tutorial: the indented block, up to main's closing brace
with tempfile.TemporaryDirectory() as d:
    src, exe = os.path.join(d, 'tutorial.c'), os.path.join(d, 'tutorial')
    open(src, 'w').write(code)
    cc = os.environ.get('CC', 'gcc')
    subprocess.run([cc, '-std=gnu11', '-g', '-Wall', '-Wextra', '-Werror', '-fsanitize=address,undefined',
                    '-I' + os.path.join(root, 'include'), '-I' + os.path.join(build, 'gen'), src,
                    os.path.join(build, 'libwick.a'), '-lm', '-pthread', '-o', exe], check=True)
    got = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
import torch  # noqa: E402  the reference: the same computation in torch
x = torch.tensor([[1., 2, 3], [4, 5, 6]], requires_grad=True)
(x * x).sum().backward()
want = repr(x.grad) + '\n'
if got != want:
    print('tutorial output differs from torch:\n--- wick\n%s--- torch\n%s' % (got, want))
    sys.exit(1)
print('header tutorial compiles, runs clean under ASan/UBSan and prints what torch prints')
