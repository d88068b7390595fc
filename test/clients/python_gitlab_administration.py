"""Drives geoforge's broadcast messages, application settings and statistics, license templates, access requests and markdown with the real python-gitlab 3.12 client.

Usage: python_gitlab_administration.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, client, failure, main, new_user, signed_in  # also makes every warning an error


def broadcasts():
    gl = signed_in()
    obs = {}
    message = gl.broadcastmessages.create({"message": f"pgl broadcast {RUN}", "color": "#112233", "target_access_levels": [30]})
    obs["created"] = {"message": message.message, "color": message.color, "levels": message.target_access_levels, "active": message.active}
    message.message = f"pgl changed {RUN}"
    message.save()
    obs["saved"] = gl.broadcastmessages.get(message.id).message
    obs["listed"] = message.id in [m.id for m in client(None).broadcastmessages.list(get_all=True)]
    obs["missing"] = failure(lambda: gl.broadcastmessages.create({"message": ""}))
    gl.broadcastmessages.delete(message.id)
    obs["deleted"] = failure(lambda: gl.broadcastmessages.get(message.id))
    return obs


def settings():
    gl = signed_in()
    obs = {}
    current = gl.settings.get()
    obs["read"] = {"signup": current.signup_enabled, "visibility": current.default_project_visibility, "restricted": current.restricted_visibility_levels}
    current.default_projects_limit = 42
    current.restricted_visibility_levels = ["internal"]
    current.save()
    again = gl.settings.get()
    obs["saved"] = {"limit": again.default_projects_limit, "restricted": again.restricted_visibility_levels}
    again.default_projects_limit = 100000
    again.restricted_visibility_levels = []
    again.save()
    stats = gl.statistics.get()
    obs["statistics"] = {"users": stats.users, "projects": stats.projects, "snippets": stats.snippets}
    obs["license"] = gl.get_license()["plan"]
    user = new_user(gl, "settings")
    token = user.impersonationtokens.create({"name": "pgl", "scopes": ["api"]}).token
    obs["forbidden"] = failure(lambda: signed_in(token).settings.get())
    return obs


def licenses():
    gl = signed_in()
    obs = {}
    obs["popular"] = sorted(license.key for license in gl.licenses.list(popular=True, get_all=True))
    mit = gl.licenses.get("mit", project="pgl", fullname="Jane Doe")
    obs["mit"] = {"key": mit.key, "name": mit.name, "filled": "Jane Doe" in mit.content}
    obs["missing"] = failure(lambda: gl.licenses.get("no-such-license"))
    return obs


def access_requests():
    gl = signed_in()
    obs = {}
    owner = new_user(gl, "arowner")
    asker = new_user(gl, "arasker")
    owner_gl = signed_in(owner.impersonationtokens.create({"name": "pgl", "scopes": ["api"]}).token)
    asker_gl = signed_in(asker.impersonationtokens.create({"name": "pgl", "scopes": ["api"]}).token)
    project = owner_gl.projects.create({"name": f"pglaccess{RUN}", "visibility": "public", "request_access_enabled": True})
    request = asker_gl.projects.get(project.id).accessrequests.create({})
    obs["requested"] = {"id": request.id, "username": request.username}
    obs["listed"] = [r.id for r in project.accessrequests.list(get_all=True)]
    project.accessrequests.list(get_all=True)[0].approve(access_level=20)
    obs["member"] = project.members.get(asker.id).access_level
    obs["after"] = [r.id for r in project.accessrequests.list(get_all=True)]
    group = owner_gl.groups.create({"name": f"pglaccess{RUN}", "path": f"pglaccess{RUN}", "visibility": "public", "request_access_enabled": True})
    asker_gl.groups.get(group.id).accessrequests.create({})
    group.accessrequests.delete(asker.id)
    obs["denied"] = [r.id for r in group.accessrequests.list(get_all=True)]
    return obs


def markdown():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglmarkdown{RUN}"})
    issue = project.issues.create({"title": "Referenced"})
    html = gl.markdown(f"Fixes #{issue.iid} <script>x()</script>", gfm=True, project=project.path_with_namespace)
    return {"linked": f"/-/issues/{issue.iid}" in html, "script": "<script" in html, "plain": gl.markdown("**b**")}


main(broadcasts, settings, licenses, access_requests, markdown)
