"""Console pages (namespace ``skills``)."""

from django.urls import path

from skills_app.catalog.views import restrictions, skills, tools
from skills_app.history import views as history
from skills_app.io import views as skill_files
from skills_app.mcp import views as mcp
from skills_app.preferences import views as preferences
from skills_app.releases import views as releases
from skills_app.reports import views as reports
from skills_app.simulation.views import preview, scenarios

app_name = "skills"

urlpatterns = [
    path("", skills.skill_list, name="home"),
    path("skills/", skills.skill_list, name="skill_list"),
    path("skills/new", skills.skill_create, name="skill_create"),
    path("skills/new-preview", skills.skill_preview, name="skill_preview_new"),
    path("skills/import", skill_files.skill_import, name="skill_import"),
    path("skills/export", skill_files.skill_export, name="skill_export"),
    path("skills/deleted/<int:pk>/restore", skills.skill_restore, name="skill_restore"),
    path("skills/<str:code>/", skills.skill_detail, name="skill_detail"),
    path("skills/<str:code>/edit", skills.skill_edit, name="skill_edit"),
    path("skills/<str:code>/preview", skills.skill_preview, name="skill_preview"),
    path("skills/<str:code>/enabled", skills.skill_set_enabled, name="skill_set_enabled"),
    path("skills/<str:code>/delete", skills.skill_delete, name="skill_delete"),
    path("skills/<str:code>/history", history.skill_history, name="skill_history"),
    path("skills/<str:code>/history/<int:history_id>/restore", history.skill_revert, name="skill_revert"),
    path("preview/", preview.preview, name="preview"),
    path("preview/result.json", preview.preview_result_json, name="preview_result_json"),
    path("preview/payload", preview.preview_payload, name="preview_payload"),
    path("scenarios/", scenarios.scenario_list, name="scenario_list"),
    path("scenarios/new", scenarios.scenario_create, name="scenario_create"),
    path("scenarios/from-preview", scenarios.scenario_from_preview, name="scenario_from_preview"),
    path("scenarios/<str:name>/edit", scenarios.scenario_edit, name="scenario_edit"),
    path("scenarios/<str:name>/result", scenarios.scenario_result, name="scenario_result"),
    path("scenarios/<str:name>/result.json", scenarios.scenario_result_json, name="scenario_result_json"),
    path("restrictions/", restrictions.restriction_list, name="restriction_list"),
    path("restrictions/<str:kind>/new", restrictions.restriction_edit, name="restriction_create"),
    path("restrictions/<str:kind>/<str:name>/edit", restrictions.restriction_edit, name="restriction_edit"),
    path("tools/", tools.tool_tree, name="tool_tree"),
    path("tools/options", tools.tool_options, name="tool_options"),
    path("releases/", releases.release_list, name="release_list"),
    path("releases/diff", releases.release_diff, name="release_diff"),
    path("releases/labels", releases.label_move, name="label_move"),
    path("releases/<int:number>/", releases.release_detail, name="release_detail"),
    path("releases/<int:number>/rollback", releases.release_rollback, name="release_rollback"),
    path("publish/", releases.publish, name="publish"),
    path("api-keys/", releases.api_keys, name="api_keys"),
    path("insights/", reports.insights, name="insights"),
    path("fleet/", reports.fleet, name="fleet"),
    path("mcp/", mcp.server_list, name="mcp_server_list"),
    path("mcp/new", mcp.server_edit, name="mcp_server_create"),
    path("mcp/<str:server>/edit", mcp.server_edit, name="mcp_server_edit"),
    path("mcp/<str:server>/sync", mcp.server_sync, name="mcp_server_sync"),
    path("mcp/<str:server>/syncs", mcp.sync_history, name="mcp_sync_history"),
    path("tools/mcp/<str:tool>/", mcp.tool_detail, name="mcp_tool_detail"),
    path("tools/nodes/new", mcp.node_edit, name="node_create"),
    path("tools/nodes/<str:intent>/edit", mcp.node_edit, name="node_edit"),
    path("tools/nodes/<str:intent>/delete", mcp.node_delete, name="node_delete"),
    path("audit/", history.audit, name="audit"),
    path("preferences/time-zone", preferences.time_zone, name="time_zone"),
]
