"""URL map: console pages, the runtime API under /api/v1/, Django admin, auth, i18n and the health
check. Errors under /api/ are JSON (``console.faults``)."""

from django.contrib import admin
from django.urls import include, path

from console.health import healthz

urlpatterns = [
    path("", include("skills_app.urls")),
    path("api/v1/", include("skills_app.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]

handler400 = "console.faults.bad_request"
handler403 = "console.faults.permission_denied"
handler404 = "console.faults.page_not_found"
handler500 = "console.faults.server_error"
