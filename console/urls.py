"""URL map: console pages, the runtime API under /api/v1/, Django admin, auth, i18n and the health
check. Errors under /api/ are JSON (``skills_app.core.faults``)."""

from django.contrib import admin
from django.urls import include, path

from skills_app.core.health import healthz

urlpatterns = [
    path("", include("skills_app.urls")),
    path("api/v1/", include("skills_app.runtime.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]

handler400 = "skills_app.core.faults.bad_request"
handler403 = "skills_app.core.faults.permission_denied"
handler404 = "skills_app.core.faults.page_not_found"
handler500 = "skills_app.core.faults.server_error"
