"""Runtime API routes, mounted at ``/api/v1/`` by ``console/urls.py`` (docs/runtime-api.md)."""

from csp.constants import NONCE
from csp.decorators import csp_update
from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from skills_app.runtime import views

#: Swagger UI starts from an inline script and style (templates/api/docs.html): this page alone
#: lets the Content-Security-Policy (console/settings.py) run the ones carrying its nonce.
docs_view = csp_update({"script-src": [NONCE], "style-src": [NONCE]})(
    SpectacularSwaggerView.as_view(url_name="api:schema", template_name="api/docs.html")
)

app_name = "api"

urlpatterns = [
    path("runtime/catalog", views.CatalogApi.as_view(), name="runtime-catalog"),
    # Any characters (``/`` and line breaks too: ``path:`` stops at a newline) so that every
    # malformed code reaches the view and is refused with 400 ``invalid_skill_code``, never an HTML 404.
    re_path(r"^runtime/skills/(?P<code>[\s\S]+)\Z", views.SkillDetailApi.as_view(), name="runtime-skill"),
    path("runtime/rounds", views.RoundsApi.as_view(), name="runtime-rounds"),
    path("runtime/load-skill", views.LoadSkillApi.as_view(), name="runtime-load-skill"),
    path("runtime/check-call", views.CheckCallApi.as_view(), name="runtime-check-call"),
    path("runtime/reports", views.ReportsApi.as_view(), name="runtime-reports"),
    # OpenAPI 3 schema: YAML by default, ``?format=json`` for JSON.
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    # The schema as a readable page: Swagger UI served from drf-spectacular-sidecar (no CDN).
    path("docs", docs_view, name="docs"),
    re_path(r"^[\s\S]*\Z", views.NotFoundApi.as_view(), name="not-found"),
]
