"""Settings of the benchmark server only (docs/benchmarks.md): the console's own settings with the
floors' URLs added (``bench.urls``). Never used by ``make run``, ``make serve`` or the tests."""

from console.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
