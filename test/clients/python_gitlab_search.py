"""Drives geoforge's Topics and Search APIs with the real python-gitlab 3.12 client.

Usage: python_gitlab_search.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import base64

from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def topics():
    gl = signed_in()
    obs = {}
    topic = gl.topics.create({"name": f"pgltopic{RUN}", "title": "Pgl Topic", "description": "first", "avatar": PNG})
    obs["created"] = {"name": topic.name, "title": topic.title, "description": topic.description, "count": topic.total_projects_count,
                      "avatar": topic.avatar_url is not None}
    other = gl.topics.create({"name": f"pglother{RUN}", "title": "Other"})
    project = gl.projects.create({"name": f"pgltopics{RUN}", "topics": [topic.name]})
    obs["project_topics"] = project.topics
    obs["listed"] = [t.name for t in gl.topics.list(search=f"pgltopic{RUN}", get_all=False)]
    obs["fetched_count"] = gl.topics.get(topic.id).total_projects_count
    topic.description = "second"
    topic.save()
    obs["saved"] = gl.topics.get(topic.id).description
    obs["filtered"] = [p.id for p in gl.projects.list(topic=topic.name, get_all=False)] == [project.id]
    merged = gl.topics.merge(topic.id, other.id)
    obs["merged"] = {"id": merged["id"] == other.id, "count": merged["total_projects_count"]}
    obs["project_after_merge"] = gl.projects.get(project.id).topics
    obs["missing"] = failure(lambda: gl.topics.get(topic.id))
    other.delete()
    obs["after_delete"] = failure(lambda: gl.topics.get(other.id))
    return obs


def search():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglsearch{RUN}", "visibility": "public", "initialize_with_readme": True})
    project.issues.create({"title": f"Puffin {RUN} sighting"})
    project.commits.create({"branch": project.default_branch, "commit_message": f"Add puffin{RUN} notes",
                            "actions": [{"action": "create", "file_path": "birds.txt", "content": f"one puffin{RUN} here\n"}]})
    return {
        "global_issues": [i["title"] for i in gl.search("issues", f"puffin {RUN}")],
        "global_projects": [p["id"] for p in gl.search("projects", f"pglsearch{RUN}")] == [project.id],
        "project_issues": [i["title"] for i in project.search("issues", "puffin")],
        "project_blobs": [(b["path"], b["startline"], b["data"]) for b in project.search("blobs", f"puffin{RUN}")],
        "project_commits": [c["title"] for c in project.search("commits", f"puffin{RUN}")],
        "bad_scope": failure(lambda: gl.search("nope", "x")),
    }


if __name__ == "__main__":
    main(topics, search)
