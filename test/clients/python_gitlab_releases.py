"""Drives geoforge's releases, release links and system hooks with the real python-gitlab 3.12 client.

Usage: python_gitlab_releases.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def releases():
    gl = signed_in()
    obs = {}
    project = gl.projects.create({"name": f"pglrel{RUN}", "initialize_with_readme": True})
    project.milestones.create({"title": "m1"})
    made = project.releases.create({
        "tag_name": "v1.0",
        "ref": "master",
        "name": "One",
        "description": "first",
        "milestones": ["m1"],
        "assets": {"links": [{"name": "bin", "url": "https://example.com/bin", "link_type": "package"}]},
    })
    obs["created"] = {"tag": made.tag_name, "name": made.name, "milestones": [m["title"] for m in made.milestones], "links": [l["name"] for l in made.assets["links"]]}
    obs["tag_exists"] = project.tags.get("v1.0").release
    project.releases.create({"tag_name": "v0.1", "ref": "master", "description": "old", "released_at": "2020-01-01T00:00:00Z"})
    obs["listed"] = [r.tag_name for r in project.releases.list(get_all=True)]
    release = project.releases.get("v1.0")
    release.description = "edited"
    release.save()
    obs["edited"] = project.releases.get("v1.0").description
    obs["duplicate"] = failure(lambda: project.releases.create({"tag_name": "v1.0", "description": "again"}))
    obs["no_ref"] = failure(lambda: project.releases.create({"tag_name": "v9", "description": "x"}))

    link = release.links.create({"name": "docs", "url": "https://example.com/docs"})
    obs["link_listed"] = sorted(l.name for l in release.links.list(get_all=True))
    got = release.links.get(link.id)
    got.name = "manual"
    got.save()
    obs["link_edited"] = release.links.get(link.id).name
    release.links.delete(link.id)
    obs["link_gone"] = failure(lambda: release.links.get(link.id))

    project.releases.delete("v0.1")
    obs["after_delete"] = [r.tag_name for r in project.releases.list(get_all=True)]
    obs["missing"] = failure(lambda: project.releases.get("v0.1"))
    return obs


def system_hooks():
    gl = signed_in()
    obs = {}
    hook = gl.hooks.create({"url": "https://example.com/system", "push_events": True})
    obs["created"] = {"url": hook.url, "push_events": hook.push_events, "repository_update_events": hook.repository_update_events}
    obs["listed"] = [h.url for h in gl.hooks.list(get_all=True)]
    obs["got"] = gl.hooks.get(hook.id).url
    obs["tested"] = gl.http_post(f"/hooks/{hook.id}")["event_name"]
    gl.hooks.delete(hook.id)
    obs["gone"] = failure(lambda: gl.hooks.get(hook.id))
    obs["bad_url"] = failure(lambda: gl.hooks.create({"url": "not a url"}))
    return obs


if __name__ == "__main__":
    main(releases, system_hooks)
