"""URL map: console pages, the runtime API under /api/v1/, Django admin, auth, i18n and the health
check. Errors under /api/ are JSON (``skills_app.core.faults``)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from skills_app.core.health import healthz

urlpatterns = [
    path("", include("skills_app.urls")),
    path("api/v1/", include("skills_app.runtime.urls")),
    # Log in and out only: no mail backend is configured, so no password reset by mail is offered
    # (it would say a mail was sent and send nothing); an administrator sets a new password
    # (`manage.py changepassword`, or the admin), docs/deploy.md "Accounts".
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]

handler400 = "skills_app.core.faults.bad_request"
handler403 = "skills_app.core.faults.permission_denied"
handler404 = "skills_app.core.faults.page_not_found"
handler500 = "skills_app.core.faults.server_error"
