"""The randomness a student program sees, made a function of one seed, so that the same file gets
the same marks on every run and every machine.

Like ``zygote_isolation``, this runs in the program's own process (the fork server's child, or the
bootstrap of a new interpreter), never imported by the grader: it imports only the standard library.
The grader derives each run's seed from the submission's content, the case and the repeat's index
(``submitted_program.run_seed``), so repeats of a case still see different streams.

Seeded here: the ``random`` module's functions, every ``random.Random()`` made without a seed,
``os.urandom`` and ``os.getrandom`` and what draws on them (``random.SystemRandom``, ``secrets``,
``uuid.uuid4``, the names ``tempfile`` makes). ``device_bytes`` gives what the run's own
/dev/urandom and /dev/random hold (``run_mounts``), and the ``getrandom`` system call answers as on a
kernel without it (``syscall_filter``), so that code reaching past Python reads those. String
hashing (the order of a set of strings) is fixed for every run by ``PYTHONHASHSEED=0`` where the
interpreter starts. A program that seeds from the clock (``random.seed(time.time())``) stays
random: nothing can make the clock repeat.
"""

import hashlib
import os
import random

# ``Random.seed`` as Python has it: each seeding wraps this one, never the last wrapper (a shared
# process seeds once per case, and wrappers of wrappers would nest as deep as its cases).
_UNSEEDED = random.Random.seed


class _Stream:
    """Bytes that look random and follow from ``seed`` alone (SHAKE-256 over a counter)."""

    def __init__(self, seed):
        self._seed = seed.encode("utf-8", "surrogatepass")
        self._counter = 0

    def take(self, size):
        self._counter += 1
        return hashlib.shake_256(b"%d:" % self._counter + self._seed).digest(size) if size > 0 else b""


def seed_everything(seed):
    """Make every source of randomness named above a function of ``seed`` (a string), in this process."""
    stream = _Stream(seed)

    def urandom(size):
        """Like os.urandom: ``size`` bytes, here from the run's seed."""
        if size < 0:
            raise ValueError("negative argument not allowed")
        return stream.take(size)

    os.urandom = urandom
    if hasattr(os, "getrandom"):

        def getrandom(size, flags=0):
            """Like os.getrandom: ``size`` bytes, here from the run's seed."""
            if size < 0:
                raise ValueError("negative argument not allowed")
            return stream.take(size)

        os.getrandom = getrandom
    if hasattr(random, "_urandom"):
        random._urandom = urandom  # SystemRandom (and so secrets) draws through this name

    def seed_method(self, a=None, version=2):
        if a is None:  # "seed from the operating system": from the run's stream instead
            a = int.from_bytes(stream.take(32), "big")
        _UNSEEDED(self, a, version)

    random.Random.seed = seed_method
    # The module's functions are methods of one hidden instance, bound when ``random`` was imported.
    random.seed = random._inst.seed
    random.seed(seed)
    _seed_at_random(stream)


_AT_RANDOM = 25  # getauxval: the address of 16 random bytes the kernel gave the interpreter at its start


def _at_random_address():
    """Where those 16 bytes are, found once (a fork keeps the address); 0 where there are none."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.getauxval.restype = ctypes.c_ulong
        return libc.getauxval(_AT_RANDOM), ctypes.memmove
    except (OSError, AttributeError, ValueError, ImportError):
        return 0, None


_AT_RANDOM_ADDRESS, _MEMMOVE = _at_random_address()


def _seed_at_random(stream):
    """The 16 bytes the kernel gave the process at its start (a program can read them through
    getauxval(AT_RANDOM)) from the run's seed too: a forked run shares its server's."""
    if _AT_RANDOM_ADDRESS and _MEMMOVE is not None:
        _MEMMOVE(_AT_RANDOM_ADDRESS, stream.take(16), 16)


# What the run's /dev/urandom and /dev/random hold: reads past it find the end of the file.
DEVICE_BYTES = 64 * 1024


def device_bytes(seed):
    """The bytes of the run's own random devices, from ``seed`` (apart from the stream ``os.urandom`` gives)."""
    return hashlib.shake_256(b"devices:" + seed.encode("utf-8", "surrogatepass")).digest(DEVICE_BYTES)
