"""The playground's plotting API (no matplotlib): what the examples call to draw in the page's plot area.

    import plot
    plot.title('training loss')
    for step in range(200):
        ...
        plot.point('loss', step, loss.item())   # appends one point to a series; the page redraws as it runs
    plot.line([0.5, 0.25, 0.1], label='val')     # a whole series at once (x = 0, 1, ...)
    plot.clear()                                 # an empty plot area

In the page these calls reach web/worker.mjs (the JS module `_playground`); anywhere else (CPython, pin.py) they
draw nothing, so a program that plots prints the same under real torch."""
try:
    import _playground as _page
except ImportError:
    _page = None

__all__ = ['point', 'line', 'title', 'clear']


def _num(v, what):
    if hasattr(v, 'item'):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError('plot.%s: expected a number, got %s' % (what, type(v).__name__))
    return float(v)


def point(series, x, y):
    """Appends (x, y) to the named series."""
    x, y = _num(x, 'point'), _num(y, 'point')
    if _page is not None:
        _page.send('point', str(series), [x], [y])


def line(ys, xs=None, label='y'):
    """Draws a whole series: ys against xs (default 0, 1, 2, ...); replaces a series of the same label."""
    ys = [_num(v, 'line') for v in (ys.tolist() if hasattr(ys, 'tolist') else ys)]
    xs = list(range(len(ys))) if xs is None else [_num(v, 'line') for v in (xs.tolist() if hasattr(xs, 'tolist') else xs)]
    if len(xs) != len(ys):
        raise ValueError('plot.line: %d x values for %d y values' % (len(xs), len(ys)))
    if _page is not None:
        _page.send('line', str(label), xs, ys)


def title(text):
    if _page is not None:
        _page.send('title', str(text), [], [])


def clear():
    if _page is not None:
        _page.send('clear', '', [], [])
