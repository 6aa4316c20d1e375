"""URL map: console pages, the runtime API under /api/v1/, Django admin, auth and i18n."""
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("skills_app.urls")),
    path("api/v1/", include("skills_app.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
