"""Runtime API routes, mounted at ``/api/v1/`` by ``console/urls.py`` (docs/runtime-api.md)."""
from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import views

app_name = "api"

urlpatterns = [
    path("runtime/catalog", views.CatalogApi.as_view(), name="runtime-catalog"),
    # ``path`` (not ``str``) so that a code containing ``/`` reaches the view and is refused with
    # 400 ``invalid_skill_code`` instead of an HTML 404.
    path("runtime/skills/<path:code>", views.SkillDetailApi.as_view(), name="runtime-skill"),
    path("runtime/rounds", views.RoundsApi.as_view(), name="runtime-rounds"),
    path("runtime/load-skill", views.LoadSkillApi.as_view(), name="runtime-load-skill"),
    path("runtime/check-call", views.CheckCallApi.as_view(), name="runtime-check-call"),
    # OpenAPI 3 schema: YAML by default, ``?format=json`` for JSON.
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    # The schema as a readable page: Swagger UI served from drf-spectacular-sidecar (no CDN).
    path("docs", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    re_path(r"^.*$", views.NotFoundApi.as_view(), name="not-found"),
]
