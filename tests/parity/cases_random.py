"""Random numbers, compared exactly (rtol=0, atol=0): generators and seeding, the state bytes (round trips
with torch's own bytes), rand/randn/randint/randperm/*_like/normal/bernoulli/multinomial/poisson, the
in-place samplers on every dtype and layout, interleavings through the cached normal, dropout.

The runner seeds both sides with manual_seed(crc32(case id)) before each case, so a case that draws from
the default generator compares torch's stream with wick's. Big outputs come back as a summary (shape, dtype,
first and last values, a CRC of every value) so the goldens stay small."""
import base64
import zlib

from .harness import *  # noqa: F401,F403

EXACT = dict(rtol=0, atol=0)
SIZES = [1, 15, 16, 17, 1000, 100003]
SMALL = [1, 15, 16, 17]


def summary(t):
    """A tensor as (shape, dtype, first four, last four, CRC32 of the repr of every value): exact, and small."""
    v = t.reshape(-1).tolist()
    return (t.shape, t.dtype, v[:4], v[-4:], zlib.crc32(repr(v).encode()))


def val(t):
    """The tensor itself when small, else its summary."""
    return t if t.numel() <= 20 else summary(t)


def state_crc(T, g=None):
    """CRC32 of the generator's 5056 state bytes (the default generator when g is None)."""
    s = T.get_rng_state() if g is None else g.get_state()
    return zlib.crc32(bytes(s.tolist()))


def xcase(name, fn, /, **kw):
    return case(name, fn, **EXACT, **kw)


def xcases(name, fn, /, **axes):
    return cases(name, fn, **EXACT, **axes)


# ============================================================================ generators and seeding
xcase("manual_seed_returns_default", lambda T: (T.manual_seed(3) is T.default_generator,
                                                  T.random.manual_seed(4) is T.default_generator,
                                                  T.random.default_generator is T.default_generator))
xcases("manual_seed_initial_seed", lambda T, s: (T.manual_seed(s), T.initial_seed(), T.random.initial_seed())[1:],
       s=[0, 1, 2 ** 31, 2 ** 32 + 5, 2 ** 63, 2 ** 64 - 1, -1, -(2 ** 63), 67280421310721])
xcases("manual_seed_stream", lambda T, s: (T.manual_seed(s), T.rand(5), T.randn(3))[1:],
       s=[0, 1, 2 ** 32 + 5, 2 ** 64 - 1, -1, -7])
xcase("manual_seed_low32_same_stream", lambda T: (T.manual_seed(2 ** 32 + 9), T.rand(4), T.manual_seed(9),
                                                  T.rand(4))[1::2])
xcase("manual_seed_float_and_tensor", lambda T: (T.manual_seed(3.9).initial_seed(),
                                                 T.manual_seed(T.tensor(11)).initial_seed()))
error_case("manual_seed_overflow", lambda T: T.manual_seed(2 ** 64))
error_case("manual_seed_underflow", lambda T: T.manual_seed(-(2 ** 63) - 1))
error_case("manual_seed_str", lambda T: T.manual_seed("a"))
error_case("generator_manual_seed_float", lambda T: T.Generator().manual_seed(1.5))
error_case("generator_manual_seed_bool", lambda T: T.Generator().manual_seed(True))
error_case("generator_manual_seed_str", lambda T: T.Generator().manual_seed("3"))
error_case("generator_manual_seed_tensor", lambda T: T.Generator().manual_seed(T.tensor(3)))
error_case("generator_manual_seed_overflow", lambda T: T.Generator().manual_seed(2 ** 64))
error_case("generator_manual_seed_no_arg", lambda T: T.Generator().manual_seed())
xcase("generator_manual_seed_returns_self", lambda T: (lambda g: g.manual_seed(5) is g)(T.Generator()))
xcase("generator_fresh", lambda T: (lambda g: (g.initial_seed(), state_crc(T, g), T.rand(6, generator=g),
                                               T.randn(3, generator=g), state_crc(T, g)))(T.Generator()))
xcase("generator_device", lambda T: (lambda g: (str(g.device), repr(g.device), g.device.type))(T.Generator()))
xcase("generator_device_cpu_arg", lambda T: (T.Generator("cpu").initial_seed(),
                                             T.Generator(device="cpu").initial_seed()))
xcase("generator_type_name", lambda T: (type(T.Generator()).__name__, type(T.default_generator).__name__,
                                        isinstance(T.default_generator, T.Generator)))
xcases("generator_vs_default", lambda T, s: (lambda g: (T.manual_seed(s), T.rand(7, generator=g), T.rand(7),
                                                        T.randn(20, generator=g), T.randn(20)))(
    T.Generator().manual_seed(s))[1:], s=[0, 42, 2 ** 64 - 1])
xcase("generator_draws_leave_default_alone", lambda T: (lambda g: (state_crc(T), T.randn(100, generator=g).sum(),
                                                                   state_crc(T)))(T.Generator().manual_seed(1)))
xcase("generator_independent", lambda T: (lambda a, b: (T.rand(3, generator=a), T.rand(3, generator=b),
                                                        T.rand(3, generator=a)))(
    T.Generator().manual_seed(10), T.Generator().manual_seed(10)))
xcase("seed_is_random_64bit", lambda T: (lambda s: (type(s).__name__, T.initial_seed() == s, 0 <= s < 2 ** 64))(
    T.seed()))
xcase("generator_seed", lambda T: (lambda g: (lambda s: (type(s).__name__, g.initial_seed() == s))(g.seed()))(
    T.Generator()))
error_case("generator_get_offset", lambda T: T.Generator().get_offset())
error_case("generator_set_offset", lambda T: T.Generator().set_offset(1))
error_case("generator_graphsafe_get_state", lambda T: T.Generator().graphsafe_get_state())
xcase("generator_clone_state", lambda T: (lambda g: (T.rand(3, generator=g),
                                                     (lambda c: (c.initial_seed(), T.rand(3, generator=c),
                                                                 T.rand(3, generator=g)))(g.clone_state())))(
    T.Generator().manual_seed(77)))


def _pickled_generator(T):
    import copy
    import pickle
    g = T.Generator().manual_seed(123)
    T.randn(5, generator=g)
    h = pickle.loads(pickle.dumps(g))
    d = copy.deepcopy(g)
    return (h.initial_seed(), T.randn(3, generator=h), T.randn(3, generator=d), T.randn(3, generator=g))


xcase("generator_pickle_deepcopy", _pickled_generator)

# ---------------------------------------------------------------------------------- state bytes
xcase("get_rng_state_layout", lambda T: (lambda s: (s.dtype, s.shape, s.is_contiguous(), s.requires_grad,
                                                    s[:32].tolist(), s[-12:].tolist()))(T.get_rng_state()))
xcases("state_after_seed", lambda T, s: (T.manual_seed(s), T.get_rng_state()[:40].tolist(), state_crc(T))[1:],
       s=[0, 1, 2 ** 63 + 5])
# the cached double normal (an odd number of scalar-path samples) shows in bytes 5024..5043
STATE_OPS = {
    "randn1": lambda T: T.randn(1), "randn2": lambda T: T.randn(2), "randn3_f64": lambda T: T.randn(3, dtype=T.float64),
    "randn16": lambda T: T.randn(16), "randn17": lambda T: T.randn(17), "rand623": lambda T: T.rand(623),
    "rand624": lambda T: T.rand(624), "rand625": lambda T: T.rand(625), "randperm50": lambda T: T.randperm(50),
    "log_normal5": lambda T: T.zeros(5).log_normal_(), "randint_2_40": lambda T: T.randint(0, 2 ** 40, (3,)),
    "bernoulli7": lambda T: T.zeros(7).bernoulli_(0.3),
}
xcases("state_after_ops", lambda T, op: (STATE_OPS[op](T), T.get_rng_state()[5000:].tolist(), state_crc(T))[1:],
       op=list(STATE_OPS))
xcase("rng_state_round_trip", lambda T: (lambda s: (T.randn(5), T.rand(4), T.set_rng_state(s), T.randn(5),
                                                    T.rand(4)))(T.get_rng_state()))
xcase("rng_state_round_trip_cached_normal",
      lambda T: (T.randn(3), (lambda s: (T.randn(3), T.set_rng_state(s), T.randn(3)))(T.get_rng_state())))
xcase("generator_state_round_trip", lambda T: (lambda g: (lambda s: (T.randn(7, generator=g), g.set_state(s) is g,
                                                                     T.randn(7, generator=g)))(g.get_state()))(
    T.Generator().manual_seed(5)))
xcase("state_default_into_generator", lambda T: (lambda g: (g.set_state(T.get_rng_state()), T.rand(5, generator=g),
                                                            T.rand(5)))(T.Generator())[1:])
xcase("set_rng_state_returns_none", lambda T: T.set_rng_state(T.get_rng_state()) is None)
xcase("get_rng_state_is_a_copy", lambda T: (lambda s: (T.rand(3), s[:30].tolist() == T.get_rng_state()[:30].tolist()))(
    T.get_rng_state()))
error_case("set_rng_state_wrong_size", lambda T: T.set_rng_state(T.zeros(10, dtype=T.uint8)))
error_case("set_rng_state_legacy_size", lambda T: T.set_rng_state(T.zeros(5048, dtype=T.uint8)))
error_case("set_rng_state_float", lambda T: T.set_rng_state(T.zeros(5056)))
error_case("set_rng_state_list", lambda T: T.set_rng_state([0] * 5056))
error_case("set_rng_state_invalid", lambda T: T.set_rng_state(T.zeros(5056, dtype=T.uint8)))
error_case("generator_set_state_list", lambda T: T.Generator().set_state([1, 2]))


def _patched_state(T, offset, value):
    b = T.get_rng_state().tolist()
    b[offset] = value
    return T.tensor(b, dtype=T.uint8)


error_case("set_rng_state_left_zero", lambda T: T.set_rng_state(_patched_state(T, 8, 0)))
error_case("set_rng_state_next_too_big", lambda T: T.set_rng_state(_patched_state(T, 17, 3)))
xcase("set_rng_state_next_narrowed", lambda T: (T.set_rng_state(_patched_state(T, 20, 1)), T.rand(3))[1])

# torch -> wick: states pinned from real torch (tests/rng/pin_states.py) are loaded on both sides.
PINNED_STATES = {
    'after_randn5': (
        'MSY1AQAAAABeAgAAAQAAABMAAAAAAAAACl+itAAAAADOz0BFAAAAAJ8DrOgAAAAAN6Mq8wAAAADMyVh3AAAAALAADAwAAAAA8+Hz8QAAAADFvI'
        'rZAAAAAIm0kpMAAAAAW6jA9gAAAAD7x0O5AAAAAJp5dpYAAAAAdP0RYAAAAAAaUNX4AAAAAKn0rLkAAAAAO2CA6gAAAAB6q3/fAAAAAGGRUFMA'
        'AAAACfWI7gAAAADpvC5xAAAAAJgPJ90AAAAAvOAc6AAAAAAxrybkAAAAAGuAxCEAAAAAgORklgAAAAAn6qxoAAAAAJPGmpEAAAAA7sRVQAAAAA'
        'CpuVlWAAAAAEI5u04AAAAACuKbqwAAAAC8OAfEAAAAAD0pxUEAAAAAeF+0hwAAAAA5quLbAAAAAHm+KF8AAAAATzdPogAAAABnkY8xAAAAACU6'
        'BNwAAAAANtR7+gAAAACColdmAAAAAMyY5YMAAAAAPCv7fQAAAABPrfsJAAAAAAL/sBsAAAAAKjsg9gAAAADrb+MIAAAAAFs4GCEAAAAA945E/A'
        'AAAABEFqUEAAAAAHbf8uQAAAAAyw+0BAAAAADhIkojAAAAAJUg938AAAAAeEGs3gAAAADDN9n0AAAAAFfZknoAAAAAgL2PaQAAAABOtGxZAAAA'
        'AERLfw0AAAAAV5aioQAAAABRhEd/AAAAADvYzyIAAAAAhiaoNAAAAAAlECP7AAAAAGEqEfEAAAAAt2gN5AAAAAALwwuQAAAAAILYsUYAAAAA6F'
        'iN/gAAAADde76BAAAAABr4jBwAAAAA4zsuBwAAAAAfhef5AAAAAA8TYDgAAAAAhL9DIwAAAADI2evoAAAAAOv1D/UAAAAAMx3+6QAAAAAQmWFf'
        'AAAAAMmvJsQAAAAA34SSKQAAAACY9VaKAAAAAEw/IkQAAAAANu65xgAAAADJlJB0AAAAAK4it5sAAAAAOQH6rAAAAABduDudAAAAAJpn1qUAAA'
        'AA+Zyt5wAAAACZHWXwAAAAAJ31wBgAAAAAqsNIUgAAAADfAlhPAAAAAOpfWBsAAAAAJoseSQAAAACwaYcIAAAAAM11S+0AAAAApCyJQgAAAABG'
        'Ay9yAAAAAOFW5GAAAAAAfLfIggAAAADXu14sAAAAACPAxP8AAAAA5xeZYgAAAAB7DGVvAAAAAAC0fFcAAAAAudxOFwAAAACdpTMeAAAAAJxKMU'
        'YAAAAAlGm4eQAAAADouTDmAAAAAB9Dm0MAAAAALDTOoAAAAACJmTd7AAAAABBs5nIAAAAA37LB4QAAAAA8QhG4AAAAALKC/lQAAAAAP4txRQAA'
        'AAAMVvofAAAAAPWzSggAAAAA6hFBGQAAAAAOnRddAAAAABBBHh8AAAAAbMGsgQAAAAADSgZKAAAAACi6MusAAAAABux/CgAAAAB4Z8OxAAAAAF'
        'heUFMAAAAAlLQj5QAAAADxDWOEAAAAAJbmUY0AAAAAMW1JtwAAAABjvSDkAAAAAExVQvgAAAAApYapowAAAACc03FiAAAAACAzIacAAAAAnrGp'
        'tAAAAAC4ZCAuAAAAAKTzb7YAAAAAt9Dm4AAAAAAq5nH6AAAAABIaqNMAAAAAny2i8QAAAAAi7DiQAAAAAAICPlAAAAAAUmJ0TQAAAAD2f36OAA'
        'AAAH5MrBYAAAAAbElIgQAAAACnEdtvAAAAAFxtF/gAAAAAlRJvpwAAAAAzY+ozAAAAAOQfm0QAAAAAFKE9gQAAAAB39uZSAAAAALKeR3cAAAAA'
        'kE+0pgAAAAC9f9n6AAAAAPZ9A8IAAAAArs6bjAAAAACY7hpDAAAAALle6jAAAAAAkdS93AAAAABE3mknAAAAAG3srNQAAAAApaWTXAAAAABz2o'
        'IDAAAAAFwNk/EAAAAA8h3IuAAAAAD1b3dFAAAAAGNSUc4AAAAAlEYaQwAAAACVAsmOAAAAAGgz2sMAAAAA4pdzygAAAACs1bvgAAAAAGJ+Ki0A'
        'AAAAl5zDWQAAAADcM1jVAAAAAHkObpoAAAAA+yKkVQAAAAAl0glPAAAAABvv2O4AAAAALAC0hwAAAACae0QfAAAAAN85iOAAAAAAjfS43gAAAA'
        'B1hKP8AAAAAB/oeT4AAAAALaVwKAAAAAD0PPVeAAAAAJ3YySkAAAAAFPaHOwAAAABYrdNSAAAAANiS4V0AAAAAIJRibQAAAABNpiTPAAAAALz4'
        'BOEAAAAAoJ8oPwAAAABnCjTZAAAAAKet3pkAAAAAMI5LIwAAAABr4vMPAAAAAAifWA0AAAAAhD1YBQAAAACa2dQLAAAAAGbb5ZYAAAAAW3NhRA'
        'AAAABEapfnAAAAAMo3QKQAAAAAAjNjNgAAAABVoXPqAAAAAD2IFswAAAAARCHROgAAAAAwryS9AAAAAO789Y8AAAAAmh/uhgAAAAC0z+G8AAAA'
        'AEHqDCIAAAAAjqsaTgAAAADsSb3cAAAAADBw+gMAAAAA2t3r+gAAAAC6V5+UAAAAAIhnZOQAAAAApoTXFQAAAABJCe0SAAAAAL5GFbMAAAAAa6'
        'EZNwAAAAAv6d7tAAAAAFe/FJ0AAAAAbqUqfgAAAABbpkTmAAAAAOQYAscAAAAA+4ZMPwAAAADXDW4oAAAAAIqaIPQAAAAAkLwEiQAAAAByiJrX'
        'AAAAAH+rwmIAAAAAn2mVIAAAAACSUbb/AAAAAJ3Z68YAAAAAIXHRJwAAAAAdOnxfAAAAAOEvhD4AAAAAjNqH1AAAAADQBHGIAAAAAN8Lk+EAAA'
        'AAYtkhKQAAAACnN28HAAAAAH8GRt8AAAAA4bwD6AAAAABioOi1AAAAAKXfSRMAAAAAgktsAAAAAAB2UXszAAAAALGaPgAAAAAAnL+5+wAAAAAq'
        'fFA6AAAAABNdCQgAAAAAD5FKLAAAAADRagJMAAAAAMvsi4AAAAAA33aQrQAAAABM63hYAAAAALtKx2kAAAAANRjEowAAAAANC0j3AAAAAGHFXm'
        'IAAAAATuxcFwAAAACUVk6GAAAAAAap0V0AAAAAjKazFQAAAABO77EiAAAAAPfqjYcAAAAAjyooKgAAAABSCPyzAAAAAMO3M3QAAAAAsFPucQAA'
        'AACZiLZmAAAAAIbh2FkAAAAA9aR3ggAAAAAjDDAEAAAAAKfyim4AAAAAskoJ1wAAAAC5e0TKAAAAAIrobC0AAAAA3krpxAAAAAC6DV8rAAAAAC'
        'w9ZbsAAAAAk+831gAAAAAFgkrOAAAAADQIfIoAAAAAbjr32gAAAAAOZkGLAAAAAMlnM8AAAAAA+r2e3QAAAACBbVeUAAAAAPEMmFoAAAAAxT/A'
        '0wAAAAAozuRNAAAAABwEJikAAAAAvWo69wAAAADO7SYZAAAAAH3HnYsAAAAA2MD6jwAAAABNoa+8AAAAAOZJg4wAAAAAydTGOwAAAACVVDdwAA'
        'AAAOCzwzIAAAAATFAWqAAAAAA0RzcOAAAAAJ0XrasAAAAA9vpYZAAAAABrwQocAAAAAASC9SYAAAAAD/gINQAAAABZNpsMAAAAAEG8WckAAAAA'
        'BLwCvwAAAAACP6UbAAAAACJ6ak4AAAAA6ummNQAAAABxTlqNAAAAAP9AmBMAAAAAdUWj8gAAAABqEHAjAAAAAEoxpbcAAAAARlr/mAAAAACs7+'
        'X6AAAAAL9XqsUAAAAABkOW1AAAAABcYCtRAAAAAJkP5NEAAAAATqmjSAAAAAAuXujMAAAAAHEOClkAAAAA4Zq68gAAAACz5hPbAAAAALsjzL8A'
        'AAAA4yAC5AAAAADx2C9yAAAAALG6LlYAAAAAPFggHAAAAAAA6fj9AAAAAJvGdOQAAAAAccU9CgAAAACEIFPQAAAAAKCMeFwAAAAA7ubwzQAAAA'
        'Ch6oAWAAAAAGUT3N8AAAAA5noz4QAAAABc0U5cAAAAAH2paNcAAAAAdWFWMgAAAAD6FNn4AAAAAE9axfAAAAAASgDr1QAAAABl196QAAAAADpw'
        'ra0AAAAA1U7dCwAAAACsveLRAAAAAPy2U0gAAAAAdjC3EgAAAAB4l3f/AAAAAN9naNMAAAAAUwx/MAAAAAC/QQ/iAAAAADUavl0AAAAASW9XLg'
        'AAAADg6hs9AAAAAEDQtN4AAAAAvOoPYwAAAADlWDptAAAAAF8kYVEAAAAASEk9zwAAAAA+T+Y1AAAAAGL0krsAAAAAz2rAtwAAAABtNYucAAAA'
        'ALh+bcQAAAAAHmT7rwAAAADlXrfeAAAAADJ8zyYAAAAArC5NVwAAAADI3AzwAAAAAM0PUyUAAAAAi5Of7AAAAACc6iYMAAAAAAXmxXkAAAAANn'
        'kXrgAAAABsEigWAAAAAF3aROUAAAAARTlXgQAAAAD79NhsAAAAAIY/2MQAAAAAFKpeNQAAAADx9roRAAAAALwulRYAAAAAyFsx/gAAAAAjzLMq'
        'AAAAAEW4DJ8AAAAAPxkfJgAAAAB5wft9AAAAAJ5jBzEAAAAA08cuDQAAAABYNTW/AAAAACneznIAAAAAoosxbQAAAADeNCG5AAAAALpfFsAAAA'
        'AAikeoLgAAAABKgpLfAAAAALcG56IAAAAAlMAE8AAAAABtF2ecAAAAAHSjjj0AAAAAMhIk/gAAAADngh1LAAAAAE4Et88AAAAACrColgAAAAAW'
        'CBYIAAAAADwdLUUAAAAAG1hVggAAAABiSjOqAAAAANCXD2kAAAAA9H0tUAAAAADnp8LvAAAAALTIUFQAAAAAjgXTqgAAAADo3THGAAAAAMPde4'
        'AAAAAAtvfYAgAAAAAs2D1WAAAAAPS6qFkAAAAAUcKUnQAAAADHwnhoAAAAAIhkoP8AAAAA/r7hCQAAAAABUD9SAAAAAMY7GCMAAAAAQFWRUAAA'
        'AAA19xNkAAAAAPeoJ9gAAAAAS/xcFQAAAADeVdIfAAAAAPUCR48AAAAAmK1vgAAAAAA8DIC3AAAAAJDmcrQAAAAAJ1cnVAAAAADQX3RJAAAAAN'
        'cNTyMAAAAAiBUYKQAAAAB6J4ASAAAAAHvKDVQAAAAA+1rcFAAAAAA/jl1KAAAAABTfnb8AAAAAWnh5DwAAAABrsSBOAAAAAIn7PlAAAAAAEUSw'
        'UQAAAABPikk6AAAAAN07a1cAAAAAnUSDlAAAAADJckBOAAAAAFl3OT4AAAAAsXUsAgAAAAAOmoLSAAAAAMmcIasAAAAAp+Zi4gAAAACWdtVhAA'
        'AAAFVoYFgAAAAAihJZ8wAAAADMHcNPAAAAAH8/knoAAAAAKWdBrQAAAAAuG+Y+AAAAAPz4OxAAAAAAZphabQAAAAArzmuuAAAAALNCr8oAAAAA'
        '5TqFTwAAAAAjH6/8AAAAAJLh0qsAAAAAuivawAAAAADfEzTaAAAAAJ2XRM8AAAAAV2saFQAAAAAatOBKAAAAAPjCqtEAAAAAXHYySAAAAADY1G'
        'O1AAAAAMDOCewAAAAAuvUpEQAAAACGCsuhAAAAAEDlq/AAAAAAM/37DAAAAABqhgjpAAAAAPI+Mp8AAAAAZB4XHwAAAAAuPLFHAAAAAH8WNDkA'
        'AAAANdqUbAAAAACE+6zwAAAAAMYL3YIAAAAAQF1O4AAAAACIXlJ0AAAAAER34yYAAAAAdWJAkQAAAACwu2P/AAAAAKpIsCkAAAAAcsUpxQAAAA'
        'A1jK+0AAAAAK8fUlgAAAAAkuhOYQAAAAA/iJZkAAAAAMKC3cQAAAAAmKQjXgAAAACeOhFmAAAAADMEWysAAAAAnIs13QAAAAA4en24AAAAANtI'
        'spEAAAAAsektmgAAAAACx2TJAAAAAK6xozIAAAAAsV+B/AAAAAAwRE5FAAAAALi5700AAAAAUTRbjQAAAAAL5pFKAAAAACiLr28AAAAAQGk+TQ'
        'AAAACHLUhvAAAAAPjOvYAAAAAA/PGkLgAAAABT0z5aAAAAAO6uuPMAAAAA/PbHqgAAAAA7Q67yAAAAAFtUCMUAAAAAAJus0gAAAACUpzkLAAAA'
        'ABuYJ+QAAAAAU+dxPQAAAACcDJ1LAAAAAOdh+QUAAAAAmimEkgAAAAAwg1AAAAAAAGn9A0YAAAAAyVc5ZgAAAACWdwF0AAAAAA8MAlwAAAAAV+'
        'ttzAAAAAC06JdXAAAAAHQ7ofIAAAAArgajgAAAAAAJVVXLAAAAABz8xB8AAAAALftTNAAAAACbUlRSAAAAAE7J61UAAAAA/Eou9wAAAABGJHSK'
        'AAAAAJ/B2moAAAAATHR+GAAAAACRjfepAAAAALR+S9cAAAAA+PzTdwAAAACjC/LqAAAAANG8rE0AAAAA87a4HAAAAAD8S4GHAAAAAGjhIu0AAA'
        'AAyykZhAAAAAC5rOGoAAAAADB3IzAAAAAAXXNpLAAAAAB7tjgXAAAAAAImXTUAAAAA4fYrwAAAAABSvkm/AAAAANCFn9QAAAAAUUd4BAAAAAB2'
        'RWQhAAAAAKLUC1EAAAAAFapsoQAAAAAnlIdSAAAAAOXE4iYAAAAAAfK6nAAAAAA30cItAAAAAPfmzuIAAAAAB7rqXwAAAACG/HSiAAAAAHkAsE'
        '0AAAAA1zcxTAAAAAAKG2xLAAAAAPtRfQQAAAAAu/ZYpwAAAACW89p7AAAAAFsWJAkAAAAAX8IZGgAAAACXMrwQAAAAANXDRz8AAAAAiFEdWQAA'
        'AACWarO1AAAAALM3RGoAAAAAolPZsQAAAABrtLTJAAAAAApT+ogAAAAAVmLpKwAAAABCIaEsAAAAAA68zvYAAAAAAAAAAAAAAADDsrejlK/yPw'
        'AAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAA=='),
    'after_rand1000': (
        'AwAAAAABAAD5AAAAAQAAAHgBAAAAAAAAnQljvwAAAAARY0+1AAAAABYzk7IAAAAADTQpsgAAAABnDz/2AAAAAN0ClF4AAAAAdlHdogAAAABV4V'
        'aGAAAAANxbMIoAAAAAHEWp0AAAAAC6x4L4AAAAAJCgUaYAAAAAxS433AAAAACxDq8FAAAAALjItA4AAAAAUXFkHQAAAAA9NsVSAAAAAJw1smUA'
        'AAAA6y1zYwAAAAC+e0eVAAAAAD/Sv18AAAAA+bHZ5wAAAAC1TL63AAAAAL3Zlo0AAAAA27rD2AAAAACJlYpqAAAAALzn2acAAAAAqmm40gAAAA'
        'D5z0GVAAAAAPWfrR8AAAAAKdHA5QAAAABTd/hiAAAAAOWJ8OYAAAAA3N7BvAAAAAAu9RjGAAAAAKX1SzUAAAAAFRBkfwAAAADxF+5/AAAAAB8l'
        '+zIAAAAAPn9tCAAAAAAf39qZAAAAAG52Fm4AAAAAzX5KZgAAAACptGUhAAAAAKhl6B0AAAAA9OmUDAAAAABwZvfHAAAAAH9vOYMAAAAAjWOwXQ'
        'AAAAAMTI0RAAAAAMjW+cMAAAAAAxb+WQAAAABUR8peAAAAAFmvYjAAAAAArqgWPAAAAAAnkVB/AAAAANssJzIAAAAAf08FAAAAAABmfN89AAAA'
        'AERk6FcAAAAAbyqDNwAAAAAoiyEdAAAAAJpTS7oAAAAASSq3bwAAAACqawXkAAAAAPFRrpwAAAAAiKMGagAAAABlGgx8AAAAAOZOJdAAAAAAPo'
        'tb6wAAAAACAgrSAAAAAFZ8bBYAAAAAN1RgyQAAAADv6FNGAAAAAF7VwAQAAAAAqwFdSwAAAADcNIcjAAAAAKmSIE4AAAAAObXd2wAAAAD/fK5p'
        'AAAAAOgFgdQAAAAApW4HmwAAAADFVlu4AAAAAKY7Vj8AAAAAgc7fjgAAAACKNqV+AAAAACC9A+oAAAAAogtMAAAAAACR6LCKAAAAAA1UWHMAAA'
        'AAqtOs0wAAAADghWgxAAAAAH+o+3UAAAAALJwXhwAAAABmgYveAAAAAEu0uKkAAAAAaPmpigAAAACqA44lAAAAALLZM+oAAAAAAud/YwAAAAAq'
        'MPmCAAAAACONlT4AAAAAwHDzlwAAAAA3HoYXAAAAACLL65kAAAAAPEHRYgAAAADIQvCAAAAAAHjccaIAAAAAKycC1wAAAACqfpqxAAAAANbQf0'
        '4AAAAAkkPpUAAAAABmyykoAAAAANjriq4AAAAAdRk60wAAAAD07Wg0AAAAAJsolmYAAAAA5mMFSgAAAADVKJ3sAAAAABUx6n8AAAAA0XZsEAAA'
        'AAA1JyavAAAAAHPrSfEAAAAADO60FwAAAABa2PFpAAAAADMdjGIAAAAAZ/iT0QAAAADZ8ETMAAAAABTSsV4AAAAAU39uGAAAAAA0R0EOAAAAAJ'
        'TmEjUAAAAAE9/T7AAAAAABoEj/AAAAAN/1pToAAAAAik58hQAAAABIMkRNAAAAAHJLOMEAAAAA6H4q2wAAAAAvkQaDAAAAAPtjpLgAAAAATrnw'
        'PwAAAAAT6Z4hAAAAABHcNA0AAAAAmJEB5AAAAAAMizNlAAAAAOpwHUEAAAAADkx4HQAAAAC9NGGMAAAAAGWBS7cAAAAAQNWMCwAAAABrGrPTAA'
        'AAAAW90rQAAAAAZ0ET1QAAAACg+uSYAAAAAAIOV6AAAAAAr+Un1QAAAAAKvip5AAAAANxwyvQAAAAAUdnWnAAAAACVhaEqAAAAAN1YIigAAAAA'
        'QbJLUQAAAACnOBThAAAAANHwV1cAAAAARqPA0AAAAACahUPdAAAAAMJiy+EAAAAA3vjGbQAAAADqfZXhAAAAAA7Ob5wAAAAAaX6gjAAAAAC0Pp'
        'D+AAAAAF3LSA8AAAAAP+FgRAAAAABjC9eKAAAAACWhSi4AAAAAvtNyvQAAAABgTP6bAAAAANARciAAAAAAPUn6AQAAAAA2Tv03AAAAAGoBJ+cA'
        'AAAAsIX5vwAAAACr9AiDAAAAAFDeSssAAAAA7dhrxgAAAADjUv0NAAAAAAW00V0AAAAA5WM4XAAAAAChE/oPAAAAAPg4kFUAAAAAe1prZgAAAA'
        'BvbwOsAAAAAMtky/EAAAAApvLrzQAAAACaP2F7AAAAAHvSx/sAAAAA9qPK4AAAAAAUkMsvAAAAADeHDKgAAAAAFofktwAAAABfyGBoAAAAAFXY'
        'H9AAAAAA12uHCQAAAACynrtRAAAAAJr1zWkAAAAAbCjxCQAAAAAlIiJJAAAAAM4BqDEAAAAAL/TjiQAAAAAI5v7wAAAAAEy6OAQAAAAARzEhIA'
        'AAAAAi9c/mAAAAAO1wZ3kAAAAAR7ip0gAAAAAqrA8+AAAAAC9bRYoAAAAAhtVtiQAAAADkwj9NAAAAAP3YsuMAAAAADzxR7QAAAACz8NSiAAAA'
        'AG8HPzgAAAAAYIjLYwAAAABGMsN0AAAAAHlxvvkAAAAAhMrkAgAAAADhm73wAAAAANSYXYUAAAAA8KS9wAAAAAACWyZ2AAAAAKuLD3QAAAAA/y'
        'VXqQAAAAAN6Tf/AAAAAGxi7W0AAAAAtEfGcAAAAAAUgh+XAAAAALzbRN4AAAAAfU4UWAAAAAAmcAs8AAAAAPrZM+wAAAAAu/s05gAAAAB3iYIZ'
        'AAAAAF19lQkAAAAAXKua0AAAAAApxwx2AAAAAOlxmx4AAAAAhYalNQAAAABsItrmAAAAAG2r5koAAAAAT4BSTwAAAAB8GhuBAAAAADrXXTkAAA'
        'AAdaumnwAAAAC5pmxBAAAAAGSjLm4AAAAAoxjeZAAAAAAnSQQ4AAAAAPk7rIIAAAAAtZkkPQAAAAAnWmWHAAAAAI2vsfoAAAAAivctmAAAAACE'
        'rKlgAAAAADSfqL8AAAAADXT02AAAAABeiyE+AAAAAOOBVX8AAAAAuEy7ewAAAAAogGuLAAAAAPSNEcwAAAAAwoywbAAAAAAb3ydLAAAAADPLV7'
        'kAAAAAaE7WjgAAAABJ2zfbAAAAABrjppMAAAAA/V0DBQAAAACOYj4BAAAAAC+w5zYAAAAAHchuhQAAAACf51KeAAAAAM3BFqkAAAAAfelCzwAA'
        'AAAg6wWwAAAAAOkTgCsAAAAAgmUxIwAAAABUvyYcAAAAAG7dYM8AAAAAQJvl2AAAAABpLowEAAAAAAFTY1QAAAAACqEdeAAAAACH6zFIAAAAAM'
        'dc/jIAAAAAoJxqGwAAAACYf+UkAAAAANJ4FWUAAAAAcWas1wAAAAAJf+sGAAAAAIE6TgUAAAAALU679wAAAADKfY2OAAAAAJJloX4AAAAAhCoQ'
        'kwAAAABhxUrUAAAAAFIr5dAAAAAAsa9rOAAAAAAAcatwAAAAAO+yvOQAAAAAvxFJvwAAAAB7PH64AAAAACHGHVQAAAAAz3Dt7AAAAACYUp1BAA'
        'AAAA30toMAAAAAP461NgAAAAB7cXC0AAAAAEYKt4AAAAAAkLk/qgAAAABOIe/KAAAAABaHc90AAAAAUEooQwAAAAC3Hhp6AAAAAJrHu0kAAAAA'
        'qqCvMgAAAABtrYuyAAAAAA764g0AAAAAuYmI1wAAAADdHyHzAAAAAGWPXRYAAAAAsmU4/wAAAABmApQJAAAAAGj8dNAAAAAAwmB7ugAAAABAUJ'
        'ozAAAAAF2161UAAAAA88zUxAAAAABhE18XAAAAAB3UJvAAAAAArA2nSAAAAADgqiHgAAAAAGvRcMYAAAAAuYFqpgAAAAAhJ6l1AAAAALSv3BsA'
        'AAAAJEDX1gAAAABavKb+AAAAAL8y3yEAAAAAmzbxrQAAAAAaeuTcAAAAAB9nY40AAAAA5l9h2wAAAAB0X3drAAAAAPw2rS8AAAAAMMsfGwAAAA'
        'DiJWu+AAAAAMw9alIAAAAACUUiDQAAAAAT6FCbAAAAAHN8lUMAAAAAODIjywAAAAAdUhHaAAAAAIFbuRUAAAAApa0bpQAAAAAaqmEYAAAAACii'
        'JL0AAAAAyvHMBQAAAABKXsiJAAAAABaVYF8AAAAAaQokKQAAAACxZOtrAAAAAHRD72sAAAAAFulukwAAAADWr4L4AAAAAORXsI0AAAAAUAiagA'
        'AAAACRggvKAAAAAPp+iQ8AAAAAfvzhugAAAAAwbaCSAAAAAN9HhawAAAAAAN8EswAAAAB+KCh7AAAAAFGO3pQAAAAAPmr6GQAAAABtjpOKAAAA'
        'AK9hBh4AAAAARPuLUgAAAACOVlb2AAAAABH3f9kAAAAANwpS9wAAAAAdAii9AAAAAC21GOwAAAAA1EDjmQAAAADhfiBeAAAAALC+CyYAAAAAWb'
        'V9ogAAAACdrNzPAAAAAIFKoMEAAAAAr+98lQAAAADc+hd0AAAAABs8/XQAAAAAyZCJUAAAAADkx06UAAAAAM6Gb3gAAAAAc+4+lwAAAAD9JMZP'
        'AAAAADSWeo4AAAAA+Ghf1QAAAAD5TJ3fAAAAAND3cvAAAAAATosklQAAAABfwZb8AAAAANeKjvoAAAAA5iF7BQAAAAB9lV2CAAAAANJKbUkAAA'
        'AANYQXgwAAAADa74l9AAAAAEUQhJkAAAAAHXUDowAAAAB0SbU2AAAAAE2vlmYAAAAAkKnq+wAAAACY4WXIAAAAANBEZbwAAAAAY1kPUwAAAADl'
        'wu42AAAAALm6q/wAAAAAOrgZpwAAAAC5kfa1AAAAAMHHh60AAAAAMPFBoAAAAABQauasAAAAAKqa7gYAAAAAlcNT3AAAAADxMB95AAAAAIyJcY'
        'AAAAAAQcYzUAAAAADMBj+UAAAAAIV9vmYAAAAAw+2AKwAAAACsjWSOAAAAAArS12UAAAAAtHSB9wAAAADeYivaAAAAAEPRPG4AAAAAmnmW2QAA'
        'AADy0yWtAAAAAIwYsCMAAAAADyvD6AAAAAA/LZ7ZAAAAAHDQIJEAAAAAKHZVyAAAAACnc6V+AAAAANLwkKoAAAAANWTUcgAAAABSIAcnAAAAAI'
        'FcgrMAAAAAHYjvDQAAAADIrO27AAAAAEGLRJ0AAAAAopVy2QAAAACQEAztAAAAANdy+UoAAAAAjHtBeAAAAABip4JoAAAAAJatVIcAAAAAFuTl'
        'wAAAAADgTsQVAAAAAJmi7psAAAAA5Vn2TQAAAAD0uAJmAAAAAHCAg5oAAAAA9yHsTAAAAAD45UDDAAAAAE3wx4QAAAAAU0DmywAAAABsbLxgAA'
        'AAAITqnO4AAAAA1o2b9wAAAAACnSabAAAAAPBwIcIAAAAA+7Ys+gAAAAByixLoAAAAAG7z6yMAAAAAO44rqwAAAAAYHoT3AAAAAIAqV88AAAAA'
        '4ZFSlAAAAADkU8ghAAAAAPBO9zsAAAAAdGykwAAAAAAsiaNOAAAAAPjsTeAAAAAAxC03qAAAAAChM4llAAAAAKl3DlgAAAAAy4oXtAAAAADFDE'
        '+QAAAAABHhFB8AAAAA+LfhQgAAAAAgi3hyAAAAABr94lgAAAAAwfQNEwAAAADgJgTkAAAAADkWzIgAAAAAU5G0sQAAAACMSr+8AAAAAOm3ciEA'
        'AAAAAd2DRQAAAADMKoWwAAAAAPWsLWgAAAAA9DtZ8QAAAABjFBDLAAAAAO5+X7YAAAAAgUtvFwAAAACh7jz6AAAAAFF35oYAAAAA1euYVQAAAA'
        'CVEv39AAAAALQhL2cAAAAAZDq26QAAAAAyFbv6AAAAAGYTJ3kAAAAAcwjEsAAAAAD1YuuxAAAAALZPhw0AAAAAz/qCdAAAAAD0wNErAAAAAA9G'
        '/FIAAAAAqQU0vAAAAAA+ZdkUAAAAAPU+LdYAAAAAP0MWiwAAAAA8kqhdAAAAAFRnqL8AAAAACtRDywAAAAC4S+Z8AAAAAAIXDQAAAAAAa61kEA'
        'AAAAA7OmoAAAAAAAd43XUAAAAA/ojx0AAAAAALCcY/AAAAAHL5QtEAAAAASfh3oQAAAACRqqPdAAAAAKIzVcwAAAAAT5CRLQAAAABMuMhYAAAA'
        'ABmX/asAAAAAwC+DbwAAAADciSeVAAAAAHM+22IAAAAAJlWMswAAAADzcy48AAAAADvQ8iAAAAAAZuiBRQAAAAARZCsqAAAAAPxQOxAAAAAAKI'
        'OxLQAAAAA+CiFDAAAAAJZZ/PUAAAAAfNvYuQAAAAAPUgoxAAAAAJhhz6cAAAAApBoZ/gAAAAC5CSnsAAAAANAXezkAAAAA4ely6AAAAADROEVu'
        'AAAAAFd5+uUAAAAAFoiZgAAAAADhEylgAAAAAAjLu68AAAAAZ3Mp1QAAAADQeOV4AAAAACpTzvsAAAAAB+svfgAAAABbe5/4AAAAAPWg/4MAAA'
        'AA3C+MdwAAAADsMWMWAAAAAMvLdYwAAAAALi5TLQAAAAAMbRf0AAAAAMmmbiUAAAAAuwN4SQAAAADsqMSzAAAAAGhdXI8AAAAA/TUbUAAAAACd'
        '9Q//AAAAAERyz1MAAAAAOhOGvgAAAADL9bRyAAAAAG6kyNwAAAAATDJoAwAAAAAzSY5zAAAAADj/5TMAAAAAwUAmqwAAAAAhwIRVAAAAAFxV9n'
        'UAAAAAQSNAsAAAAAD8mCiUAAAAAMCHoRoAAAAAIrRTNwAAAACbK7zoAAAAACNoaU0AAAAArHrO9gAAAABuza9NAAAAAOaEnK0AAAAAX5TfKwAA'
        'AADWtG56AAAAAPf931oAAAAAuAkUMAAAAADLs9IsAAAAALAXwHkAAAAATV2RZwAAAAClOAvVAAAAAMV0Wl8AAAAAAAAAAAAAAAAAAAAAAAAAAA'
        'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=='),
    'generator_3': (
        'AdGc8TA9AABuAgAAAQAAAAMAAAAAAAAAHddfrgAAAAB5Vk7qAAAAAA85HQQAAAAAhYfATgAAAAB7I2V2AAAAAJLmAJ0AAAAA22rZCwAAAAC/eB'
        'lsAAAAALSV6tEAAAAAONCvFwAAAAA7RT1FAAAAAOASir8AAAAA0vwSkAAAAACFskV2AAAAABmRGl0AAAAAkfff8wAAAAAFNsGaAAAAAERbEsQA'
        'AAAAPB1F5QAAAACYCA2PAAAAAK1zM6EAAAAAOcz58wAAAADfJIgmAAAAAC8Vox4AAAAAwKQbxQAAAADiFZEvAAAAANCZG20AAAAAk4Q+wwAAAA'
        'AnxmzeAAAAALX1ZHcAAAAA+nFK3AAAAABMDYjMAAAAAPY8wBsAAAAAAHyvCAAAAAAXp+JoAAAAADCQEgEAAAAA7P426gAAAAAVrI2SAAAAAGC8'
        'BVcAAAAADMMOrQAAAAB6KM8IAAAAANoPJuoAAAAAEVdg9QAAAAAQ+/ppAAAAAGz9Qt4AAAAAaPeGfAAAAACES/U8AAAAAEg32uUAAAAA3/Fflg'
        'AAAACx+bLSAAAAAJwQFIgAAAAAJLAH9wAAAADOhgWyAAAAAF5JX+gAAAAAcrKNWQAAAABegHx9AAAAAFEtyyMAAAAAKUteSAAAAAA4SvNAAAAA'
        'AEujfuMAAAAAO530WQAAAABVXprYAAAAAKbGtMYAAAAAMK8/DwAAAAAZIqvgAAAAANG4T98AAAAA7FNGNAAAAAArVnD1AAAAAPjTmBYAAAAAiQ'
        'sFyAAAAACRpC81AAAAAI3Iv/UAAAAAICNZHQAAAADsIaDjAAAAAAhgLP8AAAAAdK4qfAAAAACr5ISyAAAAALHYqJYAAAAA1SmKWgAAAADQfnCY'
        'AAAAAJPQb8MAAAAAHmHR+gAAAAAyeacWAAAAAIHYmPAAAAAAxiN1iwAAAACOUgCiAAAAACcarBgAAAAAegOTeAAAAAAiHWWJAAAAAH9RtDwAAA'
        'AANxDOQQAAAAB4tIANAAAAAHJY/4MAAAAAmAW8TQAAAADwRzLEAAAAACJEhroAAAAAtqpKfgAAAABJf3RmAAAAAPJPuB4AAAAAoK9uEwAAAADX'
        'W9o0AAAAAPL6j8cAAAAAKz4Y1AAAAAD9my09AAAAAKZsaU8AAAAAQyJbqAAAAAC/xu1mAAAAAPmJUaEAAAAAp+WxTgAAAAC1AvBtAAAAAJDZHj'
        'MAAAAA+KILngAAAACoL+7jAAAAAK7U1X8AAAAAMHaIGAAAAADGT8qNAAAAAKkeN/8AAAAA32QiwQAAAACXPuOGAAAAALDXd+cAAAAARzj6OQAA'
        'AABD8cKMAAAAABpx4ZsAAAAAYh+BPAAAAABBFp17AAAAAN9O0YQAAAAA5ZY8sQAAAAAb3o+OAAAAAL5uuuUAAAAAPw2bCgAAAAD7+IfaAAAAAA'
        '7EH4QAAAAAsBGSJgAAAAA+lMUdAAAAAO0RECgAAAAASAgkXwAAAACOFBhCAAAAAB3KbkAAAAAAAsGaGgAAAABsb1baAAAAAITS0LUAAAAALfnf'
        'CwAAAABWlGYeAAAAAKpXlYIAAAAAXV3lfgAAAACDrPQsAAAAAKuOncEAAAAAkrdiLgAAAAB5c2nlAAAAAKdABtEAAAAAyJvTUwAAAAAkyF3tAA'
        'AAAJXNCNYAAAAADCdKHQAAAADu1rAEAAAAAGDXQekAAAAAVo5V2gAAAABYn2M7AAAAAPgAw1UAAAAAseUOAgAAAACneW8QAAAAAPk3KxQAAAAA'
        'I8UFmAAAAAAbSqCCAAAAABtroboAAAAAN7oQbQAAAACBJtppAAAAAIQCj3oAAAAAxICtYgAAAAB8g1tkAAAAAEKi+oUAAAAAtn8kswAAAADg5n'
        'FXAAAAABIY/jMAAAAAYviPCwAAAADvmf2UAAAAAELjMJIAAAAAii6FHgAAAADdWkmvAAAAAAGCUcQAAAAADXmtEwAAAADgBKBgAAAAAL1kscYA'
        'AAAAMyYPmAAAAABafySEAAAAANTUPMMAAAAA2CcF+wAAAABp83NgAAAAANBGVvkAAAAAs4/WcwAAAAD1wl37AAAAAKuZ5ycAAAAA3wMtWgAAAA'
        'DE5/+eAAAAAJmVTCsAAAAA7s438gAAAADAM7DQAAAAAI7i6AEAAAAAefxVZQAAAACkoy33AAAAAChiEeAAAAAA30guxQAAAACAy/iYAAAAAODu'
        'GkgAAAAAnPInQwAAAADacLQAAAAAAPApSMcAAAAALhJiMAAAAABRGh/hAAAAAOL3B6YAAAAArgPXagAAAADhxstYAAAAAG/b1cgAAAAA5Y2yxg'
        'AAAAAi+DPZAAAAAOhC5WUAAAAAq3QL+QAAAACcXxfTAAAAADz/iRcAAAAAp38WBwAAAACK7X/yAAAAAMLIdBQAAAAATVNh4QAAAAD+TT0EAAAA'
        'ACD9WwoAAAAAgYiGXwAAAAApGM7RAAAAAJHa3acAAAAACKIlewAAAADgDK3EAAAAAJOGp3EAAAAAnRGwuwAAAACt+6D2AAAAAJmmVsIAAAAACx'
        'JyGQAAAABHF4loAAAAADU3/5kAAAAA5ziu7QAAAACZ38E0AAAAAAD7aWUAAAAAwy+13AAAAABoxGItAAAAAM2dmaIAAAAAwwT2ogAAAAAPmHLd'
        'AAAAAJG78L8AAAAA+++dHAAAAADNRAZ1AAAAABzN2IgAAAAAY+gh1AAAAAB8q1eLAAAAAM7jCgcAAAAAo88BfAAAAAD0fKJNAAAAAPX0yc0AAA'
        'AAmSjj8wAAAAA72K4mAAAAAH2GTMIAAAAAzONgCgAAAACGW2qGAAAAAED41yEAAAAAEqz3qgAAAACthVZYAAAAAJlyjtAAAAAAdWC9hQAAAACq'
        'N0IRAAAAAOQyiToAAAAAI/0v/wAAAADM8pgpAAAAAO+aYDwAAAAALzfARQAAAAADyn8ZAAAAAMOKCUAAAAAA6SdwnQAAAAC/WSo7AAAAAASSeT'
        'IAAAAA7aczGAAAAADE0LxIAAAAADhQNr0AAAAAVuFllQAAAABptfvjAAAAAKnVBwkAAAAADpNQgwAAAACoIy46AAAAAJBbf4QAAAAAmFnr2AAA'
        'AACzEPqKAAAAAJsqgpMAAAAArHmrrQAAAABiNCgnAAAAADzhpOYAAAAAyFYs+QAAAACsbuMHAAAAAKedDMQAAAAAA8J9bwAAAABzYx39AAAAAO'
        '6uF0gAAAAACkza2gAAAACcuKQgAAAAAHGHzr0AAAAAr4sNbwAAAADtmpQ3AAAAAOUPzQ8AAAAAC0hYFwAAAADdXcgRAAAAAI+vOYoAAAAAsJXY'
        '8gAAAABgYlh6AAAAAJogmR8AAAAAsJXiEgAAAAC7iSVDAAAAAFYAlMcAAAAAgEPaTgAAAACKPc55AAAAAFZ7PzYAAAAAfWLz0gAAAAC5+Z+ZAA'
        'AAACBKqwsAAAAAFd5blQAAAAAhp3c7AAAAAAZtuJ8AAAAAvKG1BgAAAABx3GyWAAAAAHpTGc8AAAAAt8/Y9gAAAADYDhjPAAAAAF/4tBAAAAAA'
        '6HTvLgAAAAA3mHIhAAAAAGdmMbgAAAAAqdyFAQAAAAAFAb7DAAAAAAahGqsAAAAAX3EWbAAAAAAhVY8pAAAAAGV2JPAAAAAA3mR0igAAAAA90H'
        '0oAAAAAKLP8GYAAAAAFiawhgAAAAAWAFggAAAAAJiYUm4AAAAAzRBx2wAAAACqfSHEAAAAAPaDwIwAAAAA4qWy3AAAAAAeDvAAAAAAAJmx62kA'
        'AAAANf0GRwAAAABs2rF4AAAAAEp+rugAAAAAS2xCxQAAAAC5/VsGAAAAAFoYaCIAAAAAspT+xAAAAADhiP/zAAAAAM0G5oEAAAAAAvtTWgAAAA'
        'BqDeC3AAAAAFDm4sUAAAAAy26LzgAAAABsqoX9AAAAAKsQjAEAAAAAbtfIEQAAAAC5yzGIAAAAAC3sZroAAAAA1B/JVAAAAADzIXtpAAAAADUR'
        'nn8AAAAAagqPlgAAAABR6LKQAAAAAAHVpBkAAAAAnfuXVwAAAADchTgbAAAAACQB8QoAAAAAmoJtRAAAAAC1kmQ4AAAAAPG8vx8AAAAAwYNiUg'
        'AAAACQfy2aAAAAAGR+BLUAAAAAY022VAAAAABELeQcAAAAADTRAbgAAAAARUZlJwAAAAA1pGQtAAAAAOSa+gYAAAAAQUmJZwAAAABhmHpqAAAA'
        'AC6YaF0AAAAAS7GdjQAAAABPnIC0AAAAAKUYDpQAAAAAp0hBXQAAAABfG9UmAAAAAAxd+jYAAAAAsCGJlQAAAAAE78CRAAAAAKOzYFUAAAAAPz'
        'nzIgAAAABkd3M8AAAAADXYIiwAAAAAII/8jgAAAAA3JHuZAAAAANtbQ+EAAAAADLVnqQAAAAAF39MAAAAAADcGv5YAAAAAOFO8UQAAAAB+W50r'
        'AAAAANJqykkAAAAAc7jbJQAAAABK4KI+AAAAAKzQ6v4AAAAAJfY+zgAAAAC6g/+SAAAAAAlkRycAAAAAxkmT5QAAAACEH4+8AAAAADRRyuAAAA'
        'AAoMvSXgAAAAChAZTxAAAAAKqkHJcAAAAAoBxeFgAAAADzm0d8AAAAANVD+6oAAAAAJnzEsAAAAACtKGaIAAAAAEKHvrgAAAAASlF0fQAAAAAf'
        'hi7MAAAAAGlooe0AAAAAb91xhwAAAADtOtsNAAAAAFWuAUsAAAAAnV+AdwAAAADuVqSAAAAAAN/3wpoAAAAAv0HM6gAAAACuNO7aAAAAADvcgG'
        'AAAAAAYLeY3gAAAADQZSPKAAAAAKr6FvMAAAAAnem4OgAAAADm8iVPAAAAAJnuX7YAAAAALyqF5wAAAADkaTe/AAAAAPScYoMAAAAA0nyLfQAA'
        'AAAP+jqwAAAAAKmzMrkAAAAA2MbNuQAAAADX8LTNAAAAAOP7J8sAAAAA8uMrGQAAAAA0cKDmAAAAAMhFoNMAAAAAU8NBRAAAAADAw4UeAAAAAA'
        'jgz/UAAAAAK7rO5AAAAAA+OQtcAAAAANi7COIAAAAAXaBmBwAAAABVYLUxAAAAALDpyfkAAAAA/9btZgAAAACzuB+0AAAAABp3iHwAAAAALMQc'
        'VwAAAACamqaCAAAAANLub44AAAAAY+XkSwAAAACF0GUwAAAAADCLeEYAAAAA4aoCbgAAAABPmKrPAAAAAGGmA4MAAAAA12iRhAAAAABeBgMTAA'
        'AAAPE5h88AAAAA9b0I4wAAAAAnaDbUAAAAALnX5C4AAAAASU8YrwAAAADOig66AAAAAI5kDqUAAAAALCd9XgAAAAAzXyszAAAAAM9TU8gAAAAA'
        'LXT0kgAAAAD96oLEAAAAAIab/C4AAAAAInV06wAAAAB0oYZmAAAAAJTZMC4AAAAAcMKOPwAAAAC6Jr66AAAAAE6zPTUAAAAA7MU5KwAAAABhOt'
        'uLAAAAALPrXhcAAAAACRA7wwAAAADJyCREAAAAAKooeScAAAAApDMn5AAAAACpgbCZAAAAAJb8HXAAAAAA6h7R1wAAAAAcAMjLAAAAAOZ90xEA'
        'AAAAVDLtBgAAAABXR8KDAAAAANIHapkAAAAAspCtewAAAABEAQCVAAAAAMbbVOwAAAAAJkuNOAAAAACO8lnpAAAAAKN6OI0AAAAAFxt0JgAAAA'
        'ArnwahAAAAAJ0mDlwAAAAAYmRCqQAAAAArCR/NAAAAAEwiUMwAAAAAK7Ej1AAAAAADnYoOAAAAABPzdJUAAAAA2I0zxwAAAACrgOLDAAAAAI9L'
        'd9sAAAAA+UlXVAAAAADzwO3XAAAAAD2W2TIAAAAABJggzQAAAAD20PTEAAAAAK6z7VcAAAAAzGclpwAAAACX/p2uAAAAAIAzgq4AAAAA9coTLQ'
        'AAAADwbxWuAAAAAIKTdPAAAAAA0wA7YgAAAAD3I3zDAAAAAKGE/M8AAAAA4cEyJgAAAACbSwtVAAAAAMmimg4AAAAAniSbeAAAAAAtGEoIAAAA'
        'AEPdNt4AAAAA7Yc4KQAAAACg6nkmAAAAANCwvvsAAAAAINyqOwAAAAAZGfXHAAAAAP4G5wYAAAAArsQzoQAAAAA5zDzxAAAAABUofPUAAAAA2W'
        'SSKgAAAADWI1MYAAAAAIQF1osAAAAAoCsLIwAAAACtjXT7AAAAAJRe2yoAAAAAFWYcMQAAAACVBErJAAAAABBzakwAAAAA7B/l7gAAAACmrc/O'
        'AAAAANBjTREAAAAAp9+grQAAAAAiJD1QAAAAAMBWak4AAAAAO5tn9AAAAABW8HuQAAAAAE/57q4AAAAAo47AmAAAAADyOeYcAAAAADWS0EsAAA'
        'AAGWRA0wAAAABnDQLiAAAAADKmmREAAAAAUKZWuAAAAACTavdOAAAAAI5WZ68AAAAAuu07gwAAAAClxwM0AAAAACUxBcIAAAAA8e0FSwAAAADh'
        'f9qjAAAAAKWz/+wAAAAArQo0XQAAAABJiqhKAAAAAGRSSR4AAAAAB/2m0QAAAACIYl+aAAAAAECxdigAAAAALUwQ2wAAAAAfjrukAAAAAEUUkE'
        'kAAAAA5zpLWQAAAAA07O1kAAAAAIoogBgAAAAA/XCzSwAAAAAiE65HAAAAAF8UkHgAAAAAnlsDrwAAAACSGG2pAAAAAH6XC9MAAAAAmLBhKwAA'
        'AAD9ywuzAAAAAB078MYAAAAAs7cRHAAAAACg6ZqTAAAAALLDk70AAAAAtqpLEQAAAAB+Q9dkAAAAAOF6rhsAAAAAAAAAAAAAAAAAAAAAAAAAAA'
        'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=='),
}


def _pinned(T, name):
    return T.tensor(list(base64.b64decode("".join(PINNED_STATES[name]))), dtype=T.uint8)


xcases("pinned_state_draws", lambda T, which: (T.set_rng_state(_pinned(T, which)), T.initial_seed(), T.randn(3),
                                              T.rand(5), T.randn(20), T.randint(0, 100, (5,)), state_crc(T))[1:],
       which=["after_randn5", "after_rand1000", "generator_3"])
xcases("pinned_state_bytes_unchanged", lambda T, which: (lambda s: (T.set_rng_state(s),
                                                                   T.get_rng_state().tolist() == s.tolist()))(
    _pinned(T, which))[1], which=["after_randn5", "after_rand1000", "generator_3"])
xcases("pinned_state_into_generator", lambda T, which: (lambda g: (g.set_state(_pinned(T, which)), g.initial_seed(),
                                                                  T.randn(5, generator=g)))(T.Generator())[1:],
       which=["after_randn5", "generator_3"])


def _fork(T):
    a = T.randn(3)
    with T.random.fork_rng():
        b = T.randn(3)
        T.rand(100)
    c = T.randn(3)
    with T.random.fork_rng(enabled=False):
        d = T.rand(2)
    return a, b, c, d, T.rand(2)


xcase("fork_rng", _fork)

# ================================================================================= factories
xcases("rand", lambda T, n, dtype: val(T.rand(n, dtype=dtype)), n=SIZES, dtype=FLOATS)
xcases("randn", lambda T, n, dtype: val(T.randn(n, dtype=dtype)), n=SIZES, dtype=FLOATS)
xcases("rand_shapes", lambda T, shape: val(T.rand(shape)), shape=[(), (0,), (3, 5), (2, 0, 3), (4, 1, 6)])
xcases("randn_shapes", lambda T, shape: val(T.randn(shape)), shape=[(), (0,), (3, 5), (2, 3, 3), (4, 1, 6)])
xcase("rand_varargs_list_size", lambda T: (T.rand(2, 3), T.rand([2, 3]), T.rand(T.Size([3, 2])), T.rand(size=(2,))))
xcase("randn_varargs_list_size", lambda T: (T.randn(2, 3), T.randn([2, 3]), T.randn(size=(4,))))
xcases("rand_generator", lambda T, n: val(T.rand(n, generator=T.Generator().manual_seed(n))), n=SIZES)
xcases("randn_generator", lambda T, n, dtype: val(T.randn(n, generator=T.Generator().manual_seed(n + 1), dtype=dtype)),
       n=SIZES, dtype=FLOATS)
xcase("rand_generator_none", lambda T: T.rand(3, generator=None))
xcases("rand_requires_grad", lambda T, f: (lambda t: (t, t.requires_grad, t.is_leaf, t.grad_fn))(
    getattr(T, f)(4, requires_grad=True)), f=["rand", "randn"])
xcase("rand_default_dtype_f64", lambda T: (T.set_default_dtype(T.float64), T.rand(5), T.randn(5))[1:])
xcases("rand_int_dtype", lambda T, f, dtype: getattr(T, f)(3, dtype=dtype), f=["rand", "randn"],
       dtype=[D.int64, D.int32, D.uint8, D.bool], kind="error")
error_case("rand_generator_wrong_type", lambda T: T.rand(3, generator=5), match=r"^rand\(\).*generator")
error_case("rand_negative_size", lambda T: T.rand(-1))
error_case("randn_negative_size", lambda T: T.randn(2, -3))
xcases("rand_out", lambda T, shape: (lambda o: (T.rand(3, 4, out=o) is o, o))(T.zeros(shape)),
       shape=[(3, 4), (12,), (0,), (2, 2)])
xcases("randn_out", lambda T, dtype: (lambda o: (T.randn(20, out=o) is o, o))(T.zeros(20, dtype=dtype)), dtype=FLOATS)
xcase("rand_out_transposed", lambda T: (lambda o: (T.rand(4, 3, out=o), o.stride()))(T.zeros(3, 4).t()))
xcase("randn_out_transposed", lambda T: (lambda o: (T.randn(5, 4, out=o), o.stride()))(T.zeros(4, 5).t()))
error_case("rand_out_dtype_mismatch", lambda T: T.rand(3, out=T.zeros(3), dtype=T.float64))
error_case("rand_out_int", lambda T: T.rand(3, out=T.zeros(3, dtype=T.int64)))
error_case("rand_out_requires_grad", lambda T: T.rand(3, out=T.zeros(3, requires_grad=True)))

# randint: both overloads, every dtype, the ranges where it draws 32 or 64 bits
xcases("randint_high", lambda T, n: val(T.randint(10, (n,))), n=SIZES)
xcases("randint_low_high", lambda T, n: val(T.randint(-5, 17, (n,))), n=SIZES)
xcases("randint_dtype", lambda T, dtype: (lambda t: (t, t.dtype))(T.randint(0, 2, (20,), dtype=dtype)), dtype=ALL)
xcases("randint_dtype_range", lambda T, dtype: T.randint(3, 100, (17,), dtype=dtype),
       dtype=FLOATS + [D.int8, D.int16, D.int32, D.int64, D.uint8])
xcases("randint_ranges", lambda T, lo, hi: T.randint(lo, hi, (9,)),
       lo=[0, -(2 ** 40)], hi=[1, 2 ** 28 - 1, 2 ** 28, 2 ** 28 + 1, 2 ** 32, 2 ** 62])
xcase("randint_full_int64", lambda T: T.randint(-(2 ** 63), 2 ** 63 - 1, (6,)))
xcase("randint_kwargs", lambda T: (T.randint(low=2, high=9, size=(4,)), T.randint(high=5, size=[2, 3])))
xcase("randint_generator", lambda T: (lambda g: (T.randint(0, 1000, (30,), generator=g), T.randint(7, (3,))))(
    T.Generator().manual_seed(2)))
xcase("randint_out", lambda T: (lambda o: (T.randint(3, 9, (2, 5), out=o) is o, o))(T.zeros(10, dtype=T.int64)))
xcase("randint_requires_grad_float", lambda T: (lambda t: (t, t.requires_grad))(
    T.randint(5, (4,), dtype=T.float32, requires_grad=True)))
error_case("randint_requires_grad_int", lambda T: T.randint(5, (4,), requires_grad=True))
error_case("randint_from_ge_to", lambda T: T.randint(5, 3, (2,)))
error_case("randint_empty_range", lambda T: T.randint(0, (2,)))
error_case("randint_int8_out_of_range", lambda T: T.randint(0, 300, (2,), dtype=T.int8))
error_case("randint_half_from_cast", lambda T: T.randint(4097, 4098, (2,), dtype=T.float16))

# randperm: both shuffles' small-n path, dtypes, limits
xcases("randperm", lambda T, n: val(T.randperm(n)), n=[0, 1, 2, 15, 16, 17, 1000, 100003])
xcases("randperm_dtype", lambda T, dtype: (lambda t: (t, t.dtype))(T.randperm(23, dtype=dtype)),
       dtype=FLOATS + INTS)
xcase("randperm_generator", lambda T: (lambda g: (T.randperm(40, generator=g), T.randperm(40, generator=g),
                                                  T.randperm(5)))(T.Generator().manual_seed(0)))
xcase("randperm_limit_int8", lambda T: summary(T.randperm(128, dtype=T.int8)))
xcase("randperm_limit_uint8", lambda T: summary(T.randperm(256, dtype=T.uint8)))
xcase("randperm_half_2049", lambda T: summary(T.randperm(2049, dtype=T.float16)))
xcase("randperm_out", lambda T: (lambda o: (T.randperm(7, out=o) is o, o))(T.zeros(3, dtype=T.int64)))
xcase("randperm_out_strided", lambda T: (lambda b: (T.randperm(6, out=b[::2]), b))(T.zeros(12, dtype=T.int64)))
xcase("randperm_requires_grad", lambda T: T.randperm(4, dtype=T.float32, requires_grad=True).requires_grad)
error_case("randperm_negative", lambda T: T.randperm(-1))
error_case("randperm_out_negative", lambda T: T.randperm(-1, out=T.zeros(2, dtype=T.int64)))
error_case("randperm_int8_overflow", lambda T: T.randperm(129, dtype=T.int8))
error_case("randperm_uint8_overflow", lambda T: T.randperm(257, dtype=T.uint8))
error_case("randperm_half_too_big", lambda T: T.randperm(2050, dtype=T.float16))
error_case("randperm_bool", lambda T: T.randperm(3, dtype=T.bool))
error_case("randperm_requires_grad_int", lambda T: T.randperm(4, requires_grad=True))

# *_like: the result keeps the input's layout (memory format preserved), so it is drawn in that order
LIKE_INPUTS = {
    "contig": lambda T: T.zeros(4, 5),
    "transposed": lambda T: T.zeros(5, 4).t(),
    "sliced": lambda T: T.zeros(4, 10)[:, ::2],
    "t_sliced": lambda T: T.zeros(10, 4).t()[:, ::2],
    "permuted3d": lambda T: T.zeros(2, 3, 4).permute(2, 0, 1),
    "big_t": lambda T: T.zeros(40, 25).t(),
    "f64_t": lambda T: T.zeros(6, 7, dtype=T.float64).t(),
    "half_t": lambda T: T.zeros(6, 7, dtype=T.float16).t(),
}
xcases("rand_like", lambda T, x: (lambda r: (val(r), r.stride(), r.dtype))(T.rand_like(LIKE_INPUTS[x](T))),
       x=list(LIKE_INPUTS))
xcases("randn_like", lambda T, x: (lambda r: (val(r), r.stride(), r.dtype))(T.randn_like(LIKE_INPUTS[x](T))),
       x=list(LIKE_INPUTS))
xcases("randint_like", lambda T, x: (lambda r: (val(r), r.stride(), r.dtype))(T.randint_like(LIKE_INPUTS[x](T), 50)),
       x=list(LIKE_INPUTS))
xcase("randint_like_low_high", lambda T: T.randint_like(T.zeros(3, 4, dtype=T.int32), -3, 9))
xcase("randint_like_tensor_high", lambda T: T.randint_like(T.zeros(2, 5), T.tensor(7)))
xcase("rand_like_dtype", lambda T: (T.rand_like(T.zeros(3, dtype=T.int64), dtype=T.float64),
                                    T.randn_like(T.zeros(17), dtype=T.float16),
                                    T.randint_like(T.zeros(4), 9, dtype=T.int8)))
xcase("rand_like_generator", lambda T: (lambda g: (T.rand_like(T.zeros(5), generator=g),
                                                   T.randn_like(T.zeros(5), generator=g)))(T.Generator()))
xcase("rand_like_requires_grad", lambda T: (lambda r: (r.requires_grad, r.is_leaf))(
    T.randn_like(T.zeros(3), requires_grad=True)))
xcase("rand_like_of_requires_grad", lambda T: (lambda r: (r.requires_grad, r.grad_fn))(
    T.rand_like(T.zeros(3, requires_grad=True))))
error_case("rand_like_int", lambda T: T.rand_like(T.zeros(3, dtype=T.int64)))
error_case("randn_like_int", lambda T: T.randn_like(T.zeros(3, dtype=T.int32)))
error_case("randint_like_bad_range", lambda T: T.randint_like(T.zeros(3), 5, 2))

# ================================================================================= torch.normal
xcases("normal_tensor_float", lambda T, n, dtype: val(T.normal(T.full((n,), 1.5, dtype=dtype), 0.25)),
       n=SIZES, dtype=FLOATS)
xcases("normal_float_tensor", lambda T, n, dtype: val(T.normal(-2.0, T.full((n,), 3.0, dtype=dtype))),
       n=SIZES, dtype=FLOATS)
xcases("normal_tensor_tensor", lambda T, n, dtype: val(T.normal(T.full((n,), 0.5, dtype=dtype),
                                                                T.full((n,), 2.0, dtype=dtype))),
       n=SIZES, dtype=FLOATS)
xcases("normal_float_float", lambda T, n, dtype: val(T.normal(1.0, 2.0, (n,), dtype=dtype)), n=SIZES, dtype=FLOATS)
xcase("normal_values_per_element", lambda T: T.normal(T.tensor([0., 10., 100., -5.]), T.tensor([1., 0., 2., 0.5])))
xcase("normal_broadcast", lambda T: T.normal(T.tensor([1., 2., 3.]), T.tensor([[1.], [2.]])))
xcase("normal_transposed_mean", lambda T: (lambda r: (r, r.stride()))(T.normal(T.zeros(5, 4).t() + 1, 1.0)))
xcase("normal_std_zero", lambda T: T.normal(T.tensor([1., 2.]), 0.0))
xcase("normal_mixed_dtypes", lambda T: (T.normal(T.zeros(3), T.ones(3, dtype=T.float64)),
                                        T.normal(T.zeros(3, dtype=T.float64), T.ones(3))))
xcase("normal_generator", lambda T: (lambda g: (T.normal(T.zeros(20), 1.0, generator=g),
                                                T.normal(0.0, 1.0, (20,), generator=g), T.normal(T.zeros(3), 1.0)))(
    T.Generator().manual_seed(8)))
xcase("normal_kwargs", lambda T: (T.normal(mean=T.zeros(3), std=2.0), T.normal(mean=1.0, std=T.ones(3)),
                                  T.normal(mean=0.5, std=1.5, size=(3,))))
xcase("normal_std_default", lambda T: T.normal(T.zeros(5)))
NORMAL_OUT = {
    "Tensor_float": lambda T, o: T.normal(T.zeros(20), 2.0, out=o),
    "float_Tensor": lambda T, o: T.normal(3.0, T.ones(20), out=o),
    "Tensor_Tensor": lambda T, o: T.normal(T.zeros(20), T.ones(20), out=o),
    "float_float": lambda T, o: T.normal(0.0, 1.0, (20,), out=o),
}
xcases("normal_out", lambda T, form: (lambda o: (NORMAL_OUT[form](T, o) is o, o))(T.zeros(20)), form=list(NORMAL_OUT))
xcase("normal_out_transposed", lambda T: (lambda o: (T.normal(T.zeros(4, 5), 1.0, out=o), o.stride()))(
    T.zeros(5, 4).t()))
xcase("normal_float_float_requires_grad", lambda T: (lambda t: (t.requires_grad, t.is_leaf))(
    T.normal(0.0, 1.0, (3,), requires_grad=True)))
error_case("normal_negative_std", lambda T: T.normal(T.zeros(3), -1.0))
error_case("normal_nan_std", lambda T: T.normal(T.zeros(3), float("nan")))
error_case("normal_negative_std_tensor", lambda T: T.normal(T.zeros(3), -T.ones(3)))
error_case("normal_negative_std_tensor2", lambda T: T.normal(0.0, T.tensor([1., -1.])))
error_case("normal_float_float_negative", lambda T: T.normal(0.0, -1.0, (3,)))
error_case("normal_shape_mismatch", lambda T: T.normal(T.zeros(3), T.ones(2)))
error_case("normal_int_mean", lambda T: T.normal(T.zeros(3, dtype=T.int64), 1.0))
error_case("normal_int_dtype", lambda T: T.normal(0.0, 1.0, (3,), dtype=T.int64))
error_case("normal_no_size", lambda T: T.normal(0.0, 1.0))
xcase("normal_inf_std", lambda T: T.normal(T.zeros(3), float("inf")))
grad_case("normal_grad_mean", lambda T, m: T.normal(m, 0.5), [1.5, -2.0, 0.25], **EXACT)
grad_case("normal_grad_std", lambda T, s: T.normal(1.0, s), [1.5, 2.0, 0.25], **EXACT)
grad_case("normal_grad_both", lambda T, m, s: T.normal(m, s), [1.5, -2.0, 0.25], [[0.5], [2.0]], **EXACT)
grad_case("normal_grad_mean_const_std", lambda T, m, s: T.normal(m, s), [1.5, -2.0], const([1.0, 3.0]), **EXACT)
NORMAL_GRAD_FN = {
    "Tensor_float": lambda T: T.normal(T.zeros(3, requires_grad=True), 1.0),
    "float_Tensor": lambda T: T.normal(1.0, T.ones(3, requires_grad=True)),
    "Tensor_Tensor": lambda T: T.normal(T.zeros(3, requires_grad=True), T.ones(3, requires_grad=True)),
    "Tensor_Tensor_const_std": lambda T: T.normal(T.zeros(3, requires_grad=True), T.ones(3)),
}
xcases("normal_grad_fn", lambda T, form: (lambda r: (type(r.grad_fn).__name__, r.requires_grad,
                                                     len(r.grad_fn.next_functions)))(NORMAL_GRAD_FN[form](T)),
       form=list(NORMAL_GRAD_FN))

# ================================================================================ bernoulli & co.
P_DATA = [[0.0, 0.25, 0.5], [0.75, 1.0, 0.125], [0.9, 0.01, 0.6], [0.3, 0.3, 0.99]]
xcases("bernoulli_p_tensor", lambda T, dtype: T.bernoulli(T.tensor(P_DATA, dtype=dtype)), dtype=FLOATS)
xcases("bernoulli_sizes", lambda T, n, dtype: val(T.bernoulli(T.full((n,), 0.3, dtype=dtype))), n=SIZES,
       dtype=[D.float32, D.float64])
xcase("bernoulli_method", lambda T: (T.tensor(P_DATA).bernoulli(), T.tensor(P_DATA).bernoulli(0.5),
                                     T.tensor(P_DATA).bernoulli(p=0.1)))
xcase("bernoulli_float_p", lambda T: (T.bernoulli(T.zeros(3, 7), 0.3), T.bernoulli(T.zeros(5, dtype=T.int64), 0.8)))
xcase("bernoulli_transposed_p", lambda T: (lambda r: (r, r.stride()))(T.bernoulli(T.tensor(P_DATA).t())))
xcase("bernoulli_generator", lambda T: (lambda g: (T.bernoulli(T.tensor(P_DATA), generator=g),
                                                   T.bernoulli(T.zeros(9), 0.5, generator=g)))(T.Generator()))
xcase("bernoulli_out", lambda T: (lambda o: (T.bernoulli(T.tensor(P_DATA), out=o) is o, o))(T.zeros(2)))
error_case("bernoulli_int_p", lambda T: T.bernoulli(T.ones(3, dtype=T.int64)))
error_case("bernoulli_p_out_of_range", lambda T: T.bernoulli(T.tensor([0.5, 1.5])))
error_case("bernoulli_float_p_out_of_range", lambda T: T.bernoulli(T.zeros(3), 1.5))
grad_case("bernoulli_grad", lambda T, p: T.bernoulli(p), [0.2, 0.7, 0.5], **EXACT)
xcase("bernoulli_grad_fn", lambda T: (lambda x: (type(T.bernoulli(x * 0.5).grad_fn).__name__,
                                                 type(T.bernoulli(x, 0.5).grad_fn).__name__))(
    T.zeros(3, requires_grad=True)))
error_case("bernoulli_p_backward", lambda T: (lambda x: T.bernoulli(x, 0.5).sum().backward())(
    T.zeros(3, requires_grad=True)))

MULTI_P = [[0.1, 0.5, 0.4, 1.0, 0.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]
xcases("multinomial", lambda T, k, repl, dtype: T.multinomial(T.tensor(MULTI_P, dtype=dtype), k, repl),
       k=[1, 2, 3], repl=BOOLS, dtype=FLOATS)
xcases("multinomial_1d", lambda T, k, repl: T.multinomial(T.tensor([0.2, 0.1, 0.3, 0.4, 0.0]), k, replacement=repl),
       k=[1, 4], repl=BOOLS)
xcase("multinomial_replacement_many", lambda T: T.multinomial(T.tensor([[1., 2., 3.], [3., 0., 1.]]), 40, True))
xcase("multinomial_transposed", lambda T: T.multinomial(T.tensor(MULTI_P).t() + 0.5, 2))
xcase("multinomial_transposed_sliced", lambda T: T.multinomial(T.tensor(MULTI_P * 2).t()[:, ::2] + 0.5, 2))
xcases("multinomial_non_dense", lambda T, k: T.multinomial((T.tensor(MULTI_P * 2) + 0.25).t()[:, ::2], k),
       k=[1, 2, 3])
xcase("multinomial_expanded_rows", lambda T: T.multinomial(T.tensor([[0.1, 0.5, 0.4]]).expand(4, 3), 2))
xcase("multinomial_ties_half", lambda T: T.multinomial(T.ones(4, 20, dtype=T.float16), 5))
xcase("multinomial_large", lambda T: summary(T.multinomial(T.tensor(list(range(1, 1001)), dtype=T.float64), 100)))
xcase("multinomial_method_generator", lambda T: (lambda g: T.tensor(MULTI_P).multinomial(2, generator=g))(
    T.Generator().manual_seed(4)))
xcase("multinomial_out", lambda T: (lambda o: (T.multinomial(T.tensor(MULTI_P), 2, out=o) is o, o))(
    T.zeros(1, dtype=T.int64)))
error_case("multinomial_0d", lambda T: T.multinomial(T.tensor(1.0), 1))
error_case("multinomial_3d", lambda T: T.multinomial(T.ones(2, 2, 2), 1))
error_case("multinomial_int", lambda T: T.multinomial(T.ones(3, dtype=T.int64), 1))
error_case("multinomial_zero_samples", lambda T: T.multinomial(T.ones(3), 0))
error_case("multinomial_too_many", lambda T: T.multinomial(T.ones(3), 4))
error_case("multinomial_negative", lambda T: T.multinomial(T.tensor([1.0, -1.0]), 1))
error_case("multinomial_nan", lambda T: T.multinomial(T.tensor([1.0, float("nan")]), 1))
error_case("multinomial_zero_row", lambda T: T.multinomial(T.tensor([[1.0, 2.0], [0.0, 0.0]]), 1))
error_case("multinomial_replacement_negative", lambda T: T.multinomial(T.tensor([[1., 2.], [1., -2.]]), 3, True))
xcase("multinomial_requires_grad_input", lambda T: (lambda r: (r.requires_grad, r.dtype))(
    T.multinomial(T.ones(3, requires_grad=True), 2)))

xcases("poisson", lambda T, dtype: T.poisson(T.tensor([[0.0, 0.5, 1.0, 4.5], [9.9, 10.0, 25.0, 150.0]], dtype=dtype)),
       dtype=FLOATS)
xcase("poisson_transposed", lambda T: T.poisson(T.tensor([[1.0, 20.0, 3.0], [0.5, 12.0, 7.0]]).t()))
xcase("poisson_generator", lambda T: T.poisson(T.full((30,), 4.0), generator=T.Generator().manual_seed(6)))
xcase("poisson_big", lambda T: summary(T.poisson(T.full((1000,), 13.5))))
error_case("poisson_int", lambda T: T.poisson(T.ones(3, dtype=T.int64)))
error_case("poisson_negative", lambda T: T.poisson(T.tensor([1.0, -1.0])))
grad_case("poisson_grad", lambda T, r: T.poisson(r), [1.0, 3.5, 12.0], **EXACT)

# ===================================================================== in-place samplers on every layout
LAYOUTS = {
    "contig": lambda T, n, dt: T.zeros(n, dtype=dt),
    "transposed": lambda T, n, dt: T.zeros(n, 3, dtype=dt).t(),
    "sliced": lambda T, n, dt: T.zeros(n, 2, dtype=dt)[:, 0],
    "t_sliced": lambda T, n, dt: T.zeros(2 * n, 3, dtype=dt).t()[:, ::2],
    "permuted": lambda T, n, dt: T.zeros(2, n, 3, dtype=dt).permute(1, 2, 0),
}


def _filled(T, layout, n, dtype, op):
    x = LAYOUTS[layout](T, n, dtype)
    base_shape = x.shape
    r = op(x)
    return (r is x, r.shape == base_shape, val(r))


INPLACE = {
    "uniform_": lambda x: x.uniform_(),
    "uniform_range": lambda x: x.uniform_(-3.5, 2.25),
    "normal_": lambda x: x.normal_(),
    "normal_mean_std": lambda x: x.normal_(2.0, 0.5),
    "random_": lambda x: x.random_(),
    "random_to": lambda x: x.random_(100),
    "random_from_to": lambda x: x.random_(-7, 30),
    "exponential_": lambda x: x.exponential_(),
    "exponential_lambd": lambda x: x.exponential_(3.5),
    "geometric_": lambda x: x.geometric_(0.35),
    "log_normal_": lambda x: x.log_normal_(),
    "log_normal_args": lambda x: x.log_normal_(0.5, 0.25),
    "cauchy_": lambda x: x.cauchy_(),
    "cauchy_args": lambda x: x.cauchy_(1.5, 1.7),
    "bernoulli_": lambda x: x.bernoulli_(),
    "bernoulli_p": lambda x: x.bernoulli_(0.3),
}
xcases("inplace", lambda T, op, layout, n, dtype: _filled(T, layout, n, dtype, INPLACE[op]),
       op=list(INPLACE), layout=list(LAYOUTS), n=[1, 17], dtype=FLOATS)
xcases("inplace_sizes", lambda T, op, n, dtype: _filled(T, "contig", n, dtype, INPLACE[op]),
       op=["uniform_", "normal_", "normal_mean_std", "random_", "exponential_", "log_normal_", "cauchy_",
           "bernoulli_p", "geometric_"], n=SIZES, dtype=FLOATS)
xcases("inplace_big_transposed", lambda T, op, dtype: _filled(T, "transposed", 400, dtype, INPLACE[op]),
       op=["uniform_", "normal_", "exponential_", "bernoulli_p"], dtype=FLOATS)
INT_OPS = ["random_", "random_to", "random_from_to", "geometric_", "bernoulli_", "bernoulli_p"]
xcases("inplace_int", lambda T, op, layout, dtype: _filled(T, layout, 17, dtype, INPLACE[op]),
       op=INT_OPS, layout=["contig", "transposed", "sliced"], dtype=INTS + [D.bool],
       kind=lambda op, layout, dtype: "error" if (dtype in (D.bool,) and op in ("random_to", "random_from_to",
                                                                                "geometric_"))
       or (dtype == D.uint8 and op == "random_from_to") else "value")
xcases("inplace_float_only", lambda T, op, dtype: INPLACE[op](T.zeros(5, dtype=dtype)),
       op=["uniform_", "normal_", "exponential_", "log_normal_", "cauchy_"], dtype=[D.int64, D.int8, D.bool],
       kind="error")
xcases("inplace_float_only_empty", lambda T, op: INPLACE[op](T.zeros(0, dtype=T.int64)),
       op=["uniform_", "normal_", "exponential_", "log_normal_", "cauchy_"],
       kind=lambda op: "error" if op in ("uniform_", "cauchy_") else "value")

# random_ bounds: every dtype, the 32/64-bit switch, open upper bounds, the full 64-bit range
xcases("random_default", lambda T, dtype: T.zeros(40, dtype=dtype).random_(), dtype=ALL)
xcases("random_to_dtype", lambda T, dtype: T.zeros(20, dtype=dtype).random_(2), dtype=ALL)
xcases("random_from_none", lambda T, dtype: T.zeros(12, dtype=dtype).random_(0, None), dtype=ALL)
xcases("random_from_none_neg", lambda T, dtype: T.zeros(12, dtype=dtype).random_(-100, None),
       dtype=FLOATS + [D.int8, D.int16, D.int32, D.int64])
xcases("random_full_range", lambda T, dtype: T.zeros(8, dtype=dtype).random_(-(2 ** 63), None),
       dtype=[D.int64, D.float64, D.float32, D.bfloat16])
xcases("random_full_range_refused", lambda T, dtype: T.zeros(8, dtype=dtype).random_(-(2 ** 63), None),
       dtype=[D.float16, D.bool, D.int32, D.int8, D.uint8, D.int16], kind="error")
xcases("random_ranges", lambda T, lo, hi: T.zeros(7, dtype=T.int64).random_(lo, hi),
       lo=[0, -(2 ** 33)], hi=[2 ** 28 - 1, 2 ** 28, 2 ** 40])
xcases("random_float_bounds", lambda T, dtype: T.zeros(10, dtype=dtype).random_(2 ** 25, 2 ** 25 + 1000),
       dtype=[D.float32, D.float64, D.bfloat16])
# bounds beyond ±2^digits: torch warns (TORCH_WARN, every call) and still draws
RANDOM_WARN = {"f32_to": ("float32", 0, 2 ** 30), "f32_from": ("float32", -(2 ** 25), 5),
               "f32_both": ("float32", -(2 ** 26), 2 ** 26), "f32_from_none": ("float32", -(2 ** 25), None),
               "f64_no_warn": ("float64", 0, 2 ** 30), "bf16_to": ("bfloat16", 0, 2 ** 12),
               "bf16_from": ("bfloat16", -(2 ** 10), 7), "f16_to": ("float16", 0, 2 ** 12)}
xcases("random_float_bounds_warn", lambda T, w: T.zeros(6, dtype=getattr(T, RANDOM_WARN[w][0])).random_(
    *RANDOM_WARN[w][1:]), w=list(RANDOM_WARN), warns=True)
xcase("randint_float_warn", lambda T: T.randint(0, 2 ** 26, (4,), dtype=T.float32), warns=True)
xcase("random_generator", lambda T: (lambda g: (T.zeros(5, dtype=T.int64).random_(generator=g),
                                                T.zeros(5).random_(10, generator=g),
                                                T.zeros(5).random_(3, 8, generator=g)))(T.Generator()))
error_case("random_from_ge_to", lambda T: T.zeros(3).random_(5, 5))
error_case("random_to_out_of_bounds", lambda T: T.zeros(3, dtype=T.int8).random_(0, 200))
error_case("random_from_out_of_bounds", lambda T: T.zeros(3, dtype=T.uint8).random_(-1, 5))
xcase("random_half_from_cast", lambda T: T.zeros(3, dtype=T.float16).random_(2049, 2050))
xcase("random_half_from_cast2", lambda T: T.zeros(3, dtype=T.float16).random_(2049, 2051))

# argument errors of the samplers (torch's texts)
error_case("uniform_from_gt_to", lambda T: T.zeros(3).uniform_(2, 1))
error_case("uniform_to_out_of_bounds_half", lambda T: T.zeros(3, dtype=T.float16).uniform_(0, 70000))
error_case("uniform_range_too_big", lambda T: T.zeros(3).uniform_(-3e38, 3e38))
xcase("uniform_tiny_range_half", lambda T: T.zeros(20, dtype=T.float16).uniform_(1, 1.001))
xcase("uniform_from_eq_to", lambda T: T.zeros(4).uniform_(2.5, 2.5))
error_case("normal_negative_std_inplace", lambda T: T.zeros(3).normal_(0, -1))
error_case("normal_nan_std_inplace", lambda T: T.zeros(3).normal_(0, float("nan")))
xcase("normal_inf_std_inplace", lambda T: T.zeros(3).normal_(0, float("inf")))
xcase("normal_zero_std_inplace", lambda T: T.zeros(20).normal_(3.0, 0.0))
error_case("exponential_zero_lambda", lambda T: T.zeros(3).exponential_(0))
error_case("exponential_int", lambda T: T.zeros(3, dtype=T.int64).exponential_())
error_case("geometric_p_one", lambda T: T.zeros(3).geometric_(1.0))
error_case("geometric_p_zero", lambda T: T.zeros(3).geometric_(0.0))
error_case("geometric_no_p", lambda T: T.zeros(3).geometric_())
xcase("geometric_int8_wraps", lambda T: T.zeros(30, dtype=T.int8).geometric_(0.01))
error_case("log_normal_zero_std", lambda T: T.zeros(3).log_normal_(0, 0))
error_case("cauchy_zero_sigma", lambda T: T.zeros(3).cauchy_(0, 0))
error_case("cauchy_int", lambda T: T.zeros(3, dtype=T.int32).cauchy_())
error_case("bernoulli_p_gt_one", lambda T: T.zeros(3).bernoulli_(1.5))
error_case("bernoulli_tensor_p_bad", lambda T: T.zeros(4).bernoulli_(T.tensor([0.5, 0.2, 2.0, 0.1])))
xcase("bernoulli_tensor_p_bad_partial_draws", lambda T: (lambda x: (
    (lambda e: type(e).__name__)(_raises(lambda: x.bernoulli_(T.tensor([0.5, 0.2, 2.0, 0.1])))), x, state_crc(T)))(
    T.full((4,), 7.0)))
error_case("bernoulli_tensor_p_int", lambda T: T.zeros(3).bernoulli_(T.ones(3, dtype=T.int64)))
error_case("bernoulli_tensor_p_not_expandable", lambda T: T.zeros(3).bernoulli_(T.full((2,), 0.5)))
error_case("bernoulli_tensor_p_more_dims", lambda T: T.zeros(3).bernoulli_(T.full((2, 3), 0.5)))
error_case("inplace_expanded", lambda T: T.zeros(3, 1).expand(3, 4).normal_())
error_case("inplace_expanded_uniform", lambda T: T.zeros(1).expand(5).uniform_())
error_case("inplace_expanded_bad_args", lambda T: T.zeros(1).expand(5).random_(5, 3))
error_case("inplace_expanded_bounds_warning", lambda T: T.zeros(1).expand(5).random_(0, 2 ** 30), warns=True)
EXPANDED_BAD = {"uniform": lambda x: x.uniform_(2, 1), "normal": lambda x: x.normal_(0, -1),
                "exponential": lambda x: x.exponential_(0), "geometric": lambda x: x.geometric_(2),
                "log_normal": lambda x: x.log_normal_(0, 0), "cauchy": lambda x: x.cauchy_(0, 0),
                "bernoulli": lambda x: x.bernoulli_(2.0), "random_none": lambda x: x.random_(3, None)}
cases("inplace_expanded_error_order", lambda T, op: EXPANDED_BAD[op](T.zeros(1).expand(5)), op=list(EXPANDED_BAD),
      kind="error")
cases("inplace_expanded_int_error_order", lambda T, op: INPLACE[op](T.zeros(1, dtype=T.int64).expand(5)),
      op=["uniform_", "normal_", "exponential_", "log_normal_", "cauchy_"], kind="error")
error_case("inplace_leaf_requires_grad", lambda T: T.zeros(3, requires_grad=True).normal_())
error_case("inplace_view_of_leaf_requires_grad", lambda T: T.zeros(3, 2, requires_grad=True)[:, 0].uniform_())
error_case("uniform_bad_kwarg", lambda T: T.zeros(3).uniform_(low=0))


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- the case returns the exception's type name
        return e
    return None


# bernoulli_(p: Tensor): p broadcast to self, its dtype choosing the 53-bit or 24-bit draw
xcases("bernoulli_tensor_p", lambda T, pdt, dtype: T.zeros(4, 3, dtype=dtype).bernoulli_(T.tensor(P_DATA, dtype=pdt)),
       pdt=FLOATS, dtype=[D.float32, D.float64, D.int64, D.bool])
xcase("bernoulli_tensor_p_broadcast", lambda T: T.zeros(4, 3).bernoulli_(T.tensor([0.1, 0.5, 0.9])))
xcase("bernoulli_tensor_p_broadcast_t", lambda T: T.zeros(3, 4).t().bernoulli_(T.tensor([0.1, 0.5, 0.9])))
xcase("bernoulli_tensor_p_t_self_sliced", lambda T: T.zeros(8, 3)[::2].bernoulli_(T.tensor(P_DATA).t().t()))
xcase("bernoulli_tensor_p_transposed", lambda T: T.zeros(4, 3).bernoulli_(T.tensor(P_DATA).t().contiguous().t()))

# in-place ops on tensors that need grad: torch records a node (gradient zero)
xcases("inplace_grad_fn", lambda T, op: (lambda y: (type(y.grad_fn).__name__, y.requires_grad,
                                                    [type(f).__name__ for f, _ in y.grad_fn.next_functions]))(
    INPLACE[op](T.zeros(3, requires_grad=True) * 1)), op=list(INPLACE))
xcase("bernoulli_tensor_grad_fn", lambda T: (lambda y: (type(y.grad_fn).__name__, len(y.grad_fn.next_functions),
                                                        y.grad_fn.next_functions[1][0]))(
    (T.zeros(3, requires_grad=True) * 1).bernoulli_(T.full((3,), 0.5))))
grad_case("normal_inplace_grad", lambda T, x: (x * 2).normal_(), [1.0, 2.0, 3.0], **EXACT)
grad_case("uniform_inplace_grad", lambda T, x: (x * 2).uniform_() + x, [1.0, 2.0, 3.0], **EXACT)
grad_case("bernoulli_inplace_grad", lambda T, x, p: (x * 2).bernoulli_(p), [1.0, 2.0, 3.0], [0.2, 0.4, 0.6],
          **EXACT)
def _no_grad_init(T):
    w = T.zeros(5, requires_grad=True)
    with T.no_grad():
        r = w.normal_()
    return r is w, w, w.requires_grad, w.grad_fn, w.is_leaf


xcase("inplace_no_grad_leaf", _no_grad_init)
xcase("inplace_version_bump", lambda T: (lambda x: (x._version, x.uniform_()._version, x.normal_()._version))(
    T.zeros(3)))
xcase("inplace_on_view_changes_base", lambda T: (lambda b: (b[1].normal_(), b))(T.zeros(3, 4)))

# ======================================================================= interleavings and the cache
INTERLEAVE = {
    "randn3_rand2_randn3": lambda T: (T.randn(3), T.rand(2), T.randn(3)),
    "randn1_randn1": lambda T: (T.randn(1), T.randn(1), T.randn(1)),
    "randn3_randn16_randn1": lambda T: (T.randn(3), T.randn(16), T.randn(1)),
    "randn5_f64_f32": lambda T: (T.randn(5, dtype=T.float64), T.randn(3), T.randn(2, dtype=T.float16)),
    "randn1_lognormal": lambda T: (T.randn(1), T.zeros(3).log_normal_(), T.randn(1)),
    "randn_t_then_contig": lambda T: (T.randn_like(T.zeros(5, 4).t()), T.randn(17), T.randn(1)),
    "randn17_bf16_then_f32": lambda T: (T.randn(17, dtype=T.bfloat16), T.randn(17), T.randn(3)),
    "normal_tensor_then_randn": lambda T: (T.normal(T.zeros(3), 1.0), T.randn(1)),
    "rand_randint_randperm": lambda T: (T.rand(3), T.randint(0, 5, (4,)), T.randperm(6), T.rand(2)),
    "generator_and_default": lambda T: (lambda g: (T.randn(1), T.randn(1, generator=g), T.randn(1),
                                                   T.randn(1, generator=g)))(T.Generator()),
    "seed_clears_cache": lambda T: (T.randn(1), T.manual_seed(5), T.randn(2))[::2],
}
xcases("interleave", lambda T, seq: (INTERLEAVE[seq](T), state_crc(T)), seq=list(INTERLEAVE))
xcases("sequence_state", lambda T, s: (T.manual_seed(s), T.randn(3), T.rand(17), T.randint(0, 2 ** 30, (5,)),
                                       T.randperm(10), T.zeros(4).exponential_(), T.bernoulli(T.full((6,), 0.5)),
                                       T.multinomial(T.ones(5), 3), state_crc(T))[1:], s=[0, 1, 99, 2 ** 63])

# The layout of a pointwise result decides the order the next sampler draws in (TensorIterator's output rules:
# all-contiguous inputs give a contiguous output, same-strided dense inputs keep their strides, otherwise the
# dims are ordered by the inputs' strides, size-1 dims included).
POINTWISE_LAYOUTS = {
    "t_col_plus_scalar": lambda T: T.zeros(1, 5).t() + 1,
    "t_col_times_self": lambda T: (lambda x: x * x)(T.zeros(1, 5).t()),
    "t_col_exp": lambda T: T.zeros(1, 5).t().exp(),
    "perm_size1_plus_scalar": lambda T: T.zeros(5, 1, 17).permute(2, 1, 0) + 1,
    "perm_size1_exp": lambda T: T.zeros(5, 1, 17).permute(2, 1, 0).exp(),
    "perm_times_self": lambda T: (lambda x: x * x)(T.zeros(2, 3, 4).permute(1, 2, 0)),
    "t_plus_contig": lambda T: T.zeros(4, 6).t() + T.zeros(6, 4),
    "sliced_plus_scalar": lambda T: T.zeros(4, 10).t()[::2] + 1,
}
xcases("pointwise_layout_then_sample", lambda T, x: (lambda y: (y.stride(), T.rand_like(y).stride(),
                                                                val(T.randn_like(y)),
                                                                val(T.dropout(y, 0.4, True))))(
    POINTWISE_LAYOUTS[x](T)), x=list(POINTWISE_LAYOUTS))

# ========================================================================================== dropout
DROP_X = [[1.5, -2.0, 0.25, 3.0, -1.0], [0.5, 4.0, -0.75, 2.5, 1.25], [-3.0, 0.125, 1.0, -0.5, 2.0]]
DROPOUTS = {
    "dropout": lambda T: T.dropout,
    "feature_dropout": lambda T: T.feature_dropout,
    "alpha_dropout": lambda T: T.alpha_dropout,
    "feature_alpha_dropout": lambda T: T.feature_alpha_dropout,
}
xcases("dropout_fns", lambda T, drop, p, dtype: DROPOUTS[drop](T)(T.tensor([DROP_X, DROP_X], dtype=dtype), p, True),
       drop=list(DROPOUTS), p=[0.1, 0.5, 0.8], dtype=FLOATS)
xcases("dropout_sizes", lambda T, n, dtype: val(T.dropout(T.full((n,), 3.0, dtype=dtype), 0.4, True)), n=SIZES,
       dtype=FLOATS)
xcases("dropout_layouts", lambda T, drop, layout: DROPOUTS[drop](T)(LAYOUTS[layout](T, 6, T.float32) + 1, 0.3, True),
       drop=["dropout", "alpha_dropout"], layout=list(LAYOUTS))
xcases("dropout_identity", lambda T, drop, p, train: (lambda x: (lambda r: (r is x, r))(DROPOUTS[drop](T)(x, p, train)))(
    T.tensor([DROP_X])), drop=list(DROPOUTS), p=[0.0, 0.5], train=BOOLS)
xcases("dropout_p_one", lambda T, drop: DROPOUTS[drop](T)(T.tensor([DROP_X]), 1.0, True), drop=list(DROPOUTS))
xcases("dropout_empty", lambda T, drop: (lambda x: DROPOUTS[drop](T)(x, 0.5, True) is x)(T.zeros(0, 3, 2)),
       drop=list(DROPOUTS))
xcases("dropout_bad_p", lambda T, drop, p: DROPOUTS[drop](T)(T.tensor([DROP_X]), p, True), drop=list(DROPOUTS),
       p=[-0.1, 1.5], kind="error")
xcases("feature_dropout_1d", lambda T, drop: DROPOUTS[drop](T)(T.ones(5), 0.5, True),
       drop=["feature_dropout", "feature_alpha_dropout"], kind="error")
xcases("feature_dropout_3d_4d", lambda T, drop, shape: DROPOUTS[drop](T)(T.ones(shape), 0.5, True),
       drop=["feature_dropout", "feature_alpha_dropout"], shape=[(2, 3), (2, 3, 4), (2, 3, 2, 2), (2, 2, 1, 2, 3)])
xcases("dropout_inplace", lambda T, drop: (lambda x: (lambda r: (r is x, x))(getattr(T, drop + "_")(x, 0.4, True)))(
    T.tensor([DROP_X])), drop=list(DROPOUTS))
error_case("dropout_int", lambda T: T.dropout(T.ones(5, dtype=T.int64), 0.5, True))
grad_case("dropout_grad", lambda T, x: T.dropout(x, 0.4, True), DROP_X, **EXACT)
grad_case("feature_dropout_grad", lambda T, x: T.feature_dropout(x, 0.4, True), [DROP_X, DROP_X], **EXACT)
grad_case("alpha_dropout_grad", lambda T, x: T.alpha_dropout(x, 0.4, True), DROP_X, **EXACT)
grad_case("dropout_p_one_grad", lambda T, x: T.dropout(x, 1.0, True), DROP_X, **EXACT)
xcases("dropout_grad_fn", lambda T, drop, p: (lambda r: type(r.grad_fn).__name__)(
    DROPOUTS[drop](T)(T.ones(2, 3, requires_grad=True) * 1, p, True)), drop=list(DROPOUTS), p=[0.5, 1.0])
