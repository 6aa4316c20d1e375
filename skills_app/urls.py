"""Console pages (namespace ``skills``)."""
from django.urls import path

from .views import history, preview, releases, restrictions, scenarios, skills, tools

app_name = "skills"

urlpatterns = [
    path("", skills.skill_list, name="home"),
    path("skills/", skills.skill_list, name="skill_list"),
    path("skills/new", skills.skill_create, name="skill_create"),
    path("skills/new-preview", skills.skill_preview, name="skill_preview_new"),
    path("skills/deleted/<int:pk>/restore", skills.skill_restore, name="skill_restore"),
    path("skills/<str:code>/", skills.skill_detail, name="skill_detail"),
    path("skills/<str:code>/edit", skills.skill_edit, name="skill_edit"),
    path("skills/<str:code>/preview", skills.skill_preview, name="skill_preview"),
    path("skills/<str:code>/enabled", skills.skill_set_enabled, name="skill_set_enabled"),
    path("skills/<str:code>/delete", skills.skill_delete, name="skill_delete"),
    path("skills/<str:code>/history", history.skill_history, name="skill_history"),
    path("skills/<str:code>/history/<int:history_id>/restore", history.skill_revert, name="skill_revert"),
    path("preview/", preview.preview, name="preview"),
    path("preview/payload", preview.preview_payload, name="preview_payload"),
    path("scenarios/", scenarios.scenario_list, name="scenario_list"),
    path("scenarios/new", scenarios.scenario_create, name="scenario_create"),
    path("scenarios/from-preview", scenarios.scenario_from_preview, name="scenario_from_preview"),
    path("scenarios/<str:name>/edit", scenarios.scenario_edit, name="scenario_edit"),
    path("restrictions/", restrictions.restriction_list, name="restriction_list"),
    path("restrictions/<str:kind>/new", restrictions.restriction_edit, name="restriction_create"),
    path("restrictions/<str:kind>/<str:name>/edit", restrictions.restriction_edit, name="restriction_edit"),
    path("tools/", tools.tool_tree, name="tool_tree"),
    path("releases/", releases.release_list, name="release_list"),
    path("releases/diff", releases.release_diff, name="release_diff"),
    path("releases/labels", releases.label_move, name="label_move"),
    path("releases/<int:number>/", releases.release_detail, name="release_detail"),
    path("releases/<int:number>/rollback", releases.release_rollback, name="release_rollback"),
    path("publish/", releases.publish, name="publish"),
    path("api-keys/", releases.api_keys, name="api_keys"),
    path("audit/", history.audit, name="audit"),
]
