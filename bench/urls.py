"""The console's URLs plus the two floors of ``make bench`` (docs/benchmarks.md). Only
``bench.settings`` points here: the production URL map never holds a floor."""

from django.urls import path

from bench import floors
from console import urls as console_urls

urlpatterns = [
    path("bench/floor/catalog", floors.catalog_floor, name="bench-floor-catalog"),
    path("bench/floor/parse", floors.ParseFloor.as_view(), name="bench-floor-parse"),
    *console_urls.urlpatterns,
]

handler400 = console_urls.handler400
handler403 = console_urls.handler403
handler404 = console_urls.handler404
handler500 = console_urls.handler500
